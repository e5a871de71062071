// `postinstall`: installs `deploy/tools/` (netlify-cli and wrangler, each platform's own deploy
// tool, which the recipe tests run) from its own lockfile, under the Node 22 that `npm ci` brings
// (`node22`, an optional dependency shipping the binary). Both tools refuse older Node, and npm
// under Node 20 would warn about every one of their packages. Plain JavaScript: an operator's
// install (`npm ci --omit=dev --omit=optional`) has no tsx. When it skips, it says exactly why;
// when deploy/tools is already installed as its lockfile pins, it says so and does nothing. In CI
// (`CI` set) it then builds aws-lambda-ric's native client (ric-build.mjs, under a minute to 5 minutes), so
// that `npm ci && npm test` runs the Lambda package under the real client instead of skipping it:
// its first half (curl and aws-lambda-cpp) beside deploy/tools' npm ci, when that runs. Under
// .ci/run (RIC_STAGE set), which starts that half before the root npm ci, it leaves the client
// to .ci/run.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { node22, NODE22_PACKAGE } from "./node22.mjs";
import { buildRic, cleanEnv, RIC_ADDON } from "./ric-build.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const TOOLS = join(ROOT, "deploy", "tools");

/** Why the deploy tools are not installed, or undefined when they are to be. */
function skipReason() {
  if (!existsSync(join(TOOLS, "package.json"))) {
    return "not a clone of the repository (the installed package needs no deploy tools)";
  }
  if (!existsSync(join(ROOT, "node_modules", "uvu"))) {
    return "devDependencies omitted (an operator's install, --omit=dev): the deploy tools serve the recipe tests alone";
  }
  if (node22() !== undefined) return undefined;
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
  const locked = lock.packages?.["node_modules/node22"] ?? {};
  const fits = (locked.os ?? [process.platform]).includes(process.platform) &&
    (locked.cpu ?? [process.arch]).includes(process.arch);
  return fits
    ? `optional dependencies omitted (--omit=optional): no ${
      NODE22_PACKAGE.slice(ROOT.length + 1)
    }, and this Node is ${process.version}; the recipe tests need Node 22`
    : `no Node 22 package for ${process.platform}-${process.arch}, and this Node is ${process.version}; the recipe tests need Node 22`;
}

/**
 * Whether deploy/tools/node_modules holds what the lockfile pins, read from npm's own record of
 * the install (node_modules/.package-lock.json): every package it requires, at its version. By
 * content, not by time: a fresh checkout of the same lockfile is newer than the install.
 */
function installedAsLocked() {
  const record = join(TOOLS, "node_modules", ".package-lock.json");
  if (!existsSync(record)) return false;
  const installed = JSON.parse(readFileSync(record, "utf8")).packages ?? {};
  const locked = JSON.parse(readFileSync(join(TOOLS, "package-lock.json"), "utf8")).packages ?? {};
  return Object.entries(locked).every(([path, entry]) =>
    path === "" || (installed[path] === undefined ? entry.optional === true : installed[path].version === entry.version)
  );
}

const skipped = skipReason();
/** In CI, unless .ci/run builds it: the client is to be built, and `staging` builds its first half. */
const building = skipped === undefined && inCi() && !existsSync(RIC_ADDON) && (process.env["RIC_STAGE"] ?? "") === "";
const started = Date.now();
/** The first half of the client's build, started beside deploy/tools' npm ci: its folder, log and exit. */
let staging;
if (skipped !== undefined) {
  console.log(`deploy/tools: not installed: ${skipped}`);
} else if (installedAsLocked()) {
  console.log("deploy/tools: already installed");
} else {
  if (building) {
    const dir = mkdtempSync(join(tmpdir(), "aws-lambda-ric-"));
    const log = openSync(join(dir, "build.log"), "w");
    const child = spawn(process.execPath, [join(ROOT, "deploy", "ric-build.mjs"), "--stage", dir], {
      stdio: ["ignore", log, log],
    });
    closeSync(log);
    const exited = new Promise((done) => child.on("close", (code, signal) => done(code ?? signal)));
    staging = { dir, exited };
  }
  const env = cleanEnv();
  env["PATH"] = `${dirname(node22())}:${process.env["PATH"] ?? ""}`;
  const done = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: TOOLS, env, stdio: "inherit" });
  if (done.status !== 0) {
    console.error(`deploy/tools: npm ci failed (exit ${done.status ?? done.signal})`);
    if (staging !== undefined) await staging.exited;
    process.exit(1);
  }
}
if (skipped === undefined && inCi()) {
  if (existsSync(RIC_ADDON)) {
    console.log("deploy/tools: aws-lambda-ric's native client already built");
  } else if (!building) {
    console.log("deploy/tools: CI: aws-lambda-ric's native client is left to .ci/run, which builds it beside npm ci");
  } else {
    console.log("deploy/tools: CI: building aws-lambda-ric's native client (under a minute to 5 minutes)");
    let failed;
    if (staging !== undefined) {
      const code = await staging.exited;
      process.stdout.write(readFileSync(join(staging.dir, "build.log")));
      failed = code === 0 ? buildRic(staging.dir) : `its first half failed (exit ${code}); see its output above`;
      rmSync(staging.dir, { recursive: true, force: true });
    } else {
      failed = buildRic();
    }
    if (failed !== undefined) {
      console.error(`deploy/tools: aws-lambda-ric: ${failed}`);
      process.exit(1);
    }
    console.log(`deploy/tools: aws-lambda-ric's native client built in ${Math.round((Date.now() - started) / 1000)} s`);
  }
}

/** Whether this install runs in CI: `CI` set, as GitHub Actions and most CI services set it. */
function inCi() {
  const ci = process.env["CI"] ?? "";
  return ci !== "" && ci !== "false";
}
