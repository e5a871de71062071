/**
 * `npm run build [-- --out DIR]`: every deployable artifact, stamped with one `built_at`.
 *
 * - `DIR/lambda/index.mjs`: one minified ESM file exporting `handler` (Lambda's "index.handler"),
 *   serving exactly this build's bytes (see `bundle.ts`).
 * - `DIR/static/`: `vaults.json`, `api/registry.v1.json`, `api/registry.v1.schema.json` and a
 *   `_headers` file giving Netlify or Cloudflare Pages the same headers as the server.
 *
 * `built_at` is SOURCE_DATE_EPOCH, else the clock once; with SOURCE_DATE_EPOCH set, two builds are
 * byte-identical. REGISTRY_SOURCE replaces the embedded snapshot. No artifact embeds the source:
 * only the document, so nothing private is in `DIR`. Everything is written to a
 * temporary folder first and swapped in whole, so a failed build leaves an existing DIR untouched.
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { prepareBuild } from "../http/prepare.ts";
import { PATHS } from "../registry.ts";
import type { Resource } from "../http/responses.ts";
import { bundleLambda } from "./bundle.ts";
import { loadInputs, SNAPSHOT } from "./inputs.ts";

const { values } = parseArgs({ options: { out: { type: "string", default: "dist" } }, strict: true });
const out = resolve(values.out);
const sourcePath = process.env["REGISTRY_SOURCE"] || SNAPSHOT;

const inputs = await loadInputs(sourcePath, process.env);
if ("problems" in inputs) {
  process.stderr.write(inputs.problems.map((p) => `${p}\n`).join(""));
  process.exit(1);
}
const { source: registrySource, config: buildConfig } = inputs.ok;
const { builtAt, baseUrl } = buildConfig;

const temporary = `${out}.tmp-${process.pid}`;
await rm(temporary, { recursive: true, force: true });
try {
  const served = await prepareBuild(registrySource, buildConfig);
  await writeStatic(join(temporary, "static"), served.document, served.schema);
  await bundleLambda(served, join(temporary, "lambda", "index.mjs"));
  await swapIn(temporary, out);
} catch (error: unknown) {
  await rm(temporary, { recursive: true, force: true });
  process.stderr.write(`build failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
console.log(`built ${out} (built_at ${builtAt}, base URL ${baseUrl})`);

async function writeStatic(dir: string, document: Resource, schema: Resource): Promise<void> {
  const files: [string, Resource][] = [
    [PATHS.canonical, document],
    [PATHS.versioned, document],
    [PATHS.schema, schema],
  ];
  // Static hosts compute their own length and validators and compress on their own.
  const own = (resource: Resource) =>
    Object.entries(resource.identity.ok).filter(([name]) => !["content-length", "etag", "last-modified", "vary"].includes(name));
  const headers = files.map(([path, rep]) => [path, ...own(rep).map(([n, v]) => `  ${n}: ${v}`)].join("\n"));
  for (const [path, resource] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), resource.identity.body);
  }
  await writeFile(join(dir, "_headers"), `${headers.join("\n\n")}\n`);
}

async function swapIn(from: string, to: string): Promise<void> {
  const old = `${to}.old-${process.pid}`;
  await rm(old, { recursive: true, force: true });
  await rename(to, old).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
  await rename(from, to);
  await rm(old, { recursive: true, force: true });
}
