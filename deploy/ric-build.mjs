// aws-lambda-ric's native client, built by the package's own install scripts, which `npm ci`
// skips (deploy/tools/package.json: allowScripts false) because they take minutes. Plain
// JavaScript: the postinstall (install-tools.mjs) runs it with no devDependency (no tsx).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The installed package, in deploy/tools/. */
export const RIC_PACKAGE = join(
  resolve(dirname(fileURLToPath(import.meta.url))),
  "tools",
  "node_modules",
  "aws-lambda-ric",
);

/** The file the build leaves: the client is built exactly when it is there. */
export const RIC_ADDON = join(RIC_PACKAGE, "rapid-client.node");

/** The programs the package's scripts call, each with the Debian package that brings it. */
const TOOLS = [["cmake", "cmake"], ["make", "make"], ["g++", "g++"], ["python3", "python3"], ["xz", "xz-utils"]];

/**
 * Builds the client with the package's preinstall.sh (curl and aws-lambda-cpp from its archives;
 * no autotools: the archive's configure is as new as its configure.ac) and postinstall.sh (the
 * addon, with node-gyp), their output on this process's. Returns why it failed, or undefined.
 */
export function buildRic() {
  if (!existsSync(join(RIC_PACKAGE, "package.json"))) {
    return "deploy/tools/node_modules/aws-lambda-ric is not installed (run npm ci first)";
  }
  const missing = TOOLS.filter(([program]) => spawnSync("sh", ["-c", `command -v ${program}`]).status !== 0);
  if (missing.length > 0) {
    const programs = missing.map(([program]) => program).join(", ");
    return `missing ${programs} (on Debian: apt-get install ${missing.map(([, deb]) => deb).join(" ")})`;
  }
  // A clean environment: the npm_* variables of a lifecycle would steer postinstall.sh's npm.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("npm_")));
  for (const script of ["preinstall.sh", "postinstall.sh"]) {
    const done = spawnSync("sh", [join(RIC_PACKAGE, "scripts", script)], { env, stdio: "inherit" });
    if (done.status !== 0) return `${script} failed (exit ${done.status ?? done.signal}); see its output above`;
  }
  return undefined;
}
