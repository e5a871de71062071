/**
 * The single-file function: the registry built once from the embedded snapshot, for every runtime.
 *
 * - `default`: the Hono app (`{ fetch }`), for `deno serve`, Bun, Cloudflare Workers and Netlify
 *   Functions v2.
 * - `config`: Netlify's routing for the three addresses.
 * - `lambdaHandler`: AWS Lambda (API Gateway REST and HTTP APIs, ALB, Function URLs). It is not
 *   named `handler`, because Netlify treats a file exporting `handler` as a v1 function and ignores
 *   `config.path`; a Lambda bundle re-exports it as `handler`.
 * - `createApp`, `prepareBuild`: the same app from any source and configuration.
 *
 * Configuration comes from the environment on every runtime: `BASE_URL` and `SOURCE_DATE_EPOCH`
 * (DECISIONS.md D6). A bundle made by `npm run build` carries its `built_at` and base URL stamped in.
 */
import { handle, type LambdaEvent } from "hono/aws-lambda";
import { BASE_URL, BUILT_AT } from "./build-info.ts";
import { resolveConfig, type Env } from "./config.ts";
import { createApp, prepareBuild } from "./app.ts";
import { PATHS, validateSource } from "./registry.ts";
import { problem } from "./responses.ts";
import snapshot from "./fixtures/registry.json" with { type: "json" };

export { createApp, prepareBuild } from "./app.ts";

/** Netlify Functions v2 routing: the function answers exactly the registry's addresses. */
export const config = { path: [PATHS.canonical, PATHS.versioned, PATHS.schema] };

const app = createApp(await prepareBuild(embeddedSource(), embeddedConfig(), { compress: gzipWithStreams, encodings: ["gzip"] }));
export default app;

const lambda = handle(app);
const BAD_EVENT = problem(400, "Bad Request");

/**
 * The AWS Lambda entry point. The registry reads neither the Host nor a body, so both are made
 * harmless before the adapter sees them: a host that would not make a valid URL (the Function URL
 * sample's `<url-id>`) is replaced, and a body is dropped (a GET with a body would otherwise be
 * refused). Accept-Encoding is dropped too (see `withoutAcceptEncoding`). An event that is not an
 * HTTP event at all gets a 400 problem, never an exception.
 */
export async function lambdaHandler(event: LambdaEvent, context?: Parameters<typeof lambda>[1]): Promise<Awaited<ReturnType<typeof lambda>>> {
  try {
    return await lambda(harmless(event), context);
  } catch {
    return {
      statusCode: BAD_EVENT.status,
      headers: BAD_EVENT.headers,
      body: new TextDecoder().decode(BAD_EVENT.body),
      isBase64Encoded: false,
    };
  }
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

/** gzip with the web's CompressionStream: the coding every runtime can make (brotli is Node's). */
async function gzipWithStreams(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * Lambda answers in identity: a compressed body must travel base64-encoded, which API Gateway REST
 * APIs pass to clients undecoded unless binary media types are configured. CloudFront or the API
 * in front compresses instead.
 */
function withoutAcceptEncoding<T>(headers: T): T {
  if (typeof headers !== "object" || headers === null) return headers;
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== "accept-encoding")) as T;
}

function embeddedSource() {
  const result = validateSource(snapshot);
  if (!result.ok) throw new Error(`fixtures/registry.json is not a valid source:\n${result.problems.join("\n")}`);
  return result.source;
}

function embeddedConfig() {
  const env = runtimeEnv();
  // A bundle's stamped base URL is the default; BASE_URL set where it runs still wins.
  const resolved = resolveConfig({ ...env, BASE_URL: env["BASE_URL"] || BASE_URL }, { builtAt: BUILT_AT });
  if ("problems" in resolved) throw new Error(`invalid configuration:\n${resolved.problems.join("\n")}`);
  return resolved.ok;
}

/** BASE_URL and SOURCE_DATE_EPOCH from Deno's or Node's environment (Node, Bun, Lambda, Netlify). */
function runtimeEnv(): Env {
  const names = ["BASE_URL", "SOURCE_DATE_EPOCH"];
  const deno = (globalThis as { Deno?: { env: { get(name: string): string | undefined } } }).Deno;
  if (deno !== undefined) {
    try {
      return Object.fromEntries(names.map((name) => [name, deno.env.get(name)]));
    } catch {
      throw new Error(`cannot read ${names.join(" and ")}: run with --allow-env=${names.join(",")}`);
    }
  }
  const env = (globalThis as { process?: { env?: Env } }).process?.env ?? {};
  return Object.fromEntries(names.map((name) => [name, env[name]]));
}
