/**
 * `npm test`: every `test/*.test.ts` file, each in its own process (`node --import tsx FILE`, which
 * runs the file's uvu suites), several at once, the longest first; then one summary in uvu's own
 * words (Total, Passed, Skipped, Duration), which `.ci/run` reads. Most of the suite waits on real
 * runtimes and tools in child processes, so files run one more at a time than there are CPUs.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Command, runAsProcess } from "../node/common/args.ts";
import { countsOf, SUMMARY_LINE, summaryOf } from "./uvu-summary.ts";

/** Started first, so that the last file to start is a short one: each takes 20 s or more on its own. */
const LONGEST = [
  "package",
  "recipes",
  "platforms",
  "server",
  "openapi",
  "limits",
  "static-export",
  "golden-update",
  "readme",
  "toolchain",
];

const HELP = `usage: npm test [-- PATTERN]

Runs every test/*.test.ts file (or those whose name matches the regular expression PATTERN), each
in its own process, TEST_JOBS at once (default: one more than the CPUs, at most 64), and prints one summary:
Total, Passed, Skipped, Duration. A file still running after TEST_TIMEOUT seconds (default 600) is
stopped with every process it started, and fails. FC_SEED and FC_RUNS reach the property tests.

Exit codes: 0 every test passed; 1 a test failed, a file printed no summary, or none ran; 2 a bad
flag, pattern or setting.
`;

/** `npm test` as a function: runs the files, writes their output and the summary, returns the exit code. */
export const runAll: Command = async (argv, env, io) => {
  if (argv[0] === "--help" || argv[0] === "-h") {
    io.stdout(HELP);
    return 0;
  }
  let pattern: RegExp | undefined;
  try {
    if (argv.length > 1 || argv[0]?.startsWith("-")) throw new Error(`unexpected argument ${argv.at(-1)}`);
    pattern = argv[0] === undefined ? undefined : new RegExp(argv[0]);
  } catch (error: unknown) {
    io.stderr(`${(error as Error).message} (usage: npm test [-- PATTERN]; --help for more)\n`);
    return 2;
  }
  // One more than the CPUs: most files spend much of their time waiting on a child process. The
  // bounds are TEST_JOBS's: a machine of 64 CPUs or more runs 64 at once.
  const jobs = wholeNumber(env["TEST_JOBS"]) ?? Math.min(availableParallelism() + 1, 64);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 64) {
    io.stderr(`TEST_JOBS: expected a number of files at once from 1 to 64, got ${JSON.stringify(env["TEST_JOBS"])}\n`);
    return 2;
  }
  const timeout = wholeNumber(env["TEST_TIMEOUT"]) ?? 600;
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 86_400) {
    io.stderr(`TEST_TIMEOUT: expected seconds from 1 to 86400, got ${JSON.stringify(env["TEST_TIMEOUT"])}\n`);
    return 2;
  }
  // Each file runs in a process group of its own, so that a stop reaches what it started; the
  // group leader's pid names the group.
  const running = new Set<number>();
  // A stop that cannot be caught (SIGKILL) reaches the files through test/file-watchdog.ts.
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) {
    process.once(signal, () => {
      for (const pid of running) stopGroup(pid);
      process.exit(code);
    });
  }
  const rank = (file: string) => {
    const i = LONGEST.indexOf(file.replace(/\.test\.ts$/, ""));
    return i === -1 ? LONGEST.length : i;
  };
  const files = readdirSync(join(io.cwd, "test"))
    .filter((f) => f.endsWith(".test.ts") && (pattern === undefined || pattern.test(f)))
    .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
  const started = performance.now();
  const sums = { total: 0, passed: 0, skipped: 0 };
  let failed = 0;
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++] as string;
      const began = performance.now();
      const { code, output } = await runFile(join("test", file), env, io.cwd, timeout, running);
      const took = ((performance.now() - began) / 1000).toFixed(1);
      const counts = countsOf(output);
      // Each file's own summary is dropped: the run ends with one for all.
      const kept = output.split("\n").filter((line) => !SUMMARY_LINE.test(line)).join("\n").trimEnd();
      io.stdout(`${file} (${took} s)\n${kept}\n`);
      if (counts === undefined) io.stdout(`${file}: no uvu summary (exit ${code})\n`);
      else {
        sums.total += counts.total;
        sums.passed += counts.passed;
        sums.skipped += counts.skipped;
      }
      if (code !== 0 || counts === undefined || counts.passed < counts.total) failed++;
      // A file that failed with no failed test in its counts (it printed no summary, or ended badly
      // after one) counts as one failed test: .ci/run's "N failed" is Total less Passed.
      if ((code !== 0 || counts === undefined) && (counts === undefined || counts.passed === counts.total)) {
        io.stdout(`${file}: counted as one failed test\n`);
        sums.total += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));
  io.stdout(summaryOf(sums, (performance.now() - started) / 1000));
  if (files.length === 0) io.stderr(`no test file matches ${pattern ?? "test/*.test.ts"}\n`);
  if (failed > 0) io.stderr(`${failed} of ${files.length} test files failed\n`);
  return failed === 0 && sums.total > 0 ? 0 : 1;
};

/**
 * A setting as a number written in digits only (NaN otherwise, so " 5" and "1e3" are refused);
 * undefined when unset or empty.
 */
function wholeNumber(setting: string | undefined): number | undefined {
  if (setting === undefined || setting === "") return undefined;
  return /^[0-9]+$/.test(setting) ? Number(setting) : Number.NaN;
}

/** Kills every process of the group `pid` leads, if any is left. */
function stopGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // none is left
  }
}

/** Loaded into each file: it stops the file's group when npm test goes away. */
const WATCHDOG = fileURLToPath(new URL("file-watchdog.ts", import.meta.url));

/** How long the output of a file that has ended may take to arrive: a process it left may hold the pipes. */
const DRAIN_MS = 1000;

/**
 * One test file in a process group of its own: its exit code and its output, stdout and stderr in
 * the order written. After `seconds`, or once the file has ended, the group is killed, so that no
 * server or runtime it started outlives it; a file stopped at `seconds` fails, whatever it printed.
 */
function runFile(
  file: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  seconds: number,
  running: Set<number>,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--import", WATCHDOG, file], {
      cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    const pid = child.pid as number;
    running.add(pid);
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    let stopped = false;
    const timer = setTimeout(() => {
      stopped = true;
      output += `\nstopped after ${seconds} s`;
      stopGroup(pid);
    }, seconds * 1000);
    child.on("exit", (code, signal) => {
      // What the file left running is stopped; one that left its own session may still hold the
      // pipes, so its output is waited for only so long.
      stopGroup(pid);
      const finish = () => {
        if (!running.delete(pid)) return;
        clearTimeout(timer);
        clearTimeout(drain);
        for (const stream of [child.stdin, child.stdout, child.stderr]) stream.destroy();
        resolve({ code: stopped ? 1 : code ?? 1, output: signal === null ? output : `${output}\nended by ${signal}` });
      };
      const drain = setTimeout(finish, DRAIN_MS);
      child.on("close", finish);
    });
  });
}

await runAsProcess(runAll);
