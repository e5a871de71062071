/** The recorded AWS Lambda events of `fixtures/aws-events/`, and the same events aimed elsewhere. */
import { readFileSync } from "node:fs";

export type Event = Record<string, any>;

/** Every recorded event kind: REST (payload 1.0, with and without a stage), HTTP API (2.0), ALB (single- and multi-value), Function URL. */
export const EVENTS = [
  "apigw-rest-v1",
  "apigw-rest-v1-stage",
  "apigw-http-v2",
  "alb-multivalue-headers",
  "alb-headers-only",
  "lambda-function-url",
];

/** A recorded event, as recorded. */
export const event = (name: string): Event => JSON.parse(readFileSync(`fixtures/aws-events/${name}.json`, "utf8"));

/** True when the event carries multi-value headers (the answer must too). */
export const usesMultiValueHeaders = (e: Event): boolean =>
  e["multiValueHeaders"] !== undefined && e["multiValueHeaders"] !== null;

/** The event with only its method, path and (added) headers changed, in the event's own shape. */
export function retarget(e: Event, method: string, path: string, headers: Record<string, string> = {}): Event {
  const copy = structuredClone(e);
  if (copy["version"] === "2.0") {
    copy["rawPath"] = path;
    copy["requestContext"].http.method = method;
    copy["requestContext"].http.path = path;
  } else {
    copy["httpMethod"] = method;
    copy["path"] = path;
    if (copy["requestContext"]?.httpMethod !== undefined) copy["requestContext"].httpMethod = method;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (copy["headers"]) copy["headers"][name] = value;
    if (copy["multiValueHeaders"]) copy["multiValueHeaders"][name] = [value];
  }
  return copy;
}
