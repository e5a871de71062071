/**
 * examples/consumer.ts, run as a consumer would run it, on Node (tsx) and on Deno (checked, then
 * run with network access to 127.0.0.1 only): against `npm start`, and against a lifecycle build in
 * which v1 is deprecated, where it warns once and names the successor.
 */
import { serve, type ServerType } from "@hono/node-server";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createApp } from "../http/app.ts";
import { prepareBuild } from "../assembly/prepare.ts";
import { zlibCompress } from "../node/common/compress.ts";
import { readSourceFile } from "../node/common/source-file.ts";
import { GOLDEN_OPTIONS } from "./cases.ts";
import { cleanEnv, run } from "./process.ts";
import { startServer } from "./servers.ts";
import { TEST_TABLE, V2 } from "./v2.ts";

/** What `npm start` serves: the embedded snapshot's golden document. */
const snapshot = JSON.parse(readFileSync("golden/registry.json", "utf8")) as {
  vault_count: number;
  vaults: { display_name: string }[];
};
const home = mkdtempSync(join(tmpdir(), "registry-consumer-"));
const env = cleanEnv({ HOME: home, DENO_DIR: join(home, "deno"), DENO_NO_UPDATE_CHECK: "1" });
test.after(() => rmSync(home, { recursive: true, force: true }));

/** The example on each runtime, against `origin`: exit code, stdout and stderr. */
async function consume(origin: string): Promise<{ runtime: string; code: number | null; out: string; err: string }[]> {
  const results = [];
  for (
    const [runtime, command, args] of [
      ["node", "node", ["--import", "tsx", "examples/consumer.ts", origin]],
      ["deno", "node_modules/.bin/deno", ["run", "--allow-net=127.0.0.1", "examples/consumer.ts", origin]],
    ] as const
  ) {
    const done = await run(command, args, { env, timeoutMs: 60_000 });
    results.push({ runtime, code: done.code, out: done.stdout.toString(), err: done.stderr });
  }
  return results;
}

test("deno check accepts the example as it is", async () => {
  const checked = await run("node_modules/.bin/deno", ["check", "examples/consumer.ts"], { env, timeoutMs: 60_000 });
  assert.is(checked.code, 0, checked.stderr);
});

test("against npm start: the count, the first vault's name, and a 304 on revalidation; no warning", async () => {
  const server = await startServer(
    "node",
    ["--import", "tsx", "node/bin/serve.ts"],
    cleanEnv({ HOST: "127.0.0.1", PORT: "0" }),
    60_000,
  );
  try {
    for (const result of await consume(server.origin)) {
      assert.is(result.code, 0, `${result.runtime}: ${result.err}`);
      assert.is(
        result.out,
        `vault_count: ${snapshot.vault_count}\nvaults[0].display_name: ${
          snapshot.vaults[0]!.display_name
        }\nrevalidated: 304, the copy is current\n`,
        result.runtime,
      );
      assert.is(result.err, "", `${result.runtime}: no warning for a current version`);
    }
  } finally {
    await server.stop();
  }
});

test("against a build where v1 is deprecated: one warning per run, naming the successor and the sunset", async () => {
  const source = await readSourceFile("fixtures/registry.json");
  if (!("ok" in source)) throw new Error(source.problems.join("\n"));
  const build = await prepareBuild(source.ok, { baseUrl: GOLDEN_OPTIONS.baseUrl, builtAt: "2027-03-01T00:00:00Z" }, {
    compress: zlibCompress,
  }, TEST_TABLE);
  const server = await new Promise<ServerType>((listening) => {
    const s = serve({ fetch: createApp(build).fetch, hostname: "127.0.0.1", port: 0 }, () => listening(s));
  });
  try {
    const { port } = server.address() as AddressInfo;
    for (const result of await consume(`http://127.0.0.1:${port}`)) {
      assert.is(result.code, 0, `${result.runtime}: ${result.err}`);
      assert.ok(result.out.startsWith(`vault_count: ${snapshot.vault_count}\n`), result.runtime);
      const warnings = result.err.split("\n").filter((line) => line.startsWith("registry: "));
      assert.equal(warnings, [
        `registry: http://127.0.0.1:${port}/api/registry.v1.json is deprecated and stops serving on Tue, 01 Jun 2027 00:00:00 GMT; move to ${GOLDEN_OPTIONS.baseUrl}${V2.path}`,
      ], result.runtime);
    }
  } finally {
    await new Promise((closed) => server.close(closed));
  }
});

test("without a base URL: one usage line, exit 2, on both runtimes", async () => {
  for (
    const [command, args] of [["node", ["--import", "tsx", "examples/consumer.ts"]], ["node_modules/.bin/deno", [
      "run",
      "examples/consumer.ts",
    ]]] as const
  ) {
    const done = await run(command, args, { env, timeoutMs: 60_000 });
    assert.is(done.code, 2, command);
    assert.is(done.stderr.trim(), "usage: consumer.ts <base-url>");
  }
});

test.run();
