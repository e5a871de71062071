/**
 * The single-file function over `fixtures/registry.json` (docs/deploying.md, "`handler.ts` unbundled"). `BASE_URL`
 * and `SOURCE_DATE_EPOCH` are checked at import, so a bad value stops the start; the answers are hashed and gzipped
 * on the first request, because Workers forbid both at import.
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
 * Netlify Functions v2 routing: each path of `tablePaths(VERSIONS)`, so a version past its sunset still answers 410.
 * Netlify reads it by static analysis and accepts only literals, so the paths are written out (a test checks them).
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

/** The AWS Lambda entry point: not named `handler`, which would make Netlify take the file for a v1 function. */
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
