/** The size of a folder as `du --apparent-size` counts it, for the install-size checks and the bench. */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** The bytes of the files under `dir`, each file once (esbuild hard-links its binary), symbolic links not followed. */
export function bytesUnder(dir: string): number {
  const sizes = new Map<number, number>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const stat = statSync(join(e.parentPath, e.name));
    sizes.set(stat.ino, stat.size);
  }
  return [...sizes.values()].reduce((sum, size) => sum + size, 0);
}
