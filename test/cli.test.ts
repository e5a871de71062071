/** The CLI as a process, exactly as the README runs it. */
import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GOLDEN_OPTIONS } from "./cases.ts";
import type { Command } from "../node/common/args.ts";
import { runBuild } from "../node/builder/build.ts";
import { runKeygen } from "../node/builder/keygen.ts";
import { runInit } from "../node/init/init.ts";
import { runRegistry } from "../node/review/registry-command.ts";
import { runReview } from "../node/review/review-command.ts";
import { runServe } from "../node/serve/server.ts";
import { runVerify } from "../node/verify/command.ts";
import { MESSAGE_LINE_CHARS, terminalSafe } from "../node/common/printable.ts";
import { fcParams } from "./arbitraries.ts";
import { cleanEnv, run, runCommand } from "./process.ts";

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  run("node", ["--import", "tsx", "node/bin/registry.ts", ...args], { env: cleanEnv(env) });

test("npm run --silent registry writes the golden bytes to stdout and nothing else", async () => {
  const result = await run("npm", [
    "run",
    "--silent",
    "registry",
    "--",
    "fixtures/registry.json",
    "--base-url",
    GOLDEN_OPTIONS.baseUrl,
    "--built-at",
    GOLDEN_OPTIONS.builtAt,
  ], { env: cleanEnv() });
  assert.is(result.stderr, "");
  assert.is(result.code, 0);
  assert.ok(result.stdout.equals(readFileSync("golden/registry.json")), "stdout is golden/registry.json byte for byte");
});

test("SOURCE_DATE_EPOCH and BASE_URL set built_at and the base URL when no flag does", async () => {
  const result = await cli(["fixtures/valid/empty.json"], {
    SOURCE_DATE_EPOCH: "1795262400",
    BASE_URL: "https://env.example/",
  });
  assert.is(result.code, 0);
  const document = JSON.parse(result.stdout.toString("utf8"));
  assert.is(document.built_at, "2026-11-21T12:00:00Z");
  assert.is(document.about.canonical_url, "https://env.example/vaults.json");
});

test("without flags or SOURCE_DATE_EPOCH, built_at is the clock at the build, to the second", async () => {
  const before = Math.floor(Date.now() / 1000) * 1000;
  const result = await cli(["fixtures/valid/empty.json"]);
  const builtAt = Date.parse(JSON.parse(result.stdout.toString("utf8")).built_at);
  assert.ok(builtAt >= before && builtAt <= Date.now(), `${builtAt} within the run`);
});

test("an invalid source: every problem on stderr, one per line, nothing on stdout, exit 1", async () => {
  const result = await cli(["fixtures/invalid/many-problems.json"]);
  assert.is(result.code, 1);
  assert.is(result.stdout.length, 0);
  assert.is(result.stderr, readFileSync("golden/invalid/many-problems.txt", "utf8"));
  assert.not.match(result.stderr, /\bat .*\.ts:\d+/, "no stack trace");
});

test("bad flags and stray arguments: one line, exit 2; --help: usage, flags and exit codes, exit 0", async () => {
  const cases: [string[], RegExp][] = [
    [[], /^missing argument \(usage: npm run --silent registry -- <source\.json>/],
    [["a.json", "b.json"], /^unexpected argument "b\.json" \(usage:/],
    [["fixtures/registry.json", "--colour"], /^Unknown option '--colour' \(usage: .*; --help for more\)\n$/],
    [["fixtures/registry.json", "--base-url"], /^Option '--base-url <value>' argument missing \(usage:/],
    // A misspelt flag within two edits of a known one is named.
    [["fixtures/registry.json", "--base-rul", "x"], /^Unknown option '--base-rul'; did you mean --base-url\? \(usage:/],
    // What a bad flag quotes reaches the terminal without its controls.
    [["fixtures/registry.json", "--evil\u001b[2J\u0007"], /^Unknown option '--evil' \(usage:/],
    [["fixtures/registry.json", "--biult-at=x"], /^Unknown option '--biult-at'; did you mean --built-at\? \(usage:/],
  ];
  for (const [args, expected] of cases) {
    const result = await cli(args);
    assert.is(result.code, 2, args.join(" "));
    assert.is(result.stdout.length, 0);
    assert.is(result.stderr.split("\n").filter(Boolean).length, 1, result.stderr);
    assert.match(result.stderr, expected);
  }
  const help = await cli(["--help"]);
  assert.is(help.code, 0);
  for (const text of ["usage: npm run --silent registry", "--base-url URL", "--built-at RFC3339", "Exit codes"]) {
    assert.ok(help.stdout.toString().includes(text), text);
  }
});

test("each command's flags come from one table: every flag --help shows is parsed, and one letter short of it is named as the hint", async () => {
  const commands: [string, Command, string[]][] = [
    ["build", runBuild, []],
    ["preview", runRegistry, ["fixtures/registry.json"]],
    ["diff", runRegistry, ["diff"]],
    ["verify", runVerify, ["http://127.0.0.1:9"]],
    ["serve", runServe, []],
    ["init", runInit, []],
    ["keygen", runKeygen, ["key.pem"]],
    ["review", runReview, []],
  ];
  let seen = 0;
  for (const [name, command, before] of commands) {
    const help = await runCommand(command, [...before.slice(0, name === "diff" ? 1 : 0), "--help"], { env: {} });
    assert.is(help.code, 0, name);
    const flags = [...help.stdout.toString().matchAll(/^ {2}--([a-z-]+)/gm)].map((m) => m[1] as string);
    assert.equal(new Set(flags).size, flags.length, `${name}: each flag shown once`);
    for (const flag of flags) {
      const short = await runCommand(command, [...before, `--${flag.slice(0, -1)}`], { env: {} });
      assert.is(short.code, 2, `${name} --${flag}`);
      assert.match(
        short.stderr,
        new RegExp(`^Unknown option '--${flag.slice(0, -1)}'; did you mean --${flag}\\? \\(usage: `),
      );
      seen++;
    }
  }
  assert.ok(seen >= 20, `${seen} flags`);
});

test("every command's --help fits in 100 columns, bar its usage line and a command line shown whole", async () => {
  const commands: [string, Command, string[]][] = [
    ["build", runBuild, []],
    ["preview", runRegistry, []],
    ["diff", runRegistry, ["diff"]],
    ["verify", runVerify, []],
    ["serve", runServe, []],
    ["init", runInit, []],
    ["keygen", runKeygen, []],
    ["review", runReview, []],
  ];
  for (const [name, command, before] of commands) {
    const help = await runCommand(command, [...before, "--help"], { env: {} });
    assert.is(help.code, 0, name);
    const long = help.stdout.toString().split("\n").filter((line) =>
      line.length > 100 && !line.startsWith("usage: ") && !/^\s+(npm|registry-endpoint) /.test(line)
    );
    assert.equal(long, [], `${name}: lines over 100 columns`);
  }
});

test("under registry-endpoint, every usage line names the command as registry-endpoint does, value errors too", async () => {
  const cases: [string[], string][] = [
    [["verify", "ftp://x"], "(usage: registry-endpoint verify <base-url> "],
    [["build", "--new-history", "--previous", "x"], "\nregistry-endpoint build --source FILE "],
    [["diff", "a.json", "b.json", "--fail-on", "x"], "(usage: registry-endpoint diff OLD.json NEW.json "],
    [["preview", "--biult-at=x"], "(usage: registry-endpoint preview <source.json> "],
  ];
  for (const [args, expected] of cases) {
    const result = await run("node", ["node/bin/registry-endpoint.mjs", ...args], { env: cleanEnv() });
    assert.is(result.code, 2, args.join(" "));
    assert.ok(result.stderr.includes(expected), result.stderr);
    assert.not.match(result.stderr, /npm run/, args.join(" "));
  }
});

test("a stray argument or an unknown command under registry-endpoint is quoted with its C1 controls escaped", async () => {
  for (const args of [["\u009b2J"], ["build", "\u009b2J"], ["preview", "a.json", "\u009b2J"]]) {
    const result = await run("node", ["node/bin/registry-endpoint.mjs", ...args], { env: cleanEnv() });
    assert.is(result.code, 2, args.join(" "));
    assert.ok(result.stderr.includes('"\\u009b2J"'), result.stderr);
    assert.not.match(result.stderr, /[\u0080-\u009f]/, args.join(" "));
  }
});

/**
 * What no message may carry raw: C0 but newline and tab, DEL, C1, the bidirectional marks, and what hides or splits
 * text as quoted source values escape it (zero-width characters, U+FEFF, U+2028/2029, a lone surrogate half, ...).
 */
const UNSAFE = /(?![\n\t ])[\p{C}\p{Z}\p{Default_Ignorable_Code_Point}]/u;
const longestLine = (text: string) => Math.max(...text.split("\n").map((line) => [...line].length));

test("law: terminalSafe leaves no control, bidirectional mark or invisible character, cuts no short line, changes nothing plain", () => {
  const unsafe = fc.constantFrom(
    "\u001b[2J",
    "\u001b]0;t\u0007",
    "\u009b",
    "\u202e",
    "\u2066",
    "\r",
    "\u0000",
    "\u007f",
    "\u2028",
    "\u2029",
    "\u200b",
    "\ufeff",
    "\u00ad",
    "\ud800",
    "\u{e0041}",
  );
  const part = fc.oneof(
    fc.string({ unit: "binary", maxLength: 8 }),
    unsafe,
    fc.constant("\n"),
    fc.constant("x".repeat(700)),
  );
  fc.assert(
    fc.property(fc.array(part, { maxLength: 10 }).map((parts) => parts.join("")), (text) => {
      const shown = terminalSafe(text);
      assert.not.match(shown, UNSAFE);
      assert.ok(longestLine(shown) <= MESSAGE_LINE_CHARS + 1, "a line longer than the limit and its …");
      assert.is(terminalSafe(shown), shown, "idempotent");
      assert.is(shown.split("\n").length, text.split("\n").length, "the same lines");
      if (!UNSAFE.test(text) && longestLine(text) <= MESSAGE_LINE_CHARS) assert.is(shown, text, "plain text unchanged");
    }),
    fcParams,
  );
});

test("a value with terminal controls, bidirectional marks, invisible characters and 3,000 characters reaches stderr escaped and cut, in every command", async () => {
  const hostile = `\u001b]0;pwned\u0007\u202eevil\u009b2J\r\u2028forged\u200b\ufeff${"x".repeat(3000)}`;
  const cases: string[][] = [
    ["build", "--source", "fixtures/registry.json", "--base-url", hostile, "--out", "/nonexistent/x"],
    ["preview", `${hostile}.json`],
    ["diff", "golden/registry.json", "golden/registry.json", "--fail-on", hostile],
    ["verify", hostile],
    ["init", "--platform", hostile],
    ["serve", "--source", "fixtures/registry.json", "--built-at", hostile],
    ["keygen", "--bogus", hostile],
  ];
  for (const args of cases) {
    const result = await run("node", ["node/bin/registry-endpoint.mjs", ...args], { env: cleanEnv() });
    assert.ok(result.code === 1 || result.code === 2, `${args[0]}: exit ${result.code}`);
    assert.ok(result.stderr.length > 0, args[0]);
    assert.not.match(result.stderr, UNSAFE, args[0]);
    assert.ok(longestLine(result.stderr) <= MESSAGE_LINE_CHARS + 1, `${args[0]}: ${longestLine(result.stderr)}`);
  }
});

test("a path or HOST holding a newline never starts a line of its own on stderr: the newline is shown escaped", async () => {
  const forged = "x\nFORGED: all good";
  const cases: [string[], NodeJS.ProcessEnv][] = [
    [["preview", `/nonexistent-dir/${forged}`], {}],
    [["build", "--source", `/nonexistent-dir/${forged}`, "--base-url", "https://r.example.org", "--new-history"], {}],
    [["diff", `/nonexistent-dir/${forged}`, "golden/registry.json"], {}],
    [["verify", "http://127.0.0.1:9", "--previous-document", `/nonexistent-dir/${forged}`], {}],
    [["verify", "http://127.0.0.1:9", "--keys", `/nonexistent-dir/${forged}`], {}],
    [["serve"], { REGISTRY_SOURCE: `/nonexistent-dir/${forged}` }],
    [["serve", "--source", "fixtures/registry.json"], { HOST: forged, PORT: "0" }],
  ];
  for (const [args, env] of cases) {
    const result = await run("node", ["node/bin/registry-endpoint.mjs", ...args], { env: cleanEnv(env) });
    assert.ok(result.code === 1 || result.code === 2, `${args.join(" ")}: exit ${result.code}`);
    assert.ok(result.stderr.includes("x\\u000aFORGED"), result.stderr);
    assert.not.match(result.stderr, /^FORGED/m, args.join(" "));
  }
});

test("a stdout that cannot be written (a full disk) is one line and exit 1, never a stack trace; a reader gone, exit 1 quietly", () => {
  const full = openSync("/dev/full", "w");
  try {
    for (
      const args of [
        ["--import", "tsx", "node/bin/registry.ts", "fixtures/registry.json"],
        ["node/bin/registry-endpoint.mjs", "diff", "golden/registry.json", "golden/registry.json"],
        ["node/bin/registry-endpoint.mjs", "--help"],
      ]
    ) {
      const done = spawnSync("node", args, { stdio: ["ignore", full, "pipe"], env: cleanEnv(), timeout: 60_000 });
      assert.is(done.status, 1, args.join(" "));
      assert.is(done.stderr.toString(), "stdout: cannot write (ENOSPC)\n", args.join(" "));
    }
  } finally {
    closeSync(full);
  }
});

test("registry-endpoint --help takes nothing after it; a stray argument is quoted at most 200 characters long", async () => {
  const stray = await run("node", ["node/bin/registry-endpoint.mjs", "--help", "--bogus"], { env: cleanEnv() });
  assert.is(stray.code, 2);
  assert.is(stray.stderr, 'unexpected argument "--bogus" (usage: registry-endpoint --help)\n');
  const long = "x".repeat(100_000);
  for (const args of [["build", long], [long]]) {
    const result = await run("node", ["node/bin/registry-endpoint.mjs", ...args], { env: cleanEnv() });
    assert.is(result.code, 2);
    assert.ok(result.stderr.length < 600, `${result.stderr.length} characters`);
    assert.match(result.stderr, /"x{199}… \(usage: registry-endpoint /);
  }
});

test("bad values and unreadable files: a clear line each, exit 1, nothing on stdout", async () => {
  const cases: [string[], RegExp][] = [
    [["fixtures/registry.json", "--base-url", "ftp://x"], /^--base-url: expected an absolute http or https URL/m],
    [["fixtures/registry.json", "--built-at", "yesterday"], /^--built-at: expected an RFC 3339 UTC timestamp/m],
    [
      ["fixtures/does-not-exist.json"],
      /^fixtures\/does-not-exist\.json: cannot read the file \(ENOENT\); registry-endpoint init writes a starter source to begin from$/m,
    ],
    [["fixtures"], /^fixtures: cannot read the file \(EISDIR\)$/m],
  ];
  for (const [args, expected] of cases) {
    const result = await cli(args);
    assert.is(result.code, 1, args.join(" "));
    assert.is(result.stdout.length, 0, args.join(" "));
    assert.match(result.stderr, expected);
    assert.not.match(result.stderr, /\n\s+at /, "no stack trace");
  }
  const bad = await cli(["fixtures/valid/empty.json"], { SOURCE_DATE_EPOCH: "soon" });
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /^SOURCE_DATE_EPOCH: /);
});

test("every other command: --help prints usage and exit codes, no line past 100 columns but the usage; a bad flag is one line and exit 2", async () => {
  for (
    const [script, usage] of [["bench/run.ts", "npm run bench"], ["bench/soak.ts", "npm run soak"], [
      "deploy/lambda-ric.ts",
      "npm run lambda-ric",
    ]] as const
  ) {
    const help = await run("node", ["--import", "tsx", script, "--help"], { env: cleanEnv() });
    assert.is(help.code, 0, script);
    assert.ok(help.stdout.toString().startsWith(`usage: ${usage}`), help.stdout.toString());
    assert.match(help.stdout.toString(), /Exit codes/);
    const long = help.stdout.toString().split("\n").filter((line) => line.length > 100 && !line.startsWith("usage: "));
    assert.equal(long, [], `${script}: lines over 100 columns`);
    const bad = await run("node", ["--import", "tsx", script, "--fast"], { env: cleanEnv() });
    assert.is(bad.code, 2, script);
    assert.is(bad.stderr, `Unknown option '--fast' (usage: ${usage} [-- --help]; --help for more)\n`);
  }
});

test.run();
