// Packages stay imports: the package's `dependencies` bring them, pinned where they shape the artifacts' bytes (hono,
// esbuild, json-schema-to-typescript and its prettier). The TypeScript `build` bundles ships too: the same bytes.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { restoreManifest, swapInPackedManifest } from "./manifest.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const LIB = join(ROOT, "lib");
const TSC = join(ROOT, "node_modules", ".bin", "tsc");

// The light install (npm ci --omit=dev --omit=optional) has no tsc, which writes the declarations: say so first.
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
