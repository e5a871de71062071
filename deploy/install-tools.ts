/**
 * `postinstall`: installs `deploy/tools/` (netlify-cli and wrangler, each platform's own deploy
 * tool, which the recipe tests run) from its own lockfile, under the Node 22 that `npm ci` brings
 * (`node22`, a registry package shipping the binary). Both tools refuse older Node, and npm under
 * Node 20 would warn about every one of their packages. Skipped when that folder is installed and
 * newer than its lockfile; on a platform with no Node 22 package, says so in one line.
 */
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { node22 } from "./node22.ts";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const TOOLS = join(ROOT, "deploy", "tools");

const installed = join(TOOLS, "node_modules", ".package-lock.json");
const lock = join(TOOLS, "package-lock.json");
const node = node22();
if (node === undefined) {
  console.log("deploy/tools: not installed: no Node 22 for this platform (the recipe tests need it)");
} else if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) {
  console.log("deploy/tools: already installed");
} else {
  // A clean environment: the npm_* variables of this lifecycle would steer the inner npm.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("npm_")));
  env["PATH"] = `${dirname(node)}:${process.env["PATH"] ?? ""}`;
  const done = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: TOOLS, env, stdio: "inherit" });
  if (done.status !== 0) {
    console.error(`deploy/tools: npm ci failed (exit ${done.status ?? done.signal})`);
    process.exit(1);
  }
}
