/**
 * examples/catch-up.ts across the history sequence (`fixtures/history/`), as an operator deploys it:
 * each source built with `npm run build -- --previous` the build before, its Node server
 * (`DIR/node/server.mjs`) started, and the example run on Node and on Deno, each keeping its own
 * copy. After every build, each copy equals the served document's vaults and edges, and each run
 * made one request (the feed) except the first (the document).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runBuild } from "../node/build/build.ts";
import { historySteps } from "./cases.ts";
import { cleanEnv, run, runCommand } from "./process.ts";
import { startServer } from "./servers.ts";

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

test("deno check accepts the example as it is", async () => {
  const checked = await run("node_modules/.bin/deno", ["check", "examples/catch-up.ts"], { env, timeoutMs: 60_000 });
  assert.is(checked.code, 0, checked.stderr);
});

test("across the history: each copy equals the served vaults and edges after every build, one request per run after the first", async () => {
  let previous: string | null = null;
  for (const [i, step] of historySteps.entries()) {
    const out = join(work, `build-${i}`);
    const epoch = String(Date.parse(step.builtAt) / 1000);
    const built = await runCommand(runBuild, [
      "--source",
      step.fixture,
      "--base-url",
      "https://registry.example.org",
      "--out",
      out,
      ...(previous === null ? [] : ["--previous", previous]),
    ], { env: cleanEnv({ SOURCE_DATE_EPOCH: epoch }) });
    assert.is(built.code, 0, `${step.name}: ${built.stderr}`);
    previous = out;
    const document = JSON.parse(readFileSync(join(out, "static/api/registry.v1.json"), "utf8")) as {
      vaults: unknown;
      edges: unknown;
    };
    const served = { vaults: document.vaults, edges: document.edges };
    const server = await startServer(
      "node",
      [join(out, "node/server.mjs")],
      cleanEnv({ HOST: "127.0.0.1", PORT: "0" }),
      60_000,
    );
    try {
      for (const [name, command, args] of RUNTIMES) {
        const copyFile = join(work, `copy-${name}.json`);
        const done = await run(command, [...args, server.origin, copyFile], { env, timeoutMs: 60_000 });
        assert.is(done.code, 0, `${step.name} on ${name}: ${done.stderr}`);
        const said = done.stdout.toString();
        const expected = i === 0
          ? /^fetched the document: no local copy yet \(1 request\)/
          : step.name.includes("no-change")
          ? /^up to date: the feed has not changed \(1 request\)/
          : /^applied 1 item \(1 request\)/;
        assert.match(said, expected, `${step.name} on ${name}: ${said}`);
        const copy = JSON.parse(readFileSync(copyFile, "utf8")) as { vaults: unknown; edges: unknown };
        assert.equal(
          { vaults: copy.vaults, edges: copy.edges },
          served,
          `${step.name} on ${name}: the copy is the served document's vaults and edges`,
        );
      }
    } finally {
      await server.stop();
    }
  }
});

test.run();
