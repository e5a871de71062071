/**
 * Every input has a stated limit (contract/limits.ts), checked before the work that would exceed
 * it: the reproductions through every command, each refused in one line naming the figure
 * and the limit, with no stack trace and nothing written.
 */
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { MAX_DEPLOY_DOCUMENT_BYTES, MAX_STRING_LENGTH, sizeOf } from "../contract/limits.ts";
import { cleanEnv, run } from "./process.ts";

const work = mkdtempSync(join(tmpdir(), "registry-limits-"));
test.after(() => rmSync(work, { recursive: true, force: true }));
const env = cleanEnv({ BASE_URL: "https://registry.example.org", HOST: "127.0.0.1", PORT: "0" });
const snapshot = () => JSON.parse(readFileSync("fixtures/registry.json", "utf8")) as { labels: { class: Record<string, string> }; vaults: Record<string, unknown>[]; edges: unknown[] };

/**
 * Every command that reads a source, on `file`: exit code and stderr of each. `npm start` only
 * where it must refuse: one that starts would run until its time limit.
 */
async function everyCommand(file: string, start = true): Promise<{ command: string; code: number | null; stderr: string; stdout: number }[]> {
  const commands: [string, string[], NodeJS.ProcessEnv][] = [
    ["registry", ["node/bin/registry.ts", file], env],
    ["build", ["node/build/build.ts", "--source", file, "--out", join(work, "dist")], env],
    ...(start ? [["npm start", ["node/serve/server.ts"], { ...env, REGISTRY_SOURCE: file }] as [string, string[], NodeJS.ProcessEnv]] : []),
  ];
  const results = [];
  for (const [command, args, commandEnv] of commands) {
    const done = await run("node", ["--import", "tsx", ...args], { env: commandEnv, timeoutMs: 120_000 });
    results.push({ command, code: done.code, stderr: done.stderr, stdout: done.stdout.length });
  }
  return results;
}

function oneLine(result: { command: string; code: number | null; stderr: string; stdout: number }, pattern: RegExp): void {
  assert.is(result.code, 1, `${result.command}: ${result.stderr}`);
  assert.is(result.stderr.trim().split("\n").length, 1, `${result.command}: ${result.stderr}`);
  assert.match(result.stderr, pattern, result.command);
  assert.not.match(result.stderr, /\n\s+at |RangeError/, result.command);
  if (result.command !== "npm start") assert.is(result.stdout, 0, `${result.command}: nothing on stdout`);
}

test("a 1,000,000-character label used by 600 vaults (a 1 MB source): refused by the string limit", async () => {
  const source = snapshot();
  const raw = source.vaults[0]!["class"] as string;
  source.labels.class[raw] = "L".repeat(1_000_000);
  source.vaults = Array.from({ length: 600 }, (_, i) => ({ ...source.vaults[i % 48]!, vault_slug: `v-${i}`, class: raw }));
  source.edges = [];
  const file = join(work, "long-label.json");
  writeFileSync(file, JSON.stringify(source));
  for (const result of await everyCommand(file)) oneLine(result, new RegExp(`labels\\.class.*expected at most ${MAX_STRING_LENGTH} characters \\(this string has 1000000\\)`));
});

test("labels under the string limit that make the document too big: refused before the document is made", async () => {
  const source = snapshot();
  const raw = source.vaults[0]!["class"] as string;
  source.labels.class[raw] = "L".repeat(MAX_STRING_LENGTH);
  source.vaults = Array.from({ length: 3000 }, (_, i) => ({ ...source.vaults[i % 48]!, vault_slug: `v-${i}`, class: raw }));
  source.edges = [];
  const file = join(work, "big-document.json");
  writeFileSync(file, JSON.stringify(source));
  const [registry, build, start] = await everyCommand(file);
  oneLine(registry!, /the document would be over 18\d\.\d MiB; the limit is 128 MiB$/m);
  oneLine(build!, new RegExp(`^build failed: the document would be over .*; the limit is ${sizeOf(MAX_DEPLOY_DOCUMENT_BYTES)}$`, "m"));
  oneLine(start!, /^big-document\.json: the document would be over .*; the limit is 128 MiB$/m);
});

test("a deploy build over 8 MiB of document is refused; the CLI, with its higher limit, makes it", async () => {
  const source = snapshot();
  source.vaults = Array.from({ length: 13_000 }, (_, i) => ({ ...source.vaults[i % 48]!, vault_slug: `v-${i}`, note: "n".repeat(300) }));
  source.edges = [];
  const file = join(work, "large.json");
  writeFileSync(file, JSON.stringify(source));
  const [registry, build] = await everyCommand(file, false);
  assert.is(registry!.code, 0, registry!.stderr);
  assert.ok(registry!.stdout > MAX_DEPLOY_DOCUMENT_BYTES);
  oneLine(build!, /^build failed: the document (would be over|is) .*; the limit is 8 MiB$/m);
});

test("a source file over 64 MiB is refused unread", async () => {
  const file = join(work, "huge.json");
  writeFileSync(file, "");
  truncateSync(file, 65 * 1024 * 1024);
  for (const result of await everyCommand(file)) oneLine(result, /the file is 65 MiB; the limit is 64 MiB$/m);
});

test("20,000 repeated keys nested 20,000 deep: the first 50 problems and a count, one run, no stack", async () => {
  const file = join(work, "nested.json");
  const inner = `${'{"a":1,"a":'.repeat(20_000)}1${"}".repeat(20_000)}`;
  writeFileSync(file, readFileSync("fixtures/registry.json", "utf8").replace(/^\{/, `{"internal":${inner},`));
  const [registry] = await everyCommand(file);
  assert.is(registry!.code, 1);
  const lines = registry!.stderr.trim().split("\n");
  assert.is(lines.length, 51, registry!.stderr.slice(0, 500));
  assert.match(lines[50]!, /and \d+ more problems \(the first 50 are shown\)$/);
  assert.not.match(registry!.stderr, /\n\s+at |RangeError/);
});

test.run();
