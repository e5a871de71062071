// aws-lambda-ric's native client, built by the package's own install scripts, which `npm ci`
// skips (deploy/tools/package.json: allowScripts false) because they take minutes. Plain
// JavaScript: the postinstall (install-tools.mjs) runs it with no devDependency (no tsx).
//
// The scripts' first half (preinstall.sh: curl and aws-lambda-cpp, most of the time, curl's
// configure single-threaded) needs nothing npm ci installs but the package itself, so it can run
// beside npm ci on the package's locked tarball (`node deploy/ric-build.mjs --stage DIR`, which
// .ci/run and install-tools.mjs start first); buildRic then copies what it built into the
// installed package and runs the second half (postinstall.sh: the addon, with node-gyp) there.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const TOOLS_DIR = join(resolve(dirname(fileURLToPath(import.meta.url))), "tools");

/** The installed package, in deploy/tools/. */
export const RIC_PACKAGE = join(TOOLS_DIR, "node_modules", "aws-lambda-ric");

/** The file the build leaves: the client is built exactly when it is there. */
export const RIC_ADDON = join(RIC_PACKAGE, "rapid-client.node");

/** The programs the package's scripts call, each with the Debian package that brings it. */
const TOOLS = [["cmake", "cmake"], ["make", "make"], ["g++", "g++"], ["python3", "python3"], ["xz", "xz-utils"]];

/** What preinstall.sh leaves in a package folder: curl's and aws-lambda-cpp's libraries and headers. */
const ARTIFACTS = join("deps", "artifacts");

/** A clean environment: the npm_* variables of a lifecycle would steer an npm run inside it. */
export const cleanEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("npm_")));

/** Why the build tools are not all there, or undefined. */
function missingTools() {
  const missing = TOOLS.filter(([program]) => spawnSync("sh", ["-c", `command -v ${program}`]).status !== 0);
  if (missing.length === 0) return undefined;
  const programs = missing.map(([program]) => program).join(", ");
  return `missing ${programs} (on Debian: apt-get install ${missing.map(([, deb]) => deb).join(" ")})`;
}

/** Runs one of the package's scripts in `pkg`, its output on this process's; why it failed, or undefined. */
function script(pkg, name) {
  const done = spawnSync("sh", [join(pkg, "scripts", name)], { env: cleanEnv(), stdio: "inherit" });
  return done.status === 0 ? undefined : `${name} failed (exit ${done.status ?? done.signal}); see its output above`;
}

/**
 * The first half of the build in `dir`, before or beside npm ci: the tarball deploy/tools's
 * lockfile pins (npm's cache first, checked against the lockfile's integrity), unpacked to
 * `dir/package`, and its preinstall.sh run there. Returns why it failed, or undefined.
 */
export function stageRic(dir) {
  const missing = missingTools();
  if (missing !== undefined) return missing;
  const lock = JSON.parse(readFileSync(join(TOOLS_DIR, "package-lock.json"), "utf8"));
  const locked = lock.packages?.["node_modules/aws-lambda-ric"];
  if (locked?.version === undefined || locked.integrity === undefined) {
    return "deploy/tools/package-lock.json pins no aws-lambda-ric";
  }
  const packed = spawnSync(
    "npm",
    ["pack", `aws-lambda-ric@${locked.version}`, "--pack-destination", dir, "--prefer-offline", "--silent"],
    { env: cleanEnv(), encoding: "utf8" },
  );
  const tarball = join(dir, `aws-lambda-ric-${locked.version}.tgz`);
  if (packed.status !== 0 || !existsSync(tarball)) {
    return `npm pack aws-lambda-ric@${locked.version} failed (exit ${
      packed.status ?? packed.signal
    }): ${packed.stderr}`;
  }
  const [algorithm, digest] = locked.integrity.split("-", 2);
  if (createHash(algorithm).update(readFileSync(tarball)).digest("base64") !== digest) {
    return `aws-lambda-ric-${locked.version}.tgz is not the tarball deploy/tools/package-lock.json pins`;
  }
  const unpacked = spawnSync("tar", ["-xzf", tarball, "-C", dir], { stdio: "inherit" });
  if (unpacked.status !== 0) return `tar could not unpack aws-lambda-ric-${locked.version}.tgz`;
  return script(join(dir, "package"), "preinstall.sh");
}

/**
 * Builds the client with the package's preinstall.sh (curl and aws-lambda-cpp from its archives;
 * no autotools: the archive's configure is as new as its configure.ac) and postinstall.sh (the
 * addon, with node-gyp), their output on this process's. With `staged`, a folder stageRic built,
 * preinstall.sh's output is copied from there instead of built again. Returns why it failed, or
 * undefined.
 */
export function buildRic(staged) {
  if (!existsSync(join(RIC_PACKAGE, "package.json"))) {
    return "deploy/tools/node_modules/aws-lambda-ric is not installed (run npm ci first)";
  }
  const missing = missingTools();
  if (missing !== undefined) return missing;
  if (staged === undefined) {
    const failed = script(RIC_PACKAGE, "preinstall.sh");
    if (failed !== undefined) return failed;
  } else {
    const built = join(staged, "package", ARTIFACTS);
    if (!existsSync(built) || readdirSync(built).length === 0) return `${staged} holds no staged build`;
    cpSync(built, join(RIC_PACKAGE, ARTIFACTS), { recursive: true });
  }
  return script(RIC_PACKAGE, "postinstall.sh");
}

// `node deploy/ric-build.mjs --stage DIR`: stageRic into DIR, exit 0 or 1.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [flag, dir, ...rest] = process.argv.slice(2);
  if (flag === "--help" || flag === "-h") {
    console.log(`usage: node deploy/ric-build.mjs --stage DIR

Builds the first half of aws-lambda-ric's native client (curl and aws-lambda-cpp, the package's
preinstall.sh) in DIR, from the tarball deploy/tools/package-lock.json pins, checked against its
integrity. .ci/run runs it beside npm ci; npm run lambda-ric (RIC_STAGE=DIR) then builds the addon.

Exit codes: 0 built; 1 a build tool is missing, the tarball is not the locked one, or a step failed;
2 a bad flag.`);
    process.exit(0);
  }
  if (flag !== "--stage" || dir === undefined || rest.length > 0) {
    console.error("usage: node deploy/ric-build.mjs --stage DIR (--help for more)");
    process.exit(2);
  }
  const failed = stageRic(resolve(dir));
  if (failed !== undefined) {
    console.error(`aws-lambda-ric (staged): ${failed}`);
    process.exit(1);
  }
}
