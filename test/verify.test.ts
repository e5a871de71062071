/** `npm run verify`: passes on the real server, fails on a deployment that names another base, knows static hosts. */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { answerer } from "../http/answer.ts";
import { prepareBuild } from "../http/prepare.ts";
import { answerListener } from "../node/answer-server.ts";
import { verify as checks } from "../node/verify.ts";
import { validateSource } from "../registry.ts";
import { cleanEnv, run } from "./process.ts";
import { startServer } from "./servers.ts";
import { TEST_TABLE } from "./v2.ts";

const verify = (args: string[]) => run("node", ["--import", "tsx", "node/bin/verify.ts", ...args], { env: cleanEnv(), timeoutMs: 60_000 });
const work = mkdtempSync(join(tmpdir(), "registry-verify-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

test("the Node server, built for the base URL it is reached at, passes every check; exit 0", async () => {
  const probe = createServer();
  const origin = await listen(probe);
  await close(probe);
  const port = new URL(origin).port;
  const server = await startServer("node", ["--import", "tsx", "node/server.ts"], cleanEnv({ HOST: "127.0.0.1", PORT: port, BASE_URL: origin }));
  try {
    const result = await verify([server.origin]);
    const out = result.stdout.toString();
    assert.is(result.code, 0, out);
    assert.match(out, /^\| check \| result \| detail \|$/m);
    assert.not.match(out, /\| (FAIL|warn) \|/);
    assert.match(out, /^\d+ passed, 0 warned, 0 failed$/m);
  } finally {
    await server.stop();
  }
});

test("a deployment built for another base URL fails: about, every row's url, and Link; exit 1", async () => {
  const server = await startServer("node", ["--import", "tsx", "node/server.ts"], cleanEnv({ HOST: "127.0.0.1", PORT: "0", BASE_URL: "https://staging.example.org" }));
  try {
    const result = await verify([server.origin]);
    const out = result.stdout.toString();
    assert.is(result.code, 1, out);
    assert.match(out, /^\| about names http:\/\/127\.0\.0\.1:\d+ \| FAIL \| canonical_url: https:\/\/staging\.example\.org\/vaults\.json/m);
    assert.match(out, /^\| every row's url and markdown_url start with .* \| FAIL \|/m);
    assert.match(out, /^\| Link: rel=describedby names .* \| FAIL \|/m);
  } finally {
    await server.stop();
  }
});

test("a deployment whose two paths disagree fails; exit 1", async () => {
  const golden = readFileSync("golden/registry.json");
  const other = Buffer.from(golden.toString().replace('"vault_count": 48', '"vault_count": 47'));
  const fake: Server = createServer((req, res) => {
    const body = req.url?.startsWith("/vaults.json") ? golden : other;
    res.writeHead(200, { "content-type": "application/json", etag: `"${createHash("sha256").update(body).digest("hex")}"`, "access-control-allow-origin": "*" });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  const origin = await listen(fake);
  try {
    const result = await verify([origin]);
    const out = result.stdout.toString();
    assert.is(result.code, 1, out);
    assert.match(out, /^\| identical bytes on both paths \| FAIL \|/m);
    assert.match(out, /^\| strong ETag, the same on both paths \| FAIL \|/m);
  } finally {
    await close(fake);
  }
});

/** A static host as common ones behave: files of a folder, `; charset=utf-8`, weak ETags from size and mtime, `_headers` applied. */
function staticHost(dir: string): Server {
  return createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] as string;
    const file = join(dir, path);
    if (!existsSync(file) || statSync(file).isDirectory()) return void res.writeHead(404).end();
    const stat = statSync(file);
    const etag = `W/"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
    const headers: Record<string, string> = { "content-type": `${extname(file) === ".json" && path.includes("schema") ? "application/schema+json" : "application/json"}; charset=utf-8`, etag };
    const rules = readFileSync(join(dir, "_headers"), "utf8").split("\n\n").map((block) => block.split("\n"));
    for (const [target, ...lines] of rules) {
      if (target === path) for (const line of lines.filter((l) => l.trim() !== "")) headers[line.trim().split(": ")[0] as string] = line.trim().split(": ").slice(1).join(": ");
    }
    headers["content-type"] = `${headers["content-type"]?.split(";")[0]}; charset=utf-8`;
    if (req.headers["if-none-match"] === etag) return void res.writeHead(304, headers).end();
    res.writeHead(200, headers).end(req.method === "HEAD" ? undefined : readFileSync(file));
  });
}

test("dist/static on a static host: charset and weak ETags are warnings, with --static or detected; exit 0", async () => {
  const probe = createServer();
  const origin = await listen(probe);
  await close(probe);
  const out = join(work, "dist");
  const built = await run("node", ["--import", "tsx", "node/build.ts", "--source", "fixtures/registry.json", "--base-url", origin, "--out", out], { env: cleanEnv(), timeoutMs: 120_000 });
  assert.is(built.code, 0, built.stderr);
  const host = staticHost(join(out, "static"));
  await new Promise<void>((resolve) => host.listen(Number(new URL(origin).port), "127.0.0.1", resolve));
  try {
    for (const args of [[origin, "--static"], [origin]]) {
      const result = await verify(args);
      const text = result.stdout.toString();
      assert.is(result.code, 0, text);
      assert.match(text, /^\| Content-Type is application\/json \| warn \|/m);
      assert.match(text, /^\| strong ETag, the same on both paths \| warn \|/m);
      assert.not.match(text, /\| FAIL \|/);
      assert.match(text, /^\d+ passed, [1-9]\d* warned, 0 failed$/m);
    }
  } finally {
    await close(host);
  }
});

test("--help, a bad flag and a bad argument: help and exit 0, one line and exit 2", async () => {
  const help = await verify(["--help"]);
  assert.is(help.code, 0);
  for (const text of ["usage: npm run verify -- <base-url> [--static]", "--static", "Exit codes"]) assert.ok(help.stdout.toString().includes(text), text);
  for (const args of [[], ["ftp://x"], ["a", "b"], ["https://x.example", "--colour"]]) {
    const result = await verify(args);
    assert.is(result.code, 2, args.join(" "));
    assert.is(result.stderr.split("\n").filter(Boolean).length, 1, result.stderr);
    assert.not.match(result.stderr, /\n\s+at /);
  }
});

test.run();

test("verify judges every version by the table as of today: a deprecated version must say so, a sunset one must be gone", async () => {
  const server = createServer();
  const origin = await listen(server);
  try {
    const source = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
    assert.ok(source.ok);
    const build = await prepareBuild(source.source, { baseUrl: origin, builtAt: "2027-03-01T00:00:00Z" }, {}, TEST_TABLE);
    server.on("request", answerListener(answerer(build)));
    const failed = (list: { name: string; result: string }[]) => list.filter((c) => c.result === "fail").map((c) => c.name);
    assert.equal(failed(await checks(origin, { table: TEST_TABLE, now: new Date("2027-03-02T00:00:00Z") })), []);
    const late = await checks(origin, { table: TEST_TABLE, now: new Date("2027-06-02T00:00:00Z") });
    assert.equal(failed(late), ["v1 (/api/registry.v1.json) is past its sunset (2027-06-01) and answers 410"]);
    assert.match(late.find((c) => c.result === "fail")?.detail ?? "", /^200 \(rebuild: a build made before the sunset keeps serving it\)$/);
  } finally {
    await close(server);
  }
});
