/**
 * AWS Lambda in front of any registry app: API Gateway REST (payload 1.0) and HTTP APIs (2.0),
 * ALB and Function URLs, through Hono's adapter. Web standards only in this file.
 */
import type { HonoBase } from "hono/hono-base";
import { handle, type LambdaEvent } from "hono/aws-lambda";
import { problem } from "./responses.ts";

const BAD_EVENT = problem(400, "Bad Request");

/** A Lambda result: what the adapter returns, headers or multiValueHeaders as the event had. */
export type LambdaResult = Awaited<ReturnType<ReturnType<typeof handle>>>;

/**
 * Makes the Lambda handler of `app`. The registry reads neither the Host nor a body, so both are
 * made harmless before the adapter sees them: a host that would not make a valid URL (the Function
 * URL sample's `<url-id>`) is replaced, and a body is dropped (a GET with a body would otherwise
 * be refused). Accept-Encoding is dropped too: a compressed body travels base64-encoded, which API
 * Gateway REST APIs pass to clients undecoded unless binary media types are configured, so Lambda
 * answers identity and leaves compression to CloudFront or the API in front. An event that is not
 * an HTTP event at all gets a 400 problem, never an exception.
 */
export function lambdaHandlerFor(app: HonoBase): (event: LambdaEvent, context?: unknown) => Promise<LambdaResult> {
  const lambda = handle(app);
  return async (event, context) => {
    try {
      return await lambda(harmless(event), context as Parameters<typeof lambda>[1]);
    } catch {
      return { statusCode: BAD_EVENT.status, headers: BAD_EVENT.headers, body: new TextDecoder().decode(BAD_EVENT.body), isBase64Encoded: false };
    }
  };
}

function harmless(event: LambdaEvent): LambdaEvent {
  const copy = {
    ...event,
    body: null,
    isBase64Encoded: false,
    headers: withoutAcceptEncoding((event as { headers?: unknown }).headers),
    ...("multiValueHeaders" in event && event.multiValueHeaders ? { multiValueHeaders: withoutAcceptEncoding(event.multiValueHeaders) } : {}),
  } as LambdaEvent;
  const context: unknown = (event as { requestContext?: unknown }).requestContext;
  if (typeof context !== "object" || context === null || !("domainName" in context)) return copy;
  if (URL.canParse(`https://${String(context.domainName)}/`)) return copy;
  return { ...copy, requestContext: { ...context, domainName: "lambda-url.invalid" } } as LambdaEvent;
}

function withoutAcceptEncoding<T>(headers: T): T {
  if (typeof headers !== "object" || headers === null) return headers;
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== "accept-encoding")) as T;
}
