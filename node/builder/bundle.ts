// Each artifact is one minified ESM file with one build's answers stamped in: none embeds the source, and none
// validates, serializes, hashes or compresses at start.
import { build, type Metafile, type Plugin } from "esbuild";
import { appendFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { addressesOf } from "../../http/app.ts";
import type { Build } from "../../assembly/prepare.ts";
import type { CodeArtifact } from "./platform-limits.ts";
import type { BuildStamp } from "../../http/restore.ts";
import { stampBuild } from "./stamp.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

// The Hono app of http/app.ts, over the answers stamped at build.
const FETCH_ENTRY = {
  contents: `
import { createApp } from "./http/app.ts";
import { restoreBuild } from "./http/restore.ts";
import stamp from "registry:stamp";
export default createApp(restoreBuild(stamp));
`,
};

// Two entry points: handler (buffered, every event kind) and streamHandler (a Function URL in RESPONSE_STREAM mode).
const LAMBDA_ENTRY = {
  contents: `
import { lambdaHandlerFor, lambdaStreamHandlerFor } from "./http/lambda.ts";
import { restoreBuild } from "./http/restore.ts";
import stamp from "registry:stamp";
const build = restoreBuild(stamp);
export const handler = lambdaHandlerFor(build);
export const streamHandler = lambdaStreamHandlerFor(build);
`,
};
const NODE_ENTRY = { file: resolve(ROOT, "node", "bin", "artifact-server.ts") };

/** Sizes per input of each artifact (esbuild's metafiles), for the benchmarks. */
export interface Bundles {
  readonly fetch: Metafile;
  readonly lambda: Metafile;
  readonly node: Metafile;
}

/** Writes the three code artifacts of `served` under `dir`. `sourceName` is named on the Node server's start line. */
export async function bundleArtifacts(served: Build, dir: string, sourceName: string): Promise<Bundles> {
  const all = new Set(["fetch/index.mjs", "lambda/index.mjs", "node/server.mjs"] as const);
  return (await bundleSome(served, dir, sourceName, all)) as Bundles;
}

/** Writes the code artifacts of `served` that `which` names (see `platform-limits.ts`), under `dir`. */
export async function bundleSome(
  served: Build,
  dir: string,
  sourceName: string,
  which: ReadonlySet<CodeArtifact>,
): Promise<Partial<Bundles>> {
  const bundles: { -readonly [K in keyof Bundles]?: Metafile } = {};
  // Made only for an artifact that embeds it: a registry past every artifact's limit skips the copy.
  let stamped: BuildStamp | undefined;
  const withCodings = () => (stamped ??= stampBuild(served, ["br", "gzip"]));
  if (which.has("fetch/index.mjs")) {
    const fetchFile = resolve(dir, "fetch", "index.mjs");
    bundles.fetch = await bundle(FETCH_ENTRY, fetchFile, withCodings(), "neutral");
    // Netlify reads config by static analysis, only literal values in this exact form: every address the app routes.
    await appendFile(fetchFile, `export const config = { path: ${JSON.stringify(addressesOf(served))} };\n`);
  }
  if (which.has("lambda/index.mjs")) {
    bundles.lambda = await bundle(LAMBDA_ENTRY, resolve(dir, "lambda", "index.mjs"), stampBuild(served, []), "node");
  }
  if (which.has("node/server.mjs")) {
    bundles.node = await bundle(NODE_ENTRY, resolve(dir, "node/server.mjs"), { ...withCodings(), sourceName }, "node");
  }
  return bundles;
}

async function bundle(
  entry: { contents: string } | { file: string },
  outfile: string,
  stamp: unknown,
  platform: "node" | "neutral",
): Promise<Metafile> {
  const stampPlugin: Plugin = {
    name: "stamp",
    setup(b) {
      b.onResolve({ filter: /^registry:stamp$/ }, () => ({ path: "stamp.json", namespace: "registry-stamp" }));
      b.onLoad(
        { filter: /.*/, namespace: "registry-stamp" },
        () => ({ contents: JSON.stringify(stamp), loader: "json" }),
      );
    },
  };
  const result = await build({
    ...("file" in entry
      ? { entryPoints: [entry.file] }
      : { stdin: { contents: entry.contents, resolveDir: ROOT, loader: "ts", sourcefile: "entry.ts" } }),
    bundle: true,
    minify: true,
    format: "esm",
    platform,
    target: platform === "node" ? "node22" : "es2022",
    mainFields: ["module", "main"],
    outfile,
    legalComments: "none",
    metafile: true,
    logLevel: "error",
    plugins: [stampPlugin],
  });
  return result.metafile;
}
