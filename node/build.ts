/**
 * `npm run build -- --source FILE --base-url URL [--out DIR]`: every deploy artifact of one build,
 * stamped with one `built_at`, all serving the same bytes and ETags.
 *
 * - `DIR/node/server.mjs`, `DIR/fetch/index.mjs`, `DIR/lambda/index.mjs` (see `bundle.ts`);
 * - `DIR/static/`: the three files and a `_headers` file giving Netlify or Cloudflare Pages the
 *   same headers as the server;
 * - `DIR/.registry-build`: the marker naming every file the build made.
 *
 * The build owns only what it makes: it writes into DIR only when DIR is absent, empty, or a
 * previous build's output holding nothing but the files that build made; otherwise it refuses and
 * touches nothing. Everything is written to a temporary folder beside DIR and swapped in whole, so
 * a failed build leaves the previous output as it was.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { prepareBuild } from "../http/prepare.ts";
import { parseProcessArgs } from "./args.ts";
import { bundleArtifacts } from "./bundle.ts";
import { zlibCompress } from "./compress.ts";
import { loadInputs } from "./inputs.ts";
import { writeStatic } from "./static.ts";

/** The marker file a build writes at the top of its output. */
export const MARKER = ".registry-build";

const { values } = parseProcessArgs({
  usage: "npm run build -- --source FILE --base-url URL [--out DIR]",
  help: `
Builds every deploy artifact from one source, stamped with one built_at:
  DIR/node/server.mjs    the Node server (node DIR/node/server.mjs; no node_modules needed)
  DIR/fetch/index.mjs    Netlify Functions v2, Cloudflare Workers, Deno (Deploy), Bun
  DIR/lambda/index.mjs   AWS Lambda (handler index.handler)
  DIR/static/            the files and a _headers file, for any static host or CDN

Flags:
  --source FILE    the source (or REGISTRY_SOURCE); required
  --base-url URL   the public base of every URL (or BASE_URL); required: a build is a deploy
                   artifact, and http://localhost:8787 serves development only
  --out DIR        the output folder (default dist). It must be absent, empty, or a previous
                   build's output; anything else is refused and left untouched
  -h, --help       this text

Environment: REGISTRY_SOURCE, BASE_URL, SOURCE_DATE_EPOCH (built_at in whole seconds since 1970;
set it and two builds are byte-identical; unset, the clock once).

Exit codes: 0 built; 1 a bad source, setting or output folder (nothing written); 2 a bad flag.`,
  options: { source: { type: "string" }, "base-url": { type: "string" }, out: { type: "string" } },
  positionals: { min: 0, max: 0 },
});

const env = process.env;
const sourcePath = (values["source"] as string | undefined) ?? (env["REGISTRY_SOURCE"] || undefined);
const baseUrl = (values["base-url"] as string | undefined) ?? (env["BASE_URL"] || undefined);
const out = resolve((values["out"] as string | undefined) ?? "dist");

const problems: string[] = [];
if (sourcePath === undefined) problems.push("--source: required (or REGISTRY_SOURCE): the source file to build from");
if (baseUrl === undefined) {
  problems.push("--base-url: required (or BASE_URL): a build is a deploy artifact, and http://localhost:8787 serves development only");
}
problems.push(...outputProblems(out));
const inputs = sourcePath === undefined ? undefined : await loadInputs(sourcePath, env, { baseUrl });
if (inputs !== undefined && "problems" in inputs) problems.push(...inputs.problems);
if (problems.length > 0 || inputs === undefined || !("ok" in inputs)) {
  process.stderr.write(problems.map((p) => `${p}\n`).join(""));
  process.exit(1);
}

process.stderr.write(inputs.ok.warnings.map((w) => `${w}\n`).join(""));
const temporary = `${out}.tmp-${process.pid}`;
try {
  const served = await prepareBuild(inputs.ok.source, inputs.ok.config, { compress: zlibCompress });
  await mkdir(temporary, { recursive: true });
  await writeStatic(join(temporary, "static"), served);
  // The artifact names the source by its base name only: the build machine's folders stay private.
  await bundleArtifacts(served, temporary, basename(sourcePath as string));
  await writeFile(join(temporary, MARKER), `${JSON.stringify({ made_by: "npm run build (registry endpoint)", built_at: served.meta.builtAt, files: walk(temporary) }, null, 2)}\n`);
  await swapIn(temporary, out);
  const { meta } = served;
  console.log(`built ${relative(process.cwd(), out) || "."}: ${meta.vaultCount} vaults, ${meta.edgeCount} edges, built_at ${meta.builtAt}, base URL ${meta.baseUrl}, ETag ${meta.etag}`);
} catch (error: unknown) {
  await rm(temporary, { recursive: true, force: true });
  process.stderr.write(`build failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

/** Why `dir` may not receive a build, if it may not. */
function outputProblems(dir: string): string[] {
  for (let up = dirname(dir); up !== dirname(up); up = dirname(up)) {
    if (existsSync(join(up, MARKER))) return [`--out ${dir}: inside the output of an earlier build (${up}); choose a folder outside it`];
  }
  if (!existsSync(dir)) return [];
  if (!statSync(dir).isDirectory()) return [`--out ${dir}: not a folder`];
  const present = walk(dir);
  if (present.length === 0) return [];
  const marker = join(dir, MARKER);
  if (!existsSync(marker)) {
    return [`--out ${dir}: holds files this build did not make (${present.slice(0, 3).join(", ")}${present.length > 3 ? ", ..." : ""}); choose an empty or new folder`];
  }
  let made: string[] = [];
  try {
    made = (JSON.parse(readFileSync(marker, "utf8")) as { files: string[] }).files;
  } catch {
    return [`--out ${dir}: its ${MARKER} is not one this build wrote; choose an empty or new folder`];
  }
  const foreign = present.filter((file) => file !== MARKER && !made.includes(file));
  if (foreign.length > 0) return [`--out ${dir}: a previous build's output, but it also holds files the build did not make (${foreign.slice(0, 3).join(", ")}); move them away first`];
  return [];
}

/** Every file under `dir`, relative to it, with / as separator, sorted. */
function walk(dir: string): string[] {
  const files = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(d, e.name)) : [relative(dir, join(d, e.name)).split(sep).join("/")]));
  return files(dir).sort();
}

/** Replaces `to` (absent, empty, or checked to hold only a build's own files) with `from`. */
async function swapIn(from: string, to: string): Promise<void> {
  const old = `${to}.old-${process.pid}`;
  await rename(to, old).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
  await rename(from, to);
  await rm(old, { recursive: true, force: true });
}
