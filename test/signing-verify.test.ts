/**
 * `verify --keys FILE [--state FILE]` against a signed build's fetch artifact over HTTP, in
 * process: a pass, and a state that catches a rollback; another key fails on the signature.
 */
import { createServer, type Server } from "node:http";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runKeygen } from "../node/builder/keygen.ts";
import { runVerify } from "../node/verify/command.ts";
import { verify as verifyDeployment } from "../node/verify/verify.ts";
import { cleanEnv, runCommand } from "./process.ts";
import { buildFirst } from "./first-build.ts";

const work = mkdtempSync(join(tmpdir(), "registry-signing-verify-"));
const servers: Server[] = [];
test.after(() => {
  for (const s of servers) s.close();
  rmSync(work, { recursive: true, force: true });
});

/** Serves the fetch artifact of `out` on 127.0.0.1; its base URL. */
async function serve(out: string): Promise<string> {
  const app = (await import(pathToFileURL(join(out, "fetch/index.mjs")).href)) as {
    default: { fetch(r: Request): Promise<Response> };
  };
  const server = createServer(async (req, res) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const answer = await app.default.fetch(
      new Request(`http://127.0.0.1${req.url}`, { method: req.method ?? "GET", headers }),
    );
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const BASE = "https://registry.example.org";
const day = (n: number) => String(1795262400 + n * 86_400);

test("verify --keys passes a signed build, --state catches a rollback, another key fails", async () => {
  const keys = await runCommand(runKeygen, [join(work, "a.pem")], { cwd: work });
  writeFileSync(join(work, "keys.json"), keys.stdout);
  const other = await runCommand(runKeygen, [join(work, "b.pem")], { cwd: work });
  writeFileSync(join(work, "other.json"), other.stdout);
  const pem = readFileSync(join(work, "a.pem"), "utf8");
  const build = (out: string, n: number) =>
    buildFirst(["--source", "fixtures/registry.json", "--base-url", BASE, "--out", out], {
      env: cleanEnv({ SOURCE_DATE_EPOCH: day(n), REGISTRY_SIGNING_KEY: pem }),
    });
  assert.is((await build(join(work, "new"), 3)).code, 0);
  assert.is((await build(join(work, "old"), 2)).code, 0);
  const fresh = await serve(join(work, "new"));
  const stale = await serve(join(work, "old"));
  const state = join(work, "state.json");
  const verify = (at: string, keyFile: string) =>
    runCommand(runVerify, [at, "--expect-base", BASE, "--keys", keyFile, "--state", state], { cwd: work });
  const pass = await verify(fresh, "keys.json");
  const text = pass.stdout.toString("utf8");
  assert.is(pass.code, 0, text);
  assert.match(text, /manifest: signature, issuer, version, seq and exp \| pass/);
  assert.match(text, /manifest: digest of every file read/);
  const kept = JSON.parse(readFileSync(state, "utf8"));
  assert.is(kept[`${BASE} v1`].seq, Number(day(3)));
  const rollback = await verify(stale, "keys.json");
  assert.is(rollback.code, 1);
  assert.match(rollback.stdout.toString("utf8"), /manifest: rollback \| FAIL/);
  assert.is(JSON.parse(readFileSync(state, "utf8"))[`${BASE} v1`].seq, Number(day(3)), "a failed run keeps the state");
  const wrong = await verify(fresh, "other.json");
  assert.is(wrong.code, 1);
  assert.match(wrong.stdout.toString("utf8"), /manifest: signature \| FAIL/);
  assert.is((await runCommand(runVerify, [fresh, "--state", state], { cwd: work })).code, 2);
  // The state is looked up by the version /vaults.json serves, the one it is kept under.
  const asked: number[] = [];
  const checks = await verifyDeployment(fresh, {
    expectBase: BASE,
    keys: JSON.parse(readFileSync(join(work, "keys.json"), "utf8")),
    state: (version) => (asked.push(version), kept[`${BASE} v${version}`]),
  });
  assert.equal(asked, [1]);
  assert.ok(
    checks.some((c) => /manifest: signature, issuer, version, seq and exp/.test(c.name) && c.result === "pass"),
  );
});

test.run();
