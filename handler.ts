/**
 * The single-file function: the registry built once from the embedded snapshot, for every runtime.
 *
 * - `default`: the Hono app (`{ fetch }`), for `deno serve`, Bun, Cloudflare Workers and Netlify
 *   Functions v2.
 * - `config`: Netlify's routing for the three addresses.
 * - `lambdaHandler`: AWS Lambda (API Gateway REST and HTTP APIs, ALB, Function URLs). It is not
 *   named `handler`, because Netlify treats a file exporting `handler` as a v1 function and ignores
 *   `config.path`. `npm run build` makes the deployable bundle (`handler`), with the answers
 *   precomputed at build instead of at start.
 * - `createApp`, `prepareBuild`: the same app from any source and configuration.
 *
 * Configuration comes from the environment on every runtime: `BASE_URL` and `SOURCE_DATE_EPOCH`
 * (DECISIONS.md D6).
 */
import { createApp } from "./http/app.ts";
import { resolveConfig, type Env } from "./contract/config.ts";
import { lambdaHandlerFor } from "./http/lambda.ts";
import { PATHS } from "./contract/paths.ts";
import { prepareBuild } from "./http/prepare.ts";
import { validateSource } from "./registry.ts";
import snapshot from "./fixtures/registry.json" with { type: "json" };

export { createApp } from "./http/app.ts";
export { prepareBuild } from "./http/prepare.ts";

/** Netlify Functions v2 routing: the function answers exactly the registry's addresses. */
export const config = { path: [PATHS.canonical, PATHS.versioned, PATHS.schema] };

const app = createApp(await prepareBuild(embeddedSource(), embeddedConfig(), { compress: gzipWithStreams, encodings: ["gzip"] }));
export default app;

/** The AWS Lambda entry point (see http/lambda.ts). */
export const lambdaHandler = lambdaHandlerFor(app);

/** gzip with the web's CompressionStream: the coding every runtime can make (brotli is Node's). */
async function gzipWithStreams(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function embeddedSource() {
  const result = validateSource(snapshot);
  if (!result.ok) throw new Error(`fixtures/registry.json is not a valid source:\n${result.problems.join("\n")}`);
  return result.source;
}

function embeddedConfig() {
  const resolved = resolveConfig(runtimeEnv());
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
