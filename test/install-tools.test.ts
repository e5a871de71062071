/**
 * The postinstall (`deploy/install-tools.mjs`) says exactly why it skips the deploy tools, run as
 * npm runs it (plain `node`, no tsx) under the machine's Node 20, on copies of `deploy/` laid out
 * as each kind of install leaves the project. It never installs anything here: each case skips,
 * but the one in CI, where it builds a stand-in aws-lambda-ric with that package's own scripts.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { cleanEnv, run } from "./process.ts";

const ROOT = resolve(".");
const work = mkdtempSync(join(tmpdir(), "registry-install-tools-"));
const PATH = (process.env["PATH"] ?? "").split(delimiter).filter((dir) => !dir.includes("node_modules")).join(
  delimiter,
);
test.after(() => rmSync(work, { recursive: true, force: true }));

/** A project folder holding the postinstall, the lockfile, deploy/tools/ (if `tools`) and empty `folders`. */
function project(name: string, options: { tools: boolean; folders: string[] }): string {
  const dir = join(work, name);
  for (
    const file of [
      "deploy/install-tools.mjs",
      "deploy/node22.mjs",
      "deploy/ric-build.mjs",
      "package-lock.json",
      ...(options.tools ? ["deploy/tools/package.json", "deploy/tools/package-lock.json"] : []),
    ]
  ) {
    cpSync(join(ROOT, file), join(dir, file));
  }
  for (const folder of options.folders) mkdirSync(join(dir, folder), { recursive: true });
  return dir;
}

async function postinstall(dir: string): Promise<string> {
  const done = await run("node", [join(dir, "deploy", "install-tools.mjs")], {
    cwd: dir,
    env: cleanEnv({ PATH }),
    timeoutMs: 30_000,
  });
  assert.is(done.code, 0, done.stderr);
  assert.not.ok(existsSync(join(dir, "deploy", "tools", "node_modules")), "nothing installed");
  return done.stdout.toString();
}

test("node deploy/ric-build.mjs: --help says what it does (exit 0); a bad flag gets one line and exit 2", async () => {
  const help = await run("node", ["deploy/ric-build.mjs", "--help"]);
  assert.is(help.code, 0);
  assert.match(help.stdout.toString(), /^usage: node deploy\/ric-build\.mjs --stage DIR\n[\s\S]*Exit codes:/);
  const bad = await run("node", ["deploy/ric-build.mjs", "--stag", "x"]);
  assert.is(bad.code, 2);
  assert.is(bad.stderr, "usage: node deploy/ric-build.mjs --stage DIR (--help for more)\n");
  assert.is(bad.stdout.toString(), "");
});

test("the machine's node is Node 20, the postinstall's hardest case", async () => {
  const version = await run("node", ["--version"], { env: cleanEnv({ PATH }) });
  assert.match(version.stdout.toString(), /^v20\./);
});

test("not a clone (no deploy/tools): says the package needs no deploy tools", async () => {
  const out = await postinstall(project("package", { tools: false, folders: [] }));
  assert.is(
    out,
    "deploy/tools: not installed: not a clone of the repository (the installed package needs no deploy tools)\n",
  );
});

test("--omit=dev: says the devDependencies were omitted, not that the platform has no Node 22", async () => {
  const out = await postinstall(project("operator", { tools: true, folders: ["node_modules/hono"] }));
  assert.is(
    out,
    "deploy/tools: not installed: devDependencies omitted (an operator's install, --omit=dev): the deploy tools serve the recipe tests alone\n",
  );
});

test("--omit=optional on a platform node22 fits: says the optional Node 22 was omitted", async () => {
  const out = await postinstall(project("no-optional", { tools: true, folders: ["node_modules/uvu"] }));
  assert.match(
    out,
    /^deploy\/tools: not installed: optional dependencies omitted \(--omit=optional\): no node_modules\/node22\/bin\/node, and this Node is v20\.[0-9.]+; the recipe tests need Node 22\n$/,
  );
});

test("in CI, deploy/tools installed: builds aws-lambda-ric's client with its own scripts, once; outside CI, not", async () => {
  const dir = project("ci", { tools: true, folders: ["node_modules/uvu", "node_modules/node22/bin"] });
  writeFileSync(join(dir, "node_modules", "node22", "bin", "node"), "");
  // deploy/tools as npm ci leaves it: npm's record of the install is the lockfile's packages.
  const tools = join(dir, "deploy", "tools", "node_modules");
  mkdirSync(tools, { recursive: true });
  cpSync(join(dir, "deploy", "tools", "package-lock.json"), join(tools, ".package-lock.json"));
  // A stand-in package: its scripts record that they ran; the second leaves the addon.
  const ric = join(tools, "aws-lambda-ric");
  const log = join(work, "ric.log");
  mkdirSync(join(ric, "scripts"), { recursive: true });
  writeFileSync(join(ric, "package.json"), "{}");
  writeFileSync(join(ric, "scripts", "preinstall.sh"), `echo pre >> ${log}\n`);
  writeFileSync(
    join(ric, "scripts", "postinstall.sh"),
    `echo post >> ${log}\ntouch ${join(ric, "rapid-client.node")}\n`,
  );
  const install = (ci: string) =>
    run("node", [join(dir, "deploy", "install-tools.mjs")], {
      cwd: dir,
      env: cleanEnv({ PATH, CI: ci }),
      timeoutMs: 30_000,
    });

  const outside = await install("");
  assert.is(outside.code, 0, outside.stderr);
  assert.is(outside.stdout.toString(), "deploy/tools: already installed\n");
  assert.not.ok(existsSync(log), "outside CI, no build");

  const first = await install("true");
  assert.is(first.code, 0, first.stderr);
  assert.match(first.stdout.toString(), /CI: building aws-lambda-ric's native client/);
  assert.is(readFileSync(log, "utf8"), "pre\npost\n", "preinstall.sh, then postinstall.sh");

  const again = await install("true");
  assert.is(
    again.stdout.toString(),
    "deploy/tools: already installed\ndeploy/tools: aws-lambda-ric's native client already built\n",
  );
  assert.is(readFileSync(log, "utf8"), "pre\npost\n", "built once");
});

test.run();
