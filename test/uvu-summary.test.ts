import { test } from "uvu";
import * as assert from "uvu/assert";
import fc from "fast-check";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { countsOf, SUMMARY_LINE, summaryOf } from "./uvu-summary.ts";
import { run } from "./process.ts";

const work = mkdtempSync(join(tmpdir(), "registry-run-all-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

/** `npm test` (test/run-all.ts) run in a folder of its own whose test/ holds `files`. */
async function runAllOn(
  name: string,
  files: Record<string, string>,
  args: readonly string[] = [],
  options: { nodeArgs?: readonly string[]; jobs?: string; timeout?: string } = {},
) {
  const folder = join(work, name);
  mkdirSync(join(folder, "test"), { recursive: true });
  symlinkSync(resolve("node_modules"), join(folder, "node_modules"));
  writeFileSync(join(folder, "package.json"), `${JSON.stringify({ type: "module" })}\n`);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(folder, "test", file), text);
  const { NO_COLOR: _, FORCE_COLOR: __, TEST_JOBS: ___, TEST_TIMEOUT: ____, ...env } = process.env;
  const nodeArgs = [...(options.nodeArgs ?? []), "--import", "tsx", resolve("test/run-all.ts"), ...args];
  const done = await run(process.execPath, nodeArgs, {
    cwd: folder,
    env: {
      ...env,
      ...(options.jobs === "" ? {} : { TEST_JOBS: options.jobs ?? "4" }),
      ...(options.timeout === undefined ? {} : { TEST_TIMEOUT: options.timeout }),
    },
    timeoutMs: 60_000,
  });
  return { code: done.code, stdout: done.stdout.toString(), stderr: done.stderr };
}

const PASSING = 'import { test } from "uvu";\ntest("passes", () => {});\ntest.run();\n';

test("uvu's own summary, in colour, is read: Total, Passed and Skipped", () => {
  const coloured =
    "\u001b[1m  Total:     \u001b[22m12\n\u001b[32m  Passed:    \u001b[39m11\n  Skipped:   1\n  Duration:  1.2s\n";
  assert.equal(countsOf(coloured), { total: 12, passed: 11, skipped: 1 });
  assert.is(countsOf("• • •   (3 / 3)\n"), undefined, "no summary: no counts");
  assert.is(countsOf("  Total:     3\n  Passed:    3\n"), undefined, "a summary cut short: no counts");
  const child = "  Total:     1\n  Passed:    1\n  Skipped:   0\n";
  assert.equal(countsOf(`${child}• ✘\n  Total:     2\n  Passed:    1\n  Skipped:   0\n`), {
    total: 2,
    passed: 1,
    skipped: 0,
  });
});

test("the run's summary reads back as the counts it was made from, and each of its lines is a summary line", () => {
  const count = fc.nat({ max: 100_000 });
  fc.assert(
    fc.property(count, count, count, fc.double({ min: 0, max: 1e4, noNaN: true }), (total, passed, skipped, s) => {
      const text = summaryOf({ total, passed, skipped }, s);
      assert.equal(countsOf(text), { total, passed, skipped });
      const lines = text.split("\n").filter((line) => line.trim() !== "");
      assert.is(lines.length, 4);
      assert.ok(lines.every((line) => SUMMARY_LINE.test(line)));
    }),
  );
});

test("every file that fails counts as at least one failed test: one with no summary, one that crashes, one killed after its summary", async () => {
  const { code, stdout, stderr } = await runAllOn("failing", {
    "a.test.ts": PASSING,
    "b.test.ts": 'console.log("no tests here");\n',
    "c.test.ts":
      'import { test } from "uvu";\ntest("one", () => {});\ntest("two", async () => {\n  setTimeout(() => {\n    throw new Error("boom");\n  }, 0);\n  await new Promise((r) => setTimeout(r, 100));\n});\ntest.run();\n',
    "d.test.ts": `${PASSING}setTimeout(() => process.kill(process.pid, "SIGKILL"), 200);\n`,
  });
  assert.is(code, 1, stdout);
  assert.match(stderr, /^3 of 4 test files failed\n$/);
  const counts = countsOf(stdout);
  assert.ok(counts !== undefined, stdout);
  assert.is(counts.passed, 2, "a's test, and d's before it was killed");
  assert.is(counts.total - counts.passed, 3, `one failed test for each failed file:\n${stdout}`);
});

test("a PATTERN that matches no file: exit 1 and one line that says so", async () => {
  const { code, stderr } = await runAllOn("none", { "a.test.ts": PASSING }, ["serevr"]);
  assert.is(code, 1);
  assert.is(stderr, "no test file matches /serevr/\n");
  // A PATTERN that matches runs those files alone, as the README says.
  const failing =
    'import { test } from "uvu";\nimport * as assert from "uvu/assert";\ntest("fails", () => assert.ok(false));\ntest.run();\n';
  const some = await runAllOn("some", { "a.test.ts": PASSING, "b.test.ts": failing }, ["^a\\."]);
  assert.is(some.code, 0, some.stdout);
  assert.equal(countsOf(some.stdout), { total: 1, passed: 1, skipped: 0 });
  assert.not.match(some.stdout, /b\.test\.ts/);
});

test("on a machine of 64 CPUs or more, TEST_JOBS unset: the files run (at most 64 at once), no complaint about TEST_JOBS", async () => {
  const cpus = join(work, "cpus.cjs");
  writeFileSync(
    cpus,
    'const os = require("node:os");\nos.availableParallelism = () => 96;\nrequire("node:module").syncBuiltinESMExports();\n',
  );
  const { code, stdout, stderr } = await runAllOn("many-cpus", { "a.test.ts": PASSING }, [], {
    nodeArgs: ["--require", cpus],
    jobs: "",
  });
  assert.is(stderr, "");
  assert.is(code, 0, stdout);
  assert.equal(countsOf(stdout), { total: 1, passed: 1, skipped: 0 });
});

/**
 * A test file that starts a process (which would run for a minute) and writes its pid, its own
 * parent's (npm test's) and its own to `pidFile`; then `rest`.
 */
const starting = (pidFile: string, rest: string) =>
  `import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
writeFileSync(${JSON.stringify(pidFile)}, \`\${child.pid} \${process.ppid} \${process.pid}\`);
${rest}
`;

/** The pids a file made by `starting` wrote. */
const pidsIn = (file: string): number[] => readFileSync(file, "utf8").split(" ").map(Number);

/** Whether a process of this pid is still running, asked for up to 3 s until it is not. */
async function stillRunning(pid: number): Promise<boolean> {
  for (let i = 0; i < 60; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return false;
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  return true;
}

test("a file still running after TEST_TIMEOUT is stopped with the processes it started, and fails; a file that ends leaving one has it stopped", async () => {
  const hung = join(work, "hung.pid");
  // It passes its one test, then hangs: stopped, it fails.
  const hang = 'import { test } from "uvu";\ntest("passes", () => {});\ntest.run();\nsetInterval(() => {}, 1000);';
  const { code, stdout } = await runAllOn("timeout", { "a.test.ts": starting(hung, hang) }, [], { timeout: "2" });
  assert.is(code, 1);
  assert.match(stdout, /stopped after 2 s/);
  assert.equal(countsOf(stdout), { total: 2, passed: 1, skipped: 0 });
  assert.not.ok(await stillRunning(pidsIn(hung)[0] as number), "what the stopped file started is stopped too");

  const leaked = join(work, "leaked.pid");
  const rest = 'child.unref();\nimport { test } from "uvu";\ntest("passes", () => {});\ntest.run();';
  const ended = await runAllOn("leak", { "a.test.ts": starting(leaked, rest) });
  assert.is(ended.code, 0, ended.stdout);
  assert.not.ok(await stillRunning(pidsIn(leaked)[0] as number), "what the ended file left is stopped");

  for (const timeout of ["0", "1e3", " 5"]) {
    const bad = await runAllOn(`bad-timeout-${timeout.trim()}`, { "a.test.ts": PASSING }, [], { timeout });
    assert.equal([bad.code, bad.stderr], [
      2,
      `TEST_TIMEOUT: expected seconds from 1 to 86400, got ${JSON.stringify(timeout)}\n`,
    ]);
  }
});

test("SIGTERM to npm test stops every file's process group, and it exits 143", async () => {
  const pids = join(work, "signalled.pid");
  const running = runAllOn("signal", { "a.test.ts": starting(pids, "setInterval(() => {}, 1000);") });
  for (let i = 0; i < 400 && !existsSync(pids); i++) await new Promise((done) => setTimeout(done, 50));
  const [grandchild, npmTest] = pidsIn(pids) as [number, number];
  process.kill(npmTest, "SIGTERM");
  const { code } = await running;
  assert.is(code, 143);
  assert.not.ok(await stillRunning(grandchild), "what the file started is stopped");
});

test("a file that ends leaving a process of its own session on its output ends without waiting for it", async () => {
  const pidFile = join(work, "session.pid");
  const file = `import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { test } from "uvu";
const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)"], {
  detached: true,
  stdio: ["ignore", "inherit", "inherit"],
});
child.unref();
writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));
test("passes", () => {});
test.run();
`;
  try {
    const { code, stdout } = await runAllOn("session", { "a.test.ts": file }, [], { timeout: "30" });
    assert.is(code, 0, stdout);
    assert.equal(countsOf(stdout), { total: 1, passed: 1, skipped: 0 });
  } finally {
    process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
  }
});

test("SIGKILL to npm test: each file's group goes with it", async () => {
  const pids = join(work, "killed.pid");
  const running = runAllOn("killed", { "a.test.ts": starting(pids, "setInterval(() => {}, 1000);") });
  for (let i = 0; i < 400 && !existsSync(pids); i++) await new Promise((done) => setTimeout(done, 50));
  const [grandchild, npmTest, file] = pidsIn(pids) as [number, number, number];
  process.kill(npmTest, "SIGKILL");
  await running;
  assert.not.ok(await stillRunning(file), "the file is stopped");
  assert.not.ok(await stillRunning(grandchild), "what the file started is stopped");
});

test.run();
