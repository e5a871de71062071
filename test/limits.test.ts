/**
 * Every input has a stated limit (contract/limits.ts), checked before the work that would exceed
 * it: the issue's reproductions through every command, each refused in one line naming the figure
 * and the limit, with no stack trace and nothing written.
 */
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  BASE_RECORDS,
  LimitError,
  MAX_DEPLOY_DOCUMENT_BYTES,
  MAX_INTERNAL_KEY_LENGTH,
  MAX_NESTING_DEPTH,
  MAX_STRING_LENGTH,
  maxRecords,
  RECORD_BYTES,
  sizeOf,
} from "../contract/limits.ts";
import { contextOf } from "../contract/version-policy.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { buildRegistry, serializeRegistry, validateSource } from "../registry.ts";
import { cleanEnv, run } from "./process.ts";

const OPTIONS = contextOf(VERSIONS[0]!, { baseUrl: "https://registry.example.org", builtAt: "2026-11-21T12:00:00Z" });
const work = mkdtempSync(join(tmpdir(), "registry-limits-"));
test.after(() => rmSync(work, { recursive: true, force: true }));
const env = cleanEnv({ BASE_URL: "https://registry.example.org", HOST: "127.0.0.1", PORT: "0" });
const snapshot = () =>
  JSON.parse(readFileSync("fixtures/registry.json", "utf8")) as {
    labels: { class: Record<string, string> };
    vaults: Record<string, unknown>[];
    edges: unknown[];
  };

/**
 * Every command that reads a source, on `file`: exit code and stderr of each. `npm start` only
 * where it must refuse: one that starts would run until its time limit.
 */
async function everyCommand(
  file: string,
  start = true,
): Promise<{ command: string; code: number | null; stderr: string; stdout: number }[]> {
  const commands: [string, string[], NodeJS.ProcessEnv][] = [
    ["registry", ["node/bin/registry.ts", file], env],
    ["build", ["node/bin/build.ts", "--source", file, "--out", join(work, "dist"), "--new-history", "--unsigned"], env],
    ...(start
      ? [
        ["npm start", ["node/bin/serve.ts"], { ...env, REGISTRY_SOURCE: file }] as [
          string,
          string[],
          NodeJS.ProcessEnv,
        ],
      ]
      : []),
  ];
  const results = [];
  for (const [command, args, commandEnv] of commands) {
    const done = await run("node", ["--import", "tsx", ...args], { env: commandEnv, timeoutMs: 120_000 });
    results.push({ command, code: done.code, stderr: done.stderr, stdout: done.stdout.length });
  }
  return results;
}

function oneLine(
  result: { command: string; code: number | null; stderr: string; stdout: number },
  pattern: RegExp,
): void {
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
  source.vaults = Array.from(
    { length: 600 },
    (_, i) => ({ ...source.vaults[i % 48]!, vault_slug: `v-${i}`, class: raw }),
  );
  source.edges = [];
  const file = join(work, "long-label.json");
  writeFileSync(file, JSON.stringify(source));
  for (const result of await everyCommand(file)) {
    oneLine(
      result,
      new RegExp(`labels\\.class.*expected at most ${MAX_STRING_LENGTH} characters \\(this string has 1000000\\)`),
    );
  }
});

test("labels under the string limit that make the document too big: refused before the document is made", async () => {
  const source = snapshot();
  const raw = source.vaults[0]!["class"] as string;
  source.labels.class[raw] = "L".repeat(MAX_STRING_LENGTH);
  source.vaults = Array.from(
    { length: 3000 },
    (_, i) => ({ ...source.vaults[i % 48]!, vault_slug: `v-${i}`, class: raw }),
  );
  source.edges = [];
  const file = join(work, "big-document.json");
  writeFileSync(file, JSON.stringify(source));
  const [registry, build, start] = await everyCommand(file);
  oneLine(registry!, /the document would be over 18\d\.\d MiB; the limit is 128 MiB$/m);
  oneLine(build!, /^build failed: the document would be over .*; the limit is 128 MiB$/m);
  oneLine(start!, /^big-document\.json: the document would be over .*; the limit is 128 MiB$/m);
});

test("a deploy build over the 8 MiB the function artifacts embed writes the static export alone, and says so in one line", async () => {
  const source = snapshot();
  source.vaults = Array.from(
    { length: 13_000 },
    (_, i) => ({ ...source.vaults[i % 48]!, vault_slug: `v-${i}`, note: "n".repeat(300) }),
  );
  source.edges = [];
  const file = join(work, "large.json");
  writeFileSync(file, JSON.stringify(source));
  const [registry, build] = await everyCommand(file, false);
  assert.is(registry!.code, 0, registry!.stderr);
  assert.ok(registry!.stdout > MAX_DEPLOY_DOCUMENT_BYTES);
  assert.is(build!.code, 0, build!.stderr);
  assert.match(
    build!.stderr,
    /^left out node\/server\.mjs, fetch\/index\.mjs and lambda\/index\.mjs: a document of [\d.]+ MiB is over the 8 MiB they embed; static\/ serves it/m,
  );
});

test("a source file over 64 MiB is refused unread", async () => {
  const file = join(work, "huge.json");
  writeFileSync(file, "");
  truncateSync(file, 65 * 1024 * 1024);
  for (const result of await everyCommand(file)) oneLine(result, /the file is 65 MiB; the limit is 64 MiB$/m);
});

test("nesting deeper than the limit inside an internal value: refused in one line before parsing, by every command", async () => {
  const file = join(work, "nested.json");
  const inner = `${'{"a":1,"a":'.repeat(20_000)}1${"}".repeat(20_000)}`;
  writeFileSync(file, readFileSync("fixtures/registry.json", "utf8").replace(/^\{/, `{"internal":${inner},`));
  for (const result of await everyCommand(file)) {
    oneLine(
      result,
      new RegExp(
        `nested\\.json: nesting deeper than ${MAX_NESTING_DEPTH} objects and arrays \\(line 1, column \\d+\\); the limit is ${MAX_NESTING_DEPTH}$`,
        "m",
      ),
    );
  }
});

test("a flat array of many small objects in an internal value: refused in one line by its weight, before parsing", async () => {
  const file = join(work, "flat.json");
  writeFileSync(
    file,
    readFileSync("fixtures/registry.json", "utf8").replace(/^\{/, `{"internal":[${"{},".repeat(300_000)}{}],`),
  );
  for (const result of await everyCommand(file)) {
    oneLine(
      result,
      /flat\.json: too many values for the file's size: they weigh \d+ \(an object or array 4, any other value 1\); the limit for .* is \d+$/m,
    );
  }
});

test("vaults and edges past the record limit for the file's size: refused in one line after parsing, before validating; at the limit, valid", async () => {
  // Small rows, padded by an internal string to a size whose limit is exactly the rows declared.
  const rows = BASE_RECORDS + 12_000;
  const bytes = (rows - BASE_RECORDS) * RECORD_BYTES;
  const head = `{"registry_schema_version":"1","generated_at":"2026-11-14T08:30:00Z","source_inventory_sha":"${
    "a".repeat(40)
  }","internal_keys":["internal"],`;
  const sourceOf = (vaults: number, edges: number, size: number): string => {
    const vaultText = Array.from(
      { length: vaults },
      (_, i) => `{"vault_slug":"v${i}","display_name":"V","status":"active"}`,
    ).join(",");
    const edgeText = Array.from({ length: edges }, (_, i) => `{"source":"v0","target":"v1","type":"t${i}"}`).join(",");
    const text = `${head}"vaults":[${vaultText}],"edges":[${edgeText}],"internal":""}`;
    return text.replace(/""}$/, `"${"x".repeat(size - text.length)}"}`);
  };
  const atLimit = sourceOf(rows - 2, 2, bytes);
  assert.is(maxRecords(Buffer.byteLength(atLimit)), rows);
  const file = join(work, "rows.json");
  writeFileSync(file, atLimit);
  const [registry] = await everyCommand(file, false);
  assert.is(registry!.code, 0, registry!.stderr);
  // One more edge, the file the same size: over by one, refused by every command.
  writeFileSync(file, sourceOf(rows - 2, 3, bytes));
  const expected = new RegExp(
    `rows\\.json: too many vaults and edges for the file's size: ${rows + 1}; the limit for ${
      sizeOf(bytes).replace(".", "\\.")
    } is ${rows} \\(${BASE_RECORDS} plus one per ${RECORD_BYTES} bytes\\)$`,
    "m",
  );
  for (const result of await everyCommand(file)) oneLine(result, expected);
});

test("internal key names beside the source: a name over the limit in INTERNAL_KEYS is refused by every command in one line naming the variable; --internal-keys declares", async () => {
  const source = snapshot();
  source.vaults[0]!["sync_owner"] = "SECRET-owner";
  const file = join(work, "declared.json");
  writeFileSync(file, JSON.stringify(source));
  const long = `x${"k".repeat(MAX_INTERNAL_KEY_LENGTH)}`;
  const refused = async (value: string) => {
    const results = [];
    for (
      const [command, args, commandEnv] of [
        ["registry", ["node/bin/registry.ts", file], { ...env, INTERNAL_KEYS: value }],
        ["build", ["node/bin/build.ts", "--source", file, "--out", join(work, "dist"), "--new-history", "--unsigned"], {
          ...env,
          INTERNAL_KEYS: value,
        }],
        ["npm start", ["node/bin/serve.ts"], { ...env, REGISTRY_SOURCE: file, INTERNAL_KEYS: value }],
      ] as [string, string[], NodeJS.ProcessEnv][]
    ) {
      const done = await run("node", ["--import", "tsx", ...args], { env: commandEnv, timeoutMs: 120_000 });
      results.push({ command, code: done.code, stderr: done.stderr, stdout: done.stdout.length });
    }
    return results;
  };
  for (const result of await refused(`sync_owner, ${long}`)) {
    oneLine(
      result,
      new RegExp(
        `^INTERNAL_KEYS\\[1\\]: expected a key name of 1 to ${MAX_INTERNAL_KEY_LENGTH} characters, got ${
          MAX_INTERNAL_KEY_LENGTH + 1
        }$`,
        "m",
      ),
    );
  }
  const flag = await run("node", ["--import", "tsx", "node/bin/registry.ts", file, "--internal-keys", "sync_owner"], {
    env,
    timeoutMs: 120_000,
  });
  assert.is(flag.code, 0, flag.stderr);
  assert.not.ok(
    flag.stdout.toString().includes("SECRET") || flag.stdout.toString().includes("sync_owner"),
    "declared by the flag, neither name nor value is published",
  );
  const undeclared = await run("node", ["--import", "tsx", "node/bin/registry.ts", file], { env, timeoutMs: 120_000 });
  oneLine(
    { command: "registry", code: undeclared.code, stderr: undeclared.stderr, stdout: undeclared.stdout.length },
    /^.*declared\.json: vaults\[0\]\.sync_owner: undeclared key: not a key of a vault; if it is internal/m,
  );
});

test("a pipe or a device is counted as it is read: over 64 MiB is refused in one line, never read whole", async () => {
  const cases = [
    ["registry", "node --import tsx node/bin/registry.ts <(head -c 70000000 /dev/zero)"],
    ["registry", "head -c 70000000 /dev/zero | node --import tsx node/bin/registry.ts /dev/stdin"],
    ["registry", "node --import tsx node/bin/registry.ts /dev/zero"],
    [
      "build",
      `node --import tsx node/bin/build.ts --source <(yes) --out ${join(work, "dist-pipe")} --new-history --unsigned`,
    ],
  ];
  for (const [command, line] of cases) {
    const done = await run("bash", ["-c", line!], { env, timeoutMs: 120_000 });
    oneLine(
      { command: command!, code: done.code, stderr: done.stderr, stdout: done.stdout.length },
      /the file is over 64 MiB \(reading stopped there\); the limit is 64 MiB$/m,
    );
  }
  // Under the limit, a pipe is read whole.
  const piped = await run("bash", [
    "-c",
    "cat fixtures/registry.json | node --import tsx node/bin/registry.ts /dev/stdin",
  ], { env, timeoutMs: 120_000 });
  assert.is(piped.code, 0, piped.stderr);
});

test("characters that JSON escapes count escaped against the document limit: refused before the text is made", () => {
  const result = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
  assert.ok(result.ok);
  if (!result.ok) return;
  const note = "\u0001".repeat(1000);
  const source = { ...result.source, vaults: result.source.vaults.map((v) => ({ ...v, suppressed: false, note })) };
  const document = buildRegistry(source, OPTIONS);
  const limit = 200 * 1024;
  // 48 notes of 1,000 control characters: 48 KB as strings, 288 KB as JSON text; without them the
  // document is far under the limit, so only counting them escaped refuses it before stringifying.
  assert.ok(
    serializeRegistry(
      buildRegistry({ ...source, vaults: source.vaults.map((v) => ({ ...v, note: "x".repeat(1000) })) }, OPTIONS),
      limit,
    ).byteLength < limit,
  );
  // Refused by the measure alone: the text of a document over its limit is never made (escaped, it may be many times
  // the limit: a hostile source's 0.5 MiB of labels made a 750 MiB text, and memory to match, when it was).
  const stringify = JSON.stringify;
  let texts = 0;
  JSON.stringify = ((...args: Parameters<typeof stringify>) => (texts++, stringify(...args))) as typeof stringify;
  try {
    assert.throws(
      () => serializeRegistry(document, limit),
      (error: Error) =>
        error instanceof LimitError &&
        /^the document would be over \d+\.\d KiB; the limit is 200 KiB$/.test(error.message),
    );
  } finally {
    JSON.stringify = stringify;
  }
  assert.is(texts, 0, "no text made of a document over the limit");
});

test.run();
