/**
 * The Lambda bundle: one minified ESM file exporting `handler`, with one build's answers (bytes,
 * ETags, headers) stamped in. It embeds no source and does no validating, serializing or hashing
 * at start, so every instance serves exactly the build's bytes and a cold start costs little.
 */
import { build, type Metafile } from "esbuild";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Build } from "../http/app.ts";
import { stampResource } from "../http/responses.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const ENTRY = `
import { createApp } from "./http/app.ts";
import { lambdaHandlerFor } from "./http/lambda.ts";
import { restoreResource } from "./http/responses.ts";
import stamp from "registry:stamp";
export const handler = lambdaHandlerFor(createApp({ document: restoreResource(stamp.document), schema: restoreResource(stamp.schema) }));
`;

/** Bundles the Lambda entry over `served` into `outfile`; returns esbuild's metafile (sizes per input). */
export async function bundleLambda(served: Build, outfile: string): Promise<Metafile> {
  const stamp = JSON.stringify({ document: stampResource(served.document), schema: stampResource(served.schema) });
  const result = await build({
    stdin: { contents: ENTRY, resolveDir: ROOT, loader: "ts", sourcefile: "lambda-entry.ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outfile,
    legalComments: "none",
    metafile: true,
    logLevel: "error",
    plugins: [
      {
        name: "stamp",
        setup(b) {
          b.onResolve({ filter: /^registry:stamp$/ }, () => ({ path: "stamp.json", namespace: "registry-stamp" }));
          b.onLoad({ filter: /.*/, namespace: "registry-stamp" }, () => ({ contents: stamp, loader: "json" }));
        },
      },
    ],
  });
  return result.metafile;
}
