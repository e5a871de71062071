/**
 * `registry-endpoint init` in folders that fight back: a name it would write that is a link to
 * nothing, a `.gitignore` that is one or is a folder. Each is one line and exit 1, no stack trace,
 * and nothing written: no file of its own left behind, no link's target created elsewhere.
 *
 * And what it writes and prints: each platform tool pinned to the version the recipe tests install,
 * `lambda` as `aws`, and every build line carrying the change feeds' history on. The lines are run
 * with `npx` (and `node`) stood in for by scripts that record their arguments, but for `start.sh`'s
 * build, which is the repository's own.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runInit } from "../node/init/init.ts";
import { PLATFORMS, RECIPES, SOURCE_FILE, STARTER_BASE_URL } from "../node/init/starter.ts";
import { cleanEnv, run, runCommand } from "./process.ts";

/** The name of the file a build leaves in its output folder to know it as its own (docs/deploying.md). */
const MARKER = ".registry-build";

const work = mkdtempSync(join(tmpdir(), "registry-init-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

/** A fresh folder under `work`, prepared by `setup`; init --platform node run in it. */
async function initIn(name: string, setup: (dir: string) => void) {
  const dir = join(work, name);
  mkdirSync(dir);
  setup(dir);
  const result = await runCommand(runInit, ["--platform", "node"], { cwd: dir, env: cleanEnv() });
  return { dir, result };
}

test("init: a name it would write that is a link to nothing is taken: one line, exit 1, the link's target never created", async () => {
  for (const name of ["registry.source.json", "start.sh", ".gitignore"]) {
    const target = join(work, `target-of-${name}`);
    const { dir, result } = await initIn(`link-${name}`, (d) => symlinkSync(target, join(d, name)));
    assert.is(result.code, 1, result.stderr);
    assert.is(
      result.stderr,
      `init: not written: ${name} (a link to nothing) already exists in ${dir} (init never overwrites a file)\n`,
    );
    assert.equal(readdirSync(dir), [name], "nothing written beside the link");
    assert.not.ok(existsSync(target), "the link's target is not created");
  }
});

test("init: a .gitignore that is a folder: one line, exit 1, neither the source nor the recipe left", async () => {
  const { dir, result } = await initIn("gitignore-folder", (d) => mkdirSync(join(d, ".gitignore")));
  assert.is(result.code, 1, result.stderr);
  assert.is(result.stderr, `init: not written: cannot write in ${dir} (EISDIR); nothing of it is left\n`);
  assert.equal(readdirSync(dir), [".gitignore"]);
});

test("init: in an empty folder it writes the source, the recipe and the .gitignore entry (the refusals above are not all it does)", async () => {
  const { dir, result } = await initIn("empty", () => {});
  assert.is(result.code, 0, result.stderr);
  assert.equal(readdirSync(dir).sort(), [".gitignore", "registry.source.json", "start.sh"]);
});

/** The HOME of every command these tests run beyond init itself. */
const home = join(work, "home");
mkdirSync(home);

/** `npx <package>@<version>` as npm ci installs it for the recipe tests, from the lockfile at `lockfile`. */
function locked(lockfile: string, path: string): string {
  const entry = (JSON.parse(readFileSync(lockfile, "utf8")) as {
    packages: Record<string, { name?: string; version: string }>;
  }).packages[path];
  assert.ok(entry !== undefined, `${lockfile} locks ${path}`);
  return `npx ${entry.name ?? path.replace(/^.*node_modules\//, "")}@${entry.version}`;
}
/** Each deploying platform's tool, as the tests install it: deploy/tools/ for Netlify and Cloudflare, the project for AWS. */
const PINS: Record<string, string> = {
  netlify: locked("deploy/tools/package-lock.json", "node_modules/netlify-cli"),
  cloudflare: locked("deploy/tools/package-lock.json", "node_modules/wrangler"),
  aws: locked("package-lock.json", "node_modules/serverless"),
};

/** init --platform `platform` in a fresh folder: its result, and the text of every file it wrote. */
async function initPlatform(platform: string, name = platform) {
  const dir = join(work, `written-${name}`);
  mkdirSync(dir);
  const result = await runCommand(runInit, ["--platform", platform], { cwd: dir, env: cleanEnv() });
  assert.is(result.code, 0, result.stderr);
  const files = Object.fromEntries(
    readdirSync(dir).sort().map((file) => [file, readFileSync(join(dir, file), "utf8")]),
  );
  return { dir, stdout: result.stdout.toString(), stderr: result.stderr, files };
}

/** The lines init prints under "Then:", verify aside (it names no build and no tool). */
const printedSteps = (stdout: string): string[] =>
  (/ and below\. Then:\n([\s\S]*?)\n\n/.exec(stdout)?.[1] ?? "").split("\n").map((line) => line.trim()).filter((line) =>
    !line.startsWith("npx registry-endpoint verify")
  );

/**
 * A folder holding an `npx` (and a `node`) that append their arguments, one `[arg]` each, to
 * `log`; `npx registry-endpoint` then runs the repository's command, when `real` is set.
 */
function stubs(name: string, real = false): { path: string; log: string; calls: () => string[] } {
  const bin = join(work, `bin-${name}`);
  const log = join(work, `calls-${name}.log`);
  mkdirSync(bin);
  const record = `for a in "$@"; do printf '[%s]' "$a" >> ${log}; done; echo >> ${log}`;
  const command = `${process.execPath} --import ${import.meta.resolve("tsx")} ${
    resolve("node/bin/registry-endpoint.ts")
  }`;
  const scripts = {
    npx: `#!/bin/sh\nprintf 'npx ' >> ${log}; ${record}\n${
      real ? `[ "$1" = registry-endpoint ] && shift && exec ${command} "$@"\n` : ""
    }`,
    node: `#!/bin/sh\nprintf 'node ' >> ${log}; ${record}\n`,
  };
  for (const [file, text] of Object.entries(scripts)) {
    writeFileSync(join(bin, file), text);
    chmodSync(join(bin, file), 0o755);
  }
  const calls = () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((l) => l !== "") : []);
  return { path: `${bin}:${process.env["PATH"] ?? ""}`, log, calls };
}

const LIVE_BUILD =
  `npx [registry-endpoint][build][--source][${SOURCE_FILE}][--base-url][${STARTER_BASE_URL}][--previous][${STARTER_BASE_URL}]`;

test("init: each platform's deploy tool, printed and written, is pinned to the version the recipe tests install; no other npx is unpinned", async () => {
  for (const platform of PLATFORMS) {
    const { stdout, files } = await initPlatform(platform, `pins-${platform}`);
    for (const [where, text] of [["its output", stdout], ...Object.entries(files)] as [string, string][]) {
      for (const [, used] of text.matchAll(/\bnpx (\S+)/g)) {
        assert.ok(
          used === "registry-endpoint" || Object.values(PINS).includes(`npx ${used}`),
          `${platform}: ${where} runs npx ${used}, not a pinned tool`,
        );
      }
    }
    const pin = PINS[platform];
    if (pin === undefined) continue;
    assert.ok(printedSteps(stdout).some((line) => line.startsWith(`${pin} deploy`)), `${platform} prints ${pin}`);
    assert.ok(files[RECIPES[platform].file]?.includes(`${pin} deploy`), `${platform}: the recipe file names ${pin}`);
  }
});

test("docs/deploying.md names each deploy tool at the version the tests install, and runs none through npx unpinned", () => {
  const docs = readFileSync("docs/deploying.md", "utf8").replace(/\s+/g, " ");
  for (const [, used] of docs.matchAll(/\bnpx ([^\s`]+)/g)) {
    assert.ok(used === "registry-endpoint" || Object.values(PINS).includes(`npx ${used}`), `npx ${used}`);
  }
  const version = (platform: string) => PINS[platform]?.split("@").at(-1);
  for (
    const said of [
      `netlify-cli ${version("netlify")} and wrangler ${version("cloudflare")} from \`deploy/tools/package.json\``,
      `osls ${version("aws")} (\`serverless\`) from the project`,
      ...Object.values(PINS).map((pin) => `\`${pin}\``),
    ]
  ) assert.ok(docs.includes(said), `the docs say ${said}`);
});

test("init --platform lambda is --platform aws: the same files, byte for byte, and the same output; --help says so", async () => {
  const lambda = await initPlatform("lambda");
  const aws = await initPlatform("aws", "aws-for-lambda");
  assert.equal(lambda.files, aws.files);
  assert.is(lambda.stdout, aws.stdout);
  assert.is(lambda.stderr, "");
  const help = await runCommand(runInit, ["--help"], { cwd: work, env: cleanEnv() });
  assert.is(help.code, 0);
  // --help wraps a flag's text: the words are compared with its line breaks and indentation taken out.
  const words = help.stdout.toString().replace(/\n +/g, " ");
  assert.match(words, /--platform P {2}one of .*aws.* \(default node; lambda: the same as aws\)/);
  assert.match(help.stdout.toString(), /^usage: .*\|lambda\b/m);
});

test('init: every build it prints or writes for a host reads the live deployment: --previous "$BASE_URL", run as written', async () => {
  for (const platform of ["netlify", "cloudflare", "aws", "deno", "static"] as const) {
    const { dir, stdout, files } = await initPlatform(platform, `history-${platform}`);
    const { path, calls } = stubs(`history-${platform}`);
    const env = cleanEnv({ PATH: path, HOME: home, DENO_DIR: join(home, ".deno"), NO_COLOR: "1" });
    const runs: [string, string, string[]][] = platform === "deno"
      ? [["deno task build", resolve("node_modules/.bin/deno"), ["task", "-q", "build"]]]
      : platform === "static"
      ? [["sh build.sh", "sh", ["build.sh"]]]
      : [["the printed lines", "sh", ["-e", "-c", printedSteps(stdout).join("\n")]], [
        `the head of ${RECIPES[platform].file}`,
        "sh",
        [
          "-e",
          "-c",
          (files[RECIPES[platform].file] ?? "").split("\n").filter((l) => /^# {3}\S/.test(l)).map((l) => l.slice(4))
            .join("\n"),
        ],
      ]];
    for (const [what, command, args] of runs) {
      const before = calls().length;
      const done = await run(command, args, { cwd: dir, env });
      assert.is(done.code, 0, `${platform}, ${what}: ${done.stderr}`);
      const made = calls().slice(before);
      assert.is(made[0], LIVE_BUILD, `${platform}, ${what}: the build reads the live deployment`);
      if (PINS[platform] !== undefined) assert.match(made[1] ?? "", /^npx \[[^\]]+@\d/, `${platform}: then deploys`);
    }
  }
});

test("init --platform node: start.sh carries the history on from dist/ at every later start, and begins it at the first", async () => {
  const { dir, stdout } = await initPlatform("node", "history-node");
  assert.equal(printedSteps(stdout), ["sh start.sh"]);
  const { path, calls } = stubs("history-node", true);
  const feed = () =>
    (JSON.parse(readFileSync(join(dir, "dist", "static", "api", "registry.v1.changes.json"), "utf8")) as {
      items: { id: string }[];
    }).items.map((item) => item.id);
  const start = async (epoch: number) => {
    const done = await run("sh", ["start.sh"], {
      cwd: dir,
      env: cleanEnv({ PATH: path, HOME: home, SOURCE_DATE_EPOCH: String(epoch) }),
      timeoutMs: 120_000,
    });
    assert.is(done.code, 0, done.stderr);
    assert.not.match(done.stderr, /\n\s+at /, "no stack trace");
    const made = calls();
    assert.is(made.at(-1), "node [dist/node/server.mjs]", "then it starts the server it built");
    return made.at(-2) as string;
  };
  const build =
    `npx [registry-endpoint][build][--source][${SOURCE_FILE}][--base-url][${STARTER_BASE_URL}][--out][dist]`;
  assert.is(
    await start(1795262400),
    `${build}[--new-history][--unsigned]`,
    "the first start: no earlier build, a new history on purpose, unsigned with no key set",
  );
  assert.ok(existsSync(join(dir, "dist", MARKER)), `start.sh looks for the build's own marker, ${MARKER}`);
  const first = feed();
  assert.is(first.length, 1);
  const source = JSON.parse(readFileSync(join(dir, SOURCE_FILE), "utf8")) as { vaults: { note: string }[] };
  (source.vaults[0] as { note: string }).note = "Changed before the second start.";
  writeFileSync(join(dir, SOURCE_FILE), JSON.stringify(source));
  assert.is(await start(1795262400 + 86_400), `${build}[--previous][dist]`, "a later start: --previous dist");
  assert.equal(feed().slice(1), first, "the first start's item carried on");
  assert.is(feed().length, 2);
});

test.run();
