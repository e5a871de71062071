/**
 * AWS Lambda events (API Gateway 1.0/2.0, ALB, Function URLs) mapped straight to the answer function. No `Request`,
 * `Headers` or `Response`: the first in a process loads Node's fetch implementation and lengthens every cold start. The
 * streaming handler lets a Function URL in `RESPONSE_STREAM` mode send a document past the 6 MB buffered limit.
 */
import { isObject } from "../contract/json.ts";
import {
  type Answer,
  type Answerer,
  answerer,
  answersOf,
  BAD_REQUEST,
  INTERNAL_ERROR,
  problemAnswer,
} from "./answer.ts";
import type { Build } from "./table.ts";
import { pathOf } from "./request-path.ts";
import { textOf } from "./restore.ts";

/** What a Lambda proxy integration expects back. */
export interface LambdaResult {
  statusCode: number;
  statusDescription?: string;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  body: string;
  isBase64Encoded: false;
}

/** The Lambda handler's signature: any event in, a result out; it never throws. */
export type LambdaHandler = (event: unknown, context?: unknown) => Promise<LambdaResult>;

/** Where the one log line of a malformed event goes (console.error unless a test captures it). */
export type Log = (line: string) => void;

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: "OK",
  204: "No Content",
  304: "Not Modified",
  400: "Bad Request",
  404: "Not Found",
  405: "Method Not Allowed",
  410: "Gone",
  500: "Internal Server Error",
};

/**
 * Makes the Lambda handler over `build` (or, given a function, over the build it returns on the first invocation):
 * buffered, the answer returned whole as the event's proxy result. Lambda answers identity whatever the client accepts:
 * a compressed body travels base64-encoded, which API Gateway REST APIs pass to clients undecoded unless binary media
 * types are configured; compression is left to CloudFront or the API in front. An event that is not an HTTP request
 * gets a 400 problem and one log line naming its top-level keys, never a stack trace.
 *
 * @example
 * ```ts
 * import { restoreBuild, type BuildStamp } from "./restore.ts";
 * function handlerOf(stamp: BuildStamp): LambdaHandler {
 *   return lambdaHandlerFor(restoreBuild(stamp));
 * }
 * ```
 */
export function lambdaHandlerFor(
  build: Build | (() => Promise<Build>),
  log: Log = (line) => console.error(line),
): LambdaHandler {
  const answerOf = eventAnswerer(build, log, true);
  return async (event) => toResult(await answerOf(event), event);
}

/**
 * What `awslambda.streamifyResponse` hands a handler: the response's writable stream (a Node `Writable`), as far as it
 * is used here.
 */
export interface ResponseStream {
  write(chunk: Uint8Array): boolean;
  end(callback: () => void): void;
  once(event: "drain", listener: () => void): unknown;
}

/** A streaming Lambda handler: the answer written to the stream; in Lambda it never throws. */
export type LambdaStreamHandler = (event: unknown, stream: ResponseStream, context?: unknown) => Promise<void>;

/** The `awslambda` global the Node.js runtime sets before it loads the function's module. */
interface AwsLambdaGlobal {
  streamifyResponse?(handler: LambdaStreamHandler): LambdaStreamHandler;
  HttpResponseStream?: {
    from(stream: ResponseStream, prelude: { statusCode: number; headers: Record<string, string> }): ResponseStream;
  };
}

/** The size of each write: the stream's backpressure is honoured between them. */
const STREAM_CHUNK = 64 * 1024;

/**
 * Makes the streaming Lambda handler over `build`, for a Function URL whose invoke mode is `RESPONSE_STREAM`: the
 * status and headers go as the runtime's HTTP prelude (`awslambda.HttpResponseStream.from`), then the body, in 64 KiB
 * writes. Lambda's 6 MB limit is a buffered response's; a streamed one may reach 200 MB. Wrapped with
 * `awslambda.streamifyResponse` when that global exists (in Lambda); elsewhere returned as it is. Every event gets the
 * HTTP form, so only a Function URL should invoke it: API Gateway reads a buffered proxy result (`lambdaHandlerFor`).
 */
export function lambdaStreamHandlerFor(
  build: Build | (() => Promise<Build>),
  log: Log = (line) => console.error(line),
): LambdaStreamHandler {
  const answerOf = eventAnswerer(build, log, false);
  const handler: LambdaStreamHandler = async (event, stream) => {
    const answer = await answerOf(event);
    const from = awsLambda()?.HttpResponseStream?.from;
    if (from === undefined) throw new Error("awslambda.HttpResponseStream is not defined: not in AWS Lambda");
    const http = from(stream, { statusCode: answer.status, headers: { ...answer.headers } });
    const body = answer.body ?? new Uint8Array(0);
    // The first write sends the prelude, so an answer without a body still writes once.
    let at = 0;
    do {
      if (!http.write(body.subarray(at, at + STREAM_CHUNK))) {
        await new Promise<void>((resolve) => http.once("drain", () => resolve()));
      }
      at += STREAM_CHUNK;
    } while (at < body.byteLength);
    await new Promise<void>((resolve) => http.end(resolve));
  };
  const streamify = awsLambda()?.streamifyResponse;
  return streamify === undefined ? handler : streamify(handler);
}

function awsLambda(): AwsLambdaGlobal | undefined {
  return (globalThis as { awslambda?: AwsLambdaGlobal }).awslambda;
}

/**
 * The answer to any event, HTTP or not, as both handlers give it, its body read (an answer makes it on first read, and
 * a failure then is a 500 too): as its text when `asText` and the text is known, and then not as bytes (`body` null).
 */
function eventAnswerer(
  build: Build | (() => Promise<Build>),
  log: Log,
  asText: boolean,
): (event: unknown) => Promise<Answer> {
  const answers = answersOf(build, answerer);
  return async (event) => {
    const request = readEvent(event);
    let answer: Answerer;
    try {
      answer = answers.current() ?? (await answers.ready());
    } catch {
      return problemAnswer(INTERNAL_ERROR, request?.method);
    }
    if (request === undefined) {
      const keys = isObject(event)
        ? Object.keys(event).slice(0, 10).map((k) => JSON.stringify(k.slice(0, 64))).join(", ")
        : typeof event;
      log(logLine(`registry: 400 for a Lambda event that is not an HTTP request (top-level keys: ${keys || "none"})`));
      return problemAnswer(BAD_REQUEST);
    }
    try {
      // Accept-Encoding is not read: Lambda answers identity (see above).
      const answered = answer(
        request.method,
        request.path,
        (name) => (name === "accept-encoding" ? null : request.header(name)),
      );
      const text = asText ? answered.text : undefined;
      return {
        status: answered.status,
        headers: answered.headers,
        body: text === undefined ? answered.body : null,
        text,
      };
    } catch {
      return problemAnswer(INTERNAL_ERROR, request.method);
    }
  };
}

interface EventRequest {
  readonly method: string;
  readonly path: string;
  header(name: string): string | undefined;
}

/** The method, path and headers of an HTTP event of any of the four kinds, or undefined. */
function readEvent(event: unknown): EventRequest | undefined {
  if (!isObject(event)) return undefined;
  const context = isObject(event["requestContext"]) ? event["requestContext"] : {};
  const http = isObject(context["http"]) ? context["http"] : undefined;
  // Payload 2.0 (HTTP APIs, Function URLs): rawPath and requestContext.http.method.
  const method = http !== undefined ? http["method"] : event["httpMethod"];
  const raw = http !== undefined ? event["rawPath"] : event["path"];
  const path = typeof raw === "string" && raw.startsWith("/") ? pathOf(raw) : null;
  if (typeof method !== "string" || path === null || method === "") return undefined;
  const single = isObject(event["headers"]) ? event["headers"] : {};
  const multi = isObject(event["multiValueHeaders"]) ? event["multiValueHeaders"] : undefined;
  return {
    method: method.toUpperCase(),
    path,
    header(name) {
      // Header names arrive in any case (REST APIs keep the client's); multi-value lists are joined.
      for (const [key, value] of Object.entries(multi ?? single)) {
        if (key.toLowerCase() !== name) continue;
        if (typeof value === "string") return value;
        if (Array.isArray(value)) return value.filter((v) => typeof v === "string").join(", ");
      }
      return undefined;
    },
  };
}

/** The answer in the event's own shape: multiValueHeaders exactly when the event used them. */
function toResult(answer: Answer, event: unknown): LambdaResult {
  const body = answer.text ?? (answer.body === null ? "" : textOf(answer.body));
  const result: LambdaResult = { statusCode: answer.status, body, isBase64Encoded: false };
  const record = isObject(event) ? event : {};
  const context = isObject(record["requestContext"]) ? record["requestContext"] : {};
  if (isObject(context["elb"])) {
    result.statusDescription = `${answer.status} ${STATUS_TEXT[answer.status] ?? ""}`.trim();
  }
  if (isObject(record["multiValueHeaders"])) {
    result.multiValueHeaders = Object.fromEntries(
      Object.entries(answer.headers).map(([name, value]) => [name, [value]]),
    );
  } else {
    result.headers = { ...answer.headers };
  }
  return result;
}

/** The longest log line, in bytes: a hostile event cannot flood the log. */
const MAX_LOG_LINE = 1024;

/**
 * `text` as one safe log line: every control, non-ASCII and line-separator character escaped as `\uXXXX` (so a key
 * holding a newline cannot forge a second line), cut to `MAX_LOG_LINE` bytes.
 */
function logLine(text: string): string {
  const escaped = text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return escaped.length <= MAX_LOG_LINE ? escaped : `${escaped.slice(0, MAX_LOG_LINE - 3)}...`;
}
