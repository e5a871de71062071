/**
 * `prepack`: compiles what the package ships into `lib/`, so that it runs on plain Node with no
 * tsx: the `registry-endpoint` command (`lib/bin/`, split per subcommand), the library entries
 * (`lib/registry.js`, `lib/handler.js`) and their declarations (tsc). Packages stay imports: the
 * package's `dependencies` bring them, pinned to the lockfile's versions where they shape the
 * artifacts' bytes (hono, esbuild, json-schema-to-typescript and its prettier). The packed
 * package.json is `manifest.ts`'s. The TypeScript of `contract/`, `feed/`, `http/`, `assembly/`, `registry.ts` and
 * the Node server ships too, as the input `build` bundles into the deploy artifacts, so that an
 * installed build writes the repository's bytes.
 */
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { restoreManifest, swapInPackedManifest } from "./manifest.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const LIB = join(ROOT, "lib");
const TSC = join(ROOT, "node_modules", ".bin", "tsc");

// TypeScript writes the declarations and is a devDependency: the light install
// (npm ci --omit=dev --omit=optional) has esbuild and tsx but no tsc. Say so before touching anything.
if (!existsSync(TSC)) {
  process.stderr.write("prepack: packing needs the full install (npm ci): tsc, a devDependency, is not installed\n");
  process.exit(1);
}

const common = {
  bundle: true,
  format: "esm",
  packages: "external",
  logLevel: "warning",
  legalComments: "none",
} as const;

restoreManifest(ROOT);
rmSync(LIB, { recursive: true, force: true });
// The command sits two folders down, as its sources do, so that their paths to the package root hold.
await build({
  ...common,
  entryPoints: { "registry-endpoint": join(ROOT, "node", "bin", "registry-endpoint.ts") },
  outdir: join(LIB, "bin"),
  outExtension: { ".js": ".mjs" },
  splitting: true,
  chunkNames: "[name]-[hash]",
  platform: "node",
  target: "node22",
  banner: { js: "#!/usr/bin/env node" },
});
await build({
  ...common,
  entryPoints: [join(ROOT, "registry.ts"), join(ROOT, "handler.ts"), join(ROOT, "client", "client.ts")],
  outdir: LIB,
  platform: "neutral",
  target: "es2022",
});
const tsc = spawnSync(TSC, ["-p", join(ROOT, "node", "pack", "tsconfig.json")], { stdio: "inherit" });
if (tsc.status !== 0) {
  process.stderr.write(`prepack: tsc failed (exit ${tsc.status ?? tsc.signal})\n`);
  process.exit(1);
}
// Last, so that a failure above leaves the repository's package.json in place; postpack restores it.
swapInPackedManifest(ROOT);
