/**
 * The package.json the tarball ships, which is not the repository's: a consumer installs what the
 * shipped JavaScript needs and nothing else, so the packed manifest keeps no devDependencies, no
 * optionalDependencies (the repository's Node 22 and 24 binaries, hundreds of megabytes), no scripts
 * (the repository's postinstall installs its deploy tools), and no tsx: a clone runs the
 * TypeScript through it, the package ships JavaScript. `prepack` swaps it in for `npm pack` to
 * read; `postpack` puts the repository's back, and so does the next `prepack` if a pack failed
 * between them.
 */
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

/** Where the repository's package.json waits while the packed one stands in for it. */
const SAVED = ".package.json.repository";

/** The packed manifest of `manifest` (the repository's package.json). */
export function packedManifest(manifest: Record<string, unknown>): Record<string, unknown> {
  const packed = Object.fromEntries(
    KEPT.filter((key) => manifest[key] !== undefined).map((key) => [key, manifest[key]]),
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
