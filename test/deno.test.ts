/**
 * Deno as it is: in a copy of the repository with no node_modules and an empty DENO_DIR, the
 * README's `deno serve --host 127.0.0.1 --port 8787 --allow-env=BASE_URL,SOURCE_DATE_EPOCH handler.ts`
 * (on a free port instead of 8787) answers the CLI's exact bytes (deno.json maps hono to the npm
 * registry at the lockfile's version); `deno check`, `deno lint` and `deno publish --dry-run` pass
 * on what Deno loads and what JSR would publish.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { copyRepository } from "./files.ts";
import { cleanEnv, run, runCli } from "./process.ts";
import { fetchRaw, startServer } from "./servers.ts";

const ROOT = resolve(".");
const DENO = join(ROOT, "node_modules", ".bin", "deno");
const work = mkdtempSync(join(tmpdir(), "registry-deno-"));
const copy = join(work, "checkout");
const env = cleanEnv({ DENO_DIR: join(work, "deno-dir"), NO_COLOR: "1", SOURCE_DATE_EPOCH: "1795800000" });

test.before(() => {
  copyRepository(ROOT, copy);
});
test.after(() => rmSync(work, { recursive: true, force: true }));

test("deno.json pins hono to the lockfile's version, with an npm: specifier", () => {
  const deno = JSON.parse(readFileSync("deno.json", "utf8")) as {
    imports: Record<string, string>;
    name: string;
    version: string;
    exports: Record<string, string>;
  };
  const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as {
    packages: Record<string, { version: string }>;
  };
  assert.equal(deno.imports, { "hono/": `npm:/hono@${lock.packages["node_modules/hono"]?.version}/` });
  assert.equal(deno.exports, { ".": "./registry.ts", "./handler": "./handler.ts", "./client": "./client/client.ts" });
  assert.is(deno.version, (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version);
});

test("the README's deno serve line, in a checkout with no node_modules, answers the CLI's bytes on 127.0.0.1", async () => {
  assert.not.ok(existsSync(join(copy, "node_modules")), "the copy has no node_modules");
  const line = /^\*\*Deno\.\*\* `(deno serve [^`]+)`/m.exec(readFileSync("README.md", "utf8"))?.[1];
  assert.ok(line !== undefined, "the README's Deno paragraph opens with a deno serve command");
  // deno serve defaults to port 8000 on every interface: the README states both.
  assert.match(line, / --host 127\.0\.0\.1 --port 8787 /);
  const args = line.replace(" --port 8787 ", " --port 0 ").split(" ").slice(1);
  const server = await startServer(DENO, args, env, 120_000, {
    cwd: copy,
    ready: /Listening on (?:\x1b\[\d+m)*(http:\/\/127\.0\.0\.1:\d+)/,
  });
  try {
    const answer = await fetchRaw(`${server.origin}/vaults.json`, { headers: { "accept-encoding": "identity" } });
    assert.is(answer.status, 200);
    const expected = await runCli(["fixtures/registry.json"], { SOURCE_DATE_EPOCH: env["SOURCE_DATE_EPOCH"] });
    assert.is(expected.code, 0, expected.stderr);
    assert.ok(answer.body.equals(Buffer.from(expected.stdout)), "the bytes of the CLI");
  } finally {
    await server.stop();
  }
  assert.not.ok(existsSync(join(copy, "node_modules")), "deno made no node_modules");
  assert.ok(
    existsSync(join(work, "deno-dir", "npm", "registry.npmjs.org", "hono")),
    "hono came from the npm registry into DENO_DIR",
  );
});

test("deno check, deno lint and deno publish --dry-run pass on the copy", async () => {
  const web = ["handler.ts", "registry.ts", "http/", "assembly/", "feed/", "contract/", "client/"];
  for (const args of [["check", "handler.ts", "registry.ts"], ["lint"], ["publish", "--dry-run"]]) {
    const done = await run(DENO, args, { cwd: copy, env, timeoutMs: 180_000 });
    assert.is(done.code, 0, `deno ${args.join(" ")}:\n${done.stderr}`);
    if (args[0] === "lint") assert.match(done.stderr, /Checked \d+ files/);
  }
  const lint = JSON.parse(readFileSync("deno.json", "utf8")) as { lint: { include: string[] } };
  assert.equal(lint.lint.include, web, "lint covers every module Deno loads");
});

test.run();
