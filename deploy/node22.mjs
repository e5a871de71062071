// Where the deploy tools' Node 22 is. Plain JavaScript: the postinstall (install-tools.mjs) runs it
// under the Node that runs npm, with no devDependency (no tsx) to load TypeScript.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The `node22` package's binary, where `npm ci` installed it. */
export const NODE22_PACKAGE = join(ROOT, "node_modules", "node22", "bin", "node");

/** The Node 22 (or newer) to run the deploy tools with, if this platform has one. */
export function node22() {
  if (existsSync(NODE22_PACKAGE)) return NODE22_PACKAGE;
  return Number(process.versions.node.split(".")[0]) >= 22 ? process.execPath : undefined;
}
