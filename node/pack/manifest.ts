// A consumer installs what the shipped JavaScript needs and nothing else: no devDependencies, no optionalDependencies
// (the repository's Node binaries, hundreds of megabytes), no scripts (the repository's postinstall installs its deploy
// tools), no tsx. The repository's `bin` and `exports` name the TypeScript sources, the packed ones `lib/`'s builds.
// If a pack fails between `prepack` and `postpack`, the next `prepack` puts the repository's back too.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The fields of the repository's package.json that the packed one keeps, in this order. */
const KEPT = [
  "name",
  "version",
  "description",
  "type",
  "license",
  "engines",
  "bin",
  "exports",
  "files",
  "dependencies",
] as const;

/** Dependencies of a clone alone. */
const CLONE_ONLY = ["tsx"];

/** The packed `bin`: the command `pack.ts` compiles. */
const PACKED_BIN = "lib/bin/registry-endpoint.mjs";

/** The compiled form of an export's TypeScript source `./X.ts`: `./lib/X.js`, typed by `./lib/X.d.ts`. */
function packedExport(target: unknown): unknown {
  if (typeof target !== "object" || target === null) return target;
  const source = (target as { default?: unknown }).default;
  if (typeof source !== "string" || !source.endsWith(".ts")) return target;
  const compiled = `./lib/${source.slice(2, -3)}`;
  return { types: `${compiled}.d.ts`, default: `${compiled}.js` };
}

/** Where the repository's package.json waits while the packed one stands in for it. */
const SAVED = ".package.json.repository";

function packedManifest(manifest: Record<string, unknown>): Record<string, unknown> {
  const packed = Object.fromEntries(
    KEPT.filter((key) => manifest[key] !== undefined).map((key) => [key, manifest[key]]),
  );
  packed["bin"] = Object.fromEntries(Object.keys(manifest["bin"] as object).map((name) => [name, PACKED_BIN]));
  packed["exports"] = Object.fromEntries(
    Object.entries(manifest["exports"] as Record<string, unknown>).map((
      [path, target],
    ) => [path, packedExport(target)]),
  );
  packed["dependencies"] = Object.fromEntries(
    Object.entries(manifest["dependencies"] as Record<string, string>).filter(([name]) => !CLONE_ONLY.includes(name)),
  );
  return packed;
}

/** Puts the repository's package.json back if a pack left it aside. */
export function restoreManifest(root: string): void {
  if (existsSync(join(root, SAVED))) renameSync(join(root, SAVED), join(root, "package.json"));
}

/** Sets the repository's package.json aside and writes the packed one in its place. */
export function swapInPackedManifest(root: string): void {
  restoreManifest(root);
  const text = readFileSync(join(root, "package.json"), "utf8");
  writeFileSync(join(root, SAVED), text);
  writeFileSync(
    join(root, "package.json"),
    `${JSON.stringify(packedManifest(JSON.parse(text) as Record<string, unknown>), null, 2)}\n`,
  );
}
