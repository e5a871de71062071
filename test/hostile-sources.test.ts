/**
 * Hostile sources as raw text, through the CLI's code path and the real server: deep nesting, huge
 * arrays and strings, numbers where strings belong, prototype keys, lone surrogates, repeated keys.
 * Never a throw or a hang, never an invalid source accepted, never a polluted prototype; refused
 * with exit 1, nothing on stdout, and no server listening.
 */
import { MAX_NESTING_DEPTH, MAX_STRING_LENGTH } from "../contract/limits.ts";
import fc from "fast-check";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { findDuplicateKeys } from "../node/common/json-error.ts";
import { fcParams, nearValidSource, validSource } from "./arbitraries.ts";
import { isValidSource, nestsDeeperThan } from "./oracle.ts";
import { cleanEnv, run, runCli } from "./process.ts";

const work = mkdtempSync(join(tmpdir(), "registry-hostile-"));
const ARGS = ["--base-url", "https://registry.example.org", "--built-at", "2026-11-21T12:00:00Z"];
let counter = 0;

async function cliOn(text: string): Promise<Awaited<ReturnType<typeof runCli>>> {
  const file = join(work, `source-${counter++}.json`);
  writeFileSync(file, text);
  return runCli([file, ...ARGS], {});
}

/** The text with its first `"key":` repeated, so the object holding it has the key twice. */
const repeatFirstKey = (text: string): string =>
  text.replace(/"([a-z_]+)":("[^"]*"|\d+|true|false|null),/, (m) => `${m}${m}`);

const hostileText = fc.oneof(
  nearValidSource.map((v) => JSON.stringify(v)),
  validSource.map((v) => JSON.stringify(v)),
  validSource.map((v) => repeatFirstKey(JSON.stringify(v, null, 1))),
  fc.jsonValue({ maxDepth: 8 }).map((v) => JSON.stringify(v)),
  validSource.map((v) => JSON.stringify(v).replace(/"display_name":"/, '"display_name":"\\ud800')),
  // Own keys named __proto__ and constructor (an object literal's __proto__ would set the prototype).
  validSource.map((v) =>
    JSON.stringify(
      Object.fromEntries([
        ["__proto__", { polluted: true }],
        ["constructor", { prototype: { polluted: true } }],
        ...Object.entries(v),
      ]),
    )
  ),
  fc.integer({ min: 1_000, max: 100_000 }).map((d) => `{"vaults": ${"[".repeat(d)}${"]".repeat(d)}, "edges": []}`),
  fc.integer({ min: 1_000, max: 50_000 }).map((d) => `${'{"a":'.repeat(d)}1${"}".repeat(d)}`),
  fc.string({ maxLength: 200 }),
);

test("the CLI on hostile text: accepts exactly the valid sources, else exit 1 with nothing on stdout", async () => {
  const before = Object.getOwnPropertyNames(Object.prototype).join();
  await fc.assert(
    fc.asyncProperty(hostileText, async (text) => {
      const result = await cliOn(text);
      let valid = false;
      try {
        const value: unknown = JSON.parse(text);
        valid = isValidSource(value) && !nestsDeeperThan(value, MAX_NESTING_DEPTH) &&
          findDuplicateKeys(text).length === 0;
      } catch {
        valid = false; // not JSON at all
      }
      if (valid) {
        assert.is(result.code, 0, result.stderr);
        assert.ok(result.stdout.length > 0);
      } else {
        assert.is(result.code, 1, "refused");
        assert.is(result.stdout.length, 0, "nothing on stdout");
        assert.ok(result.stderr.length > 0, "says why");
        assert.not.match(result.stderr, /\n\s+at \S/, "no stack trace");
      }
      assert.is(Object.getOwnPropertyNames(Object.prototype).join(), before, "Object.prototype untouched");
      assert.is(({} as Record<string, unknown>)["polluted"], undefined);
    }),
    { ...fcParams, numRuns: fcParams.numRuns * 2 },
  );
});

test("huge inputs are answered, not hung on: 200k-element arrays (over the record limit), 30k problems, 5 MB strings", async () => {
  const base = {
    registry_schema_version: "1",
    generated_at: "2026-11-14T08:30:00Z",
    source_inventory_sha: "a".repeat(40),
    edges: [],
  };
  const tooMany = await cliOn(JSON.stringify({ ...base, vaults: new Array(200_000).fill(null) }));
  assert.is(tooMany.code, 1);
  assert.match(
    tooMany.stderr,
    /^[^\n]*: too many vaults and edges for the file's size: 200000; the limit for [^\n]* is \d+ \(\d+ plus one per \d+ bytes\)\n$/,
    "one line, before validating",
  );
  const nulls = await cliOn(JSON.stringify({ ...base, vaults: new Array(30_000).fill(null) }));
  assert.is(nulls.code, 1);
  const lines = nulls.stderr.split("\n").slice(0, -1);
  assert.is(lines.length, 51, "50 problems, then a count of the rest");
  assert.match(lines[50] as string, /: and 29950 more problems \(the first 50 are shown\)$/);
  const atLimit = await cliOn(
    JSON.stringify({
      ...base,
      vaults: [{ vault_slug: "a", display_name: "x".repeat(MAX_STRING_LENGTH), status: "active" }],
    }),
  );
  assert.is(atLimit.code, 0, "a name at the string limit is valid");
  const long = await cliOn(
    JSON.stringify({ ...base, vaults: [{ vault_slug: "a", display_name: "x".repeat(5_000_000), status: "active" }] }),
  );
  assert.is(long.code, 1, "a 5 MB name is over the string limit");
  assert.match(
    long.stderr,
    new RegExp(
      `vaults\\[0\\]\\.display_name: expected at most ${MAX_STRING_LENGTH} characters \\(this string has 5000000\\)`,
    ),
  );
  assert.ok(long.stderr.length < 500, "the message quotes a bounded excerpt of the value");
  const longBad = await cliOn(
    JSON.stringify({
      ...base,
      vaults: [{ vault_slug: "a".repeat(5_000_000) + "-", display_name: "x", status: "active" }],
    }),
  );
  assert.is(longBad.code, 1);
  assert.ok(longBad.stderr.length < 500, "the message quotes a bounded excerpt of the value");
});

test("npm start on hostile sources: exit 1, nothing listening", async () => {
  const sources = [
    `{"vaults": ${"[".repeat(50_000)}${"]".repeat(50_000)}, "edges": []}`,
    '{"registry_schema_version": 1, "generated_at": 2, "source_inventory_sha": 3, "vaults": 4, "edges": 5}',
    repeatFirstKey(
      JSON.stringify({
        registry_schema_version: "1",
        generated_at: "2026-11-14T08:30:00Z",
        source_inventory_sha: "a".repeat(40),
        vaults: [],
        edges: [],
      }),
    ),
  ];
  for (const text of sources) {
    const file = join(work, `server-${counter++}.json`);
    writeFileSync(file, text);
    const result = await run("node", ["--import", "tsx", "node/bin/serve.ts"], {
      env: cleanEnv({ HOST: "127.0.0.1", PORT: "0", REGISTRY_SOURCE: file }),
      timeoutMs: 30_000,
    });
    assert.is(result.code, 1, text.slice(0, 80));
    assert.not.match(result.stdout.toString(), /listening/);
    assert.ok(result.stderr.length > 0);
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test.run();
