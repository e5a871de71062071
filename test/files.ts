/** File trees as the tests and the bench read them. */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every file under `dir`, relative to it, sorted. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

/** The bytes of the files under `dir`, each file once (esbuild hard-links its binary), symbolic links not followed: `du --apparent-size`. */
export function bytesUnder(dir: string): number {
  const sizes = new Map<number, number>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const stat = statSync(join(e.parentPath, e.name));
    sizes.set(stat.ino, stat.size);
  }
  return [...sizes.values()].reduce((sum, size) => sum + size, 0);
}

/**
 * Copies the repository at `root` into `to` as a fresh clone of its working tree holds it: every
 * file git tracks or would track (ignored files, such as node_modules, left out).
 */
export function copyRepository(root: string, to: string): void {
  const files = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  }).stdout.split("\0").filter((f) => f !== "" && existsSync(join(root, f)) && !f.split("/").includes("node_modules"));
  for (const file of files) cpSync(join(root, file), join(to, file));
}
