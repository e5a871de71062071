/**
 * The single-file function, for development and the embedded snapshot: the registry from `fixtures/registry.json`, for
 * every runtime, unbundled. Deploy artifacts with an operator's own source are made by `npm run build`
 * (`dist/fetch/index.mjs` exports the same app over answers stamped at build).
 *
 * - `default`: the Hono app (`{ fetch }`), for `deno serve`, Bun, Cloudflare Workers and Netlify Functions v2.
 * - `config`: Netlify's routing for the version table's addresses. Netlify reads it by static analysis and accepts only
 *   literals, so the paths are written out (a test checks them).
 * - `lambdaHandler`: AWS Lambda (API Gateway REST and HTTP APIs, ALB, Function URLs). It is not named `handler`,
 *   because Netlify treats a file exporting `handler` as a v1 function and ignores `config.path`.
 *
 * Configuration comes from the environment on every runtime: `BASE_URL` and `SOURCE_DATE_EPOCH` (docs/choices.md), read
 * and checked at import, so a bad value stops the start. `built_at` is stamped then too: unbundled, each start stamps
 * its own unless `SOURCE_DATE_EPOCH` is set. The answers are hashed and gzipped on the first request, because Workers
 * forbid both at import.
 */
import type { HonoBase } from "hono/hono-base";
import { type Env, resolveConfig } from "./contract/config.ts";
import { createApp, withBasePath } from "./http/app.ts";
import { tablePaths } from "./contract/version-policy.ts";
import { VERSIONS } from "./assembly/versions.ts";
import { type LambdaHandler, lambdaHandlerFor } from "./http/lambda.ts";
import { type Build, prepareBuild } from "./assembly/prepare.ts";
import { validateSource } from "./registry.ts";
import snapshot from "./fixtures/registry.json" with { type: "json" };

export { createApp } from "./http/app.ts";
export { prepareBuild } from "./assembly/prepare.ts";

/**
 * Netlify Functions v2 routing: every path of the version table (`tablePaths(VERSIONS)`, which a
 * test checks this literal against), so a version past its sunset still answers its own 410.
 */
export const config = {
  path: [
    "/vaults.json",
    "/api/registry.v1.json",
    "/api/registry.v1.schema.json",
    "/api/registry.v1.openapi.json",
    "/api/registry.v1.changes.json",
    "/api/registry.v1.changes.atom",
  ],
};

const source = embeddedSource();
const buildConfig = embeddedConfig();
let build: Promise<Build> | undefined;
const prepared = (): Promise<
  Build
> => (build ??= prepareBuild(source, buildConfig, { compress: gzipWithStreams, encodings: ["gzip"] }));

const app: HonoBase = createApp(prepared, withBasePath(tablePaths(VERSIONS), buildConfig.baseUrl));
export default app;

/** The AWS Lambda entry point (see http/lambda.ts). */
export const lambdaHandler: LambdaHandler = lambdaHandlerFor(prepared);

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
