/** Where the deploy tools' Node 22 is: the `node22` package's binary, or this Node if it is 22 or newer. */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The Node 22 (or newer) to run the deploy tools with, if this platform has one. */
export function node22(): string | undefined {
  const shipped = join(ROOT, "node_modules", "node22", "bin", "node");
  if (existsSync(shipped)) return shipped;
  return Number(process.versions.node.split(".")[0]) >= 22 ? process.execPath : undefined;
}
