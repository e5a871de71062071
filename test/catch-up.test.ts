/**
 * examples/catch-up.ts (a thin command over the consumer kit's `sync`) across the history sequence
 * (`fixtures/history/`), as an operator deploys it: each source built with `--previous` the build
 * before, its Node server (`DIR/node/server.mjs`) started, and the example run on Node and on Deno,
 * each keeping its own copy file. After every build each copy file is the served document's bytes
 * exactly; the first run fetches the feed and the document, each later one only the feed; a second
 * run against the same deployment is one request, answered 304. A failure is one line and exit 1; a
 * usage error exit 2. (test/client.test.ts runs the kit itself on Node, Deno, Bun and workerd.)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { type HistoryStep, historySteps } from "./cases.ts";
import { cleanEnv, run, runCommand } from "./process.ts";
import { startServer } from "./servers.ts";
import { buildFirst } from "./first-build.ts";

const work = mkdtempSync(join(tmpdir(), "registry-catch-up-"));
const env = cleanEnv({ HOME: work, DENO_DIR: join(work, "deno"), DENO_NO_UPDATE_CHECK: "1" });
test.after(() => rmSync(work, { recursive: true, force: true }));

const RUNTIMES = [
  ["node", "node", ["--import", "tsx", "examples/catch-up.ts"]],
  ["deno", "node_modules/.bin/deno", [
    "run",
    "--allow-net=127.0.0.1",
    `--allow-read=${work}`,
    `--allow-write=${work}`,
    "examples/catch-up.ts",
  ]],
] as const;

/** Runs the example on `runtime` with `args`, and returns its exit code and what it said. */
async function example(runtime: (typeof RUNTIMES)[number], args: readonly string[]) {
  const [, command, prefix] = runtime;
  const done = await run(command, [...prefix, ...args], { env, timeoutMs: 60_000 });
  return { code: done.code, stdout: done.stdout.toString(), stderr: done.stderr };
}

test("deno check accepts the example as it is", async () => {
  const checked = await run("node_modules/.bin/deno", ["check", "examples/catch-up.ts"], { env, timeoutMs: 60_000 });
  assert.is(checked.code, 0, checked.stderr);
});

test("across the history: each copy file is the served bytes after every build; one request per run after the first, 304 when nothing changed", async () => {
  let previous: string | null = null;
  for (const [i, step] of historySteps.entries()) {
    const out = join(work, `build-${i}`);
    // SOURCE_DATE_EPOCH wins over the built_at a rebuild that changes nothing keeps: the no-change step is
    // built at its predecessor's time, as its golden keeps it, so that it publishes nothing new.
    const unchanged = step.name.includes("no-change");
    const builtAt = unchanged ? (historySteps[i - 1] as HistoryStep).builtAt : step.builtAt;
    const built = await buildFirst([
      "--source",
      step.fixture,
      "--base-url",
      "https://registry.example.org",
      "--out",
      out,
      ...(previous === null ? [] : ["--previous", previous]),
    ], { env: cleanEnv({ SOURCE_DATE_EPOCH: String(Date.parse(builtAt) / 1000) }) });
    assert.is(built.code, 0, `${step.name}: ${built.stderr}`);
    previous = out;
    const document = readFileSync(join(out, "static", "api", "registry.v1.json"));
    const server = await startServer(
      "node",
      [join(out, "node", "server.mjs")],
      cleanEnv({ HOST: "127.0.0.1", PORT: "0" }),
      60_000,
    );
    try {
      for (const runtime of RUNTIMES) {
        const [name] = runtime;
        const copyFile = join(work, `copy-${name}.json`);
        const done = await example(runtime, [server.origin, copyFile]);
        assert.is(done.code, 0, `${step.name} on ${name}: ${done.stderr}`);
        assert.is(done.stderr, "", `${step.name} on ${name}: nothing on stderr`);
        const expected = i === 0
          ? /^fetched the document: no local copy yet \(2 requests\); \d+ vaults, \d+ edges as of \S+\n$/
          : unchanged
          ? /^up to date: the feed has not changed \(1 request\)/
          : /^caught up by the feed \(1 request\)/;
        assert.match(done.stdout, expected, `${step.name} on ${name}: ${done.stdout}`);
        assert.ok(readFileSync(copyFile).equals(document), `${step.name} on ${name}: the copy is the served bytes`);
        assert.ok(existsSync(`${copyFile}.feed-etag`), `${step.name} on ${name}: the feed's ETag kept`);
        if (i === 0 || i === historySteps.length - 1) {
          const again = await example(runtime, [server.origin, copyFile]);
          assert.is(again.code, 0, again.stderr);
          assert.match(again.stdout, /^up to date: the feed has not changed \(1 request\)/, `${name}: ${again.stdout}`);
          assert.ok(readFileSync(copyFile).equals(document), `${step.name} on ${name}: the copy is unchanged`);
        }
      }
      if (i === historySteps.length - 1) {
        // A failure is one line naming the request by host and path, and exit 1; a usage error exit 2.
        for (const runtime of RUNTIMES) {
          const failed = await example(runtime, [`${server.origin}/elsewhere`, join(work, "elsewhere.json")]);
          assert.is(failed.code, 1, failed.stderr);
          assert.is(
            failed.stderr,
            `catch-up: GET ${
              new URL(server.origin).host
            }/elsewhere/api/registry.v1.changes.json: HTTP 404, expected 200\n`,
          );
          const usage = await example(runtime, [server.origin]);
          assert.equal([usage.code, usage.stderr], [2, "usage: catch-up.ts <base-url> <copy-file>\n"]);
        }
      }
    } finally {
      await server.stop();
    }
  }
});

test.run();
