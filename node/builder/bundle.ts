// Each artifact is one minified ESM file with one build's answers stamped in: none embeds the source, and none
// validates, serializes, hashes or compresses at start.
import { build, type Metafile, type Plugin } from "esbuild";
import { appendFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { addressesOf } from "../../http/app.ts";
import type { Build } from "../../assembly/prepare.ts";
import type { CodeArtifact } from "./platform-limits.ts";
import type { BuildStamp, BundledStamp, EmbeddedBody } from "../../http/restore.ts";
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
  // The Lambda and Node artifacts hold their bodies as comments (see `embedBodies`): they run as written. The fetch
  // artifact keeps them as strings: Wrangler and Netlify bundle it again, and a bundler drops comments.
  if (which.has("lambda/index.mjs")) {
    const file = resolve(dir, "lambda", "index.mjs");
    bundles.lambda = await bundle(LAMBDA_ENTRY, file, embedBodies(stampBuild(served, [])), "node");
  }
  if (which.has("node/server.mjs")) {
    const file = resolve(dir, "node/server.mjs");
    bundles.node = await bundle(NODE_ENTRY, file, embedBodies({ ...withCodings(), sourceName }), "node");
  }
  return bundles;
}

/** The name of the function whose source holds the embedded bodies: a global to esbuild, which never renames one. */
const EMBEDDED = "registry$answers";

/** A stamp with its bodies embedded: its data (bodies by index), and the function declaration that holds them. */
interface Embedded {
  readonly stamp: BundledStamp;
  readonly joins: readonly (readonly string[])[];
  readonly footer: string;
}

/**
 * `stamp`'s bodies as `EmbeddedBodies` (`http/restore.ts`): each split at every `*\/` and every run of non-ASCII
 * characters, the pieces between as comments of one function appended to the bundle, the rest as joins in its data.
 * V8 reads the 330 KB of a 300-vault Lambda bundle's answers about 5 ms faster so than as template literals.
 */
export function embedBodies(stamp: BuildStamp & { readonly sourceName?: string }): Embedded {
  const bodies: Record<string, { embedded: EmbeddedBody }> = {};
  const joins: string[][] = [];
  let comments = "";
  for (const [etag, body] of Object.entries(stamp.bodies)) {
    const text = "text" in body ? body.text : body.base64;
    // Split with a capturing group: the pieces at even places, what was between them at odd places.
    const pieces = text.split(/(\*\/|[^\x00-\x7f]+)/);
    bodies[etag] = { embedded: "text" in body ? { at: joins.length } : { at: joins.length, base64: true } };
    joins.push(pieces.filter((_, i) => i % 2 === 1));
    comments += pieces.filter((_, i) => i % 2 === 0).map((piece) => `/*${piece}*/`).join("");
  }
  return { stamp: { ...stamp, bodies }, joins, footer: `function ${EMBEDDED}(){${comments}}` };
}

async function bundle(
  entry: { contents: string } | { file: string },
  outfile: string,
  stamp: BuildStamp | Embedded,
  platform: "node" | "neutral",
): Promise<Metafile> {
  const embedded = "footer" in stamp ? stamp : undefined;
  const stampPlugin: Plugin = {
    name: "stamp",
    setup(b) {
      b.onResolve(
        { filter: /^registry:stamp$/ },
        () => ({ path: embedded === undefined ? "stamp.json" : "stamp.js", namespace: "registry-stamp" }),
      );
      b.onResolve({ filter: /^registry:stamp-data$/ }, () => ({ path: "stamp.json", namespace: "registry-stamp" }));
      b.onLoad({ filter: /^stamp\.json$/, namespace: "registry-stamp" }, () => ({
        contents: JSON.stringify(embedded === undefined ? stamp : { stamp: embedded.stamp, joins: embedded.joins }),
        loader: "json",
      }));
      // The data, and the function that holds the bodies, which the footer declares.
      b.onLoad({ filter: /^stamp\.js$/, namespace: "registry-stamp" }, () => ({
        contents: `import data from "registry:stamp-data";
export default { ...data.stamp, embedded: { source: ${EMBEDDED}, length: ${
          embedded?.footer.length ?? 0
        }, joins: data.joins } };`,
        loader: "js",
      }));
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
    ...(embedded === undefined ? {} : { footer: { js: embedded.footer } }),
  });
  if (embedded === undefined) return result.metafile;
  // The footer is counted with the stamp it belongs to, as esbuild counts the data (the benchmarks subtract both).
  const output = Object.values(result.metafile.outputs)[0];
  if (output !== undefined) {
    output.inputs["registry-stamp:stamp.json, its bodies as comments"] = {
      bytesInOutput: embedded.footer.length + 1,
    };
  }
  return result.metafile;
}
