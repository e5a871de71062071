/**
 * `verify --keys FILE [--state FILE]` against a signed build's fetch artifact over HTTP, in
 * process: a pass, and a state that catches a rollback; another key fails on the signature; the
 * state keeps the whole files map (equivocation) and an older state still works. Then servers that
 * pass requests to two builds: true bytes only to a request with a query (verify asks only the
 * URLs consumers ask, so it fails), a deploy in progress (it passes after fetching again past
 * caches), and one build's manifest on the no-cache request beside the other's files (every file
 * is checked against that one manifest, so it fails). A `--keys` URL is named by host and path only.
 */
import { createServer, type Server } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/** The fetch artifact of `out`, imported. */
async function appOf(out: string): Promise<(request: Request) => Promise<Response>> {
  const app = (await import(pathToFileURL(join(out, "fetch/index.mjs")).href)) as {
    default: { fetch(r: Request): Promise<Response> };
  };
  return (request) => app.default.fetch(request);
}

/**
 * Serves on 127.0.0.1 what `answer` gives for each request (asked without Accept-Encoding, the
 * identity bytes, unless `codings`); its base URL, and every request's path and query, with
 * "no-cache" after it when it said Cache-Control: no-cache.
 */
async function proxy(
  answer: (request: Request) => Promise<Response>,
  codings = false,
): Promise<{ base: string; asked: string[] }> {
  const asked: string[] = [];
  const server = createServer(async (req, res) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === "string" && (codings || k !== "accept-encoding")) headers.set(k, v);
    }
    asked.push(`${req.url}${headers.get("cache-control") === "no-cache" ? " no-cache" : ""}`);
    const got = await answer(new Request(`http://127.0.0.1${req.url}`, { method: req.method ?? "GET", headers }));
    const body = Buffer.from(await got.arrayBuffer());
    const sent = Object.fromEntries([...got.headers].filter(([k]) => k !== "content-length"));
    res.writeHead(got.status, { ...sent, ...(req.method === "HEAD" ? {} : { "content-length": body.length }) });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

/** Two builds a day apart (A before B), signed with one key, and the key set that verifies them. */
const twoBuilds = (async () => {
  const keys = await runCommand(runKeygen, [join(work, "ab.pem")], { cwd: work });
  writeFileSync(join(work, "ab.json"), keys.stdout);
  const pem = readFileSync(join(work, "ab.pem"), "utf8");
  const outs = { a: join(work, "build-a"), b: join(work, "build-b") };
  for (const [out, n] of [[outs.a, 5], [outs.b, 6]] as const) {
    const built = await buildFirst(
      ["--source", "fixtures/registry.json", "--base-url", BASE, "--out", out],
      { env: cleanEnv({ SOURCE_DATE_EPOCH: day(n), REGISTRY_SIGNING_KEY: pem }) },
    );
    assert.is(built.code, 0, built.stderr);
  }
  return { a: await appOf(outs.a), b: await appOf(outs.b), keyFile: "ab.json", outs };
})();

const MANIFEST = "/api/registry.v1.manifest.json";
const DOCUMENTS = ["/vaults.json", "/api/registry.v1.json"];
const digestRow = /^\| manifest: digest of every file read \(\d+\) \| (pass|FAIL) \| (.*) \|$/m;
const runAgainst = (base: string, keyFile: string, more: string[] = []) =>
  runCommand(runVerify, [base, "--expect-base", BASE, "--keys", keyFile, ...more], { cwd: work });

test("a proxy that serves the true bytes only to a request with a query: verify fails on the digest, asking no URL consumers do not", async () => {
  const { a, keyFile } = await twoBuilds;
  const { base, asked } = await proxy(async (request) => {
    const answer = await a(request);
    const url = new URL(request.url);
    if (url.search !== "" || !DOCUMENTS.includes(url.pathname) || answer.status !== 200) return answer;
    // Still JSON, still the same value: only the bytes differ.
    const altered = Buffer.concat([Buffer.from(" "), Buffer.from(await answer.arrayBuffer())]);
    return new Response(altered, { status: 200, headers: answer.headers });
  });
  const run = await runAgainst(base, keyFile);
  const out = run.stdout.toString("utf8");
  assert.is(run.code, 1, out);
  const row = digestRow.exec(out);
  assert.is(row?.[1], "FAIL", out);
  assert.match(row?.[2] ?? "", /differs, fetched again past caches: \/vaults\.json, \/api\/registry\.v1\.json/);
  // Fetched again from the same URLs, past caches: never another URL.
  assert.ok(asked.includes(`${MANIFEST} no-cache`), asked.join("\n"));
  assert.ok(DOCUMENTS.every((p) => asked.includes(`${p} no-cache`)), asked.join("\n"));
  assert.equal(asked.filter((u) => u.includes("?")), []);
});

test("a proxy that serves altered documents to every request but one past caches (no-cache): verify fails on the digest and keeps no state", async () => {
  const { a, keyFile } = await twoBuilds;
  const { base } = await proxy(async (request) => {
    const answer = await a(request);
    const path = new URL(request.url).pathname;
    if (request.headers.get("cache-control") === "no-cache" || !DOCUMENTS.includes(path) || answer.status !== 200) {
      return answer;
    }
    const altered = Buffer.concat([Buffer.from(" "), Buffer.from(await answer.arrayBuffer())]);
    return new Response(altered, { status: 200, headers: answer.headers });
  });
  const state = join(work, "cache-only-state.json");
  const run = await runAgainst(base, keyFile, ["--state", state]);
  const out = run.stdout.toString("utf8");
  assert.is(run.code, 1, out);
  const row = digestRow.exec(out);
  assert.is(row?.[1], "FAIL", out);
  assert.match(
    row?.[2] ?? "",
    /right only past caches: consumers are served other bytes \(a cache or proxy\): \/vaults\.json, \/api\/registry\.v1\.json/,
  );
  assert.not.ok(existsSync(state), "nothing accepted");
});

test("a proxy that alters the documents for one way of asking alone (a coding, an Accept header, a stale revalidation): verify fails naming it and keeps no state", async () => {
  const { a, keyFile } = await twoBuilds;
  const ways: [string, (request: Request) => boolean][] = [
    ["identity", (r) => r.headers.get("accept-encoding") === "identity"],
    ["br", (r) => r.headers.get("accept-encoding") === "br"],
    ["a browser's codings", (r) => r.headers.get("accept-encoding")?.includes("zstd") === true],
    ["Accept: application/json", (r) => r.headers.get("accept") === "application/json"],
    ["a stale If-None-Match", (r) => r.headers.get("if-none-match") === '"00000000000000000000000000000000"'],
  ];
  for (const [how, matches] of ways) {
    const { base } = await proxy(async (request) => {
      const answer = await a(request);
      const path = new URL(request.url).pathname;
      if (!matches(request) || !DOCUMENTS.includes(path) || answer.status !== 200) return answer;
      // The identity bytes with a space before them, still JSON, sent without a coding.
      const identity = await a(new Request(request.url));
      const altered = Buffer.concat([Buffer.from(" "), Buffer.from(await identity.arrayBuffer())]);
      const headers = new Headers(answer.headers);
      headers.delete("content-encoding");
      return new Response(altered, { status: 200, headers });
    }, true);
    const state = join(work, `asked-${how.replace(/\W+/g, "-")}-state.json`);
    const run = await runAgainst(base, keyFile, ["--state", state]);
    const out = run.stdout.toString("utf8");
    assert.is(run.code, 1, out);
    assert.is(digestRow.exec(out)?.[1], "pass", "as fetched first, the bytes are right");
    const row =
      /^\| manifest: digest of every file read as consumers ask for it \(each coding, Accept, a stale If-None-Match\) \| FAIL \| (.*) \|$/m
        .exec(out);
    assert.is(
      row?.[1],
      `other bytes when asked so (a cache or proxy): /vaults.json (${how}), /api/registry.v1.json (${how})`,
      out,
    );
    assert.not.ok(existsSync(state), "nothing accepted");
  }
});

test("a deploy in progress (B's files beside A's cached manifest) passes after fetching the manifest again past caches, and B is kept", async () => {
  const { a, b, keyFile } = await twoBuilds;
  const { base, asked } = await proxy((request) => {
    const path = new URL(request.url).pathname;
    return (path === MANIFEST && request.headers.get("cache-control") !== "no-cache" ? a : b)(request);
  });
  const state = join(work, "progress-state.json");
  const run = await runAgainst(base, keyFile, ["--state", state]);
  const out = run.stdout.toString("utf8");
  assert.is(run.code, 0, out);
  assert.is(digestRow.exec(out)?.[1], "pass", out);
  assert.ok(asked.includes(`${MANIFEST} no-cache`), asked.join("\n"));
  assert.is(JSON.parse(readFileSync(state, "utf8"))[`${BASE} v1`].seq, Number(day(6)));
});

test("B's manifest on the no-cache request, A's documents on every request: a mix of two builds fails on the digest", async () => {
  const { a, b, keyFile } = await twoBuilds;
  const { base } = await proxy((request) => {
    const path = new URL(request.url).pathname;
    const fresh = request.headers.get("cache-control") === "no-cache";
    // One file of B sets the digest check off; then only the manifest moves on.
    if (path === MANIFEST) return (fresh ? b : a)(request);
    return (path === "/api/registry.v1.changes.json" ? b : a)(request);
  });
  const run = await runAgainst(base, keyFile);
  const out = run.stdout.toString("utf8");
  const row = digestRow.exec(out);
  assert.is(row?.[1], "FAIL", out);
  assert.match(row?.[2] ?? "", /\/vaults\.json, \/api\/registry\.v1\.json/);
  assert.not.match(row?.[2] ?? "", /changes\.json/);
});

test("--state: the same seq with another files map is equivocation; a state written before files were kept still works", async () => {
  const { a, keyFile } = await twoBuilds;
  const { base } = await proxy(a);
  const state = join(work, "files-state.json");
  const key = `${BASE} v1`;
  assert.is((await runAgainst(base, keyFile, ["--state", state])).code, 0);
  const kept = JSON.parse(readFileSync(state, "utf8"))[key];
  assert.match(kept.filesSha256, /^[0-9a-f]{64}$/);
  // The older form, { seq, iat, sha256 }: accepted, and written back with the files' digest.
  const { filesSha256, ...older } = kept;
  writeFileSync(state, JSON.stringify({ [key]: older }));
  assert.is((await runAgainst(base, keyFile, ["--state", state])).code, 0);
  assert.equal(JSON.parse(readFileSync(state, "utf8"))[key], kept);
  // The same document, but other files were accepted at this seq.
  writeFileSync(
    state,
    JSON.stringify({
      [key]: { ...kept, filesSha256: filesSha256.replace(/^./, (c: string) => c === "0" ? "1" : "0") },
    }),
  );
  const run = await runAgainst(base, keyFile, ["--state", state]);
  assert.is(run.code, 1);
  assert.match(
    run.stdout.toString("utf8"),
    /\| manifest: equivocation \| FAIL \| seq \d+ again, with other files than the ones last accepted \|/,
  );
  writeFileSync(state, JSON.stringify({ [key]: { ...kept, filesSha256: "not hex" } }));
  const damaged = await runAgainst(base, keyFile, ["--state", state]);
  assert.is(damaged.code, 1);
  assert.match(damaged.stderr, /an entry that is not \{ seq, iat, sha256, filesSha256 \}/);
});

test("--keys URL: named by host and path only, never its user name, password, query or fragment", async () => {
  const { a, outs } = await twoBuilds;
  const { base } = await proxy(a);
  const keysServer = await proxy(async (request) =>
    new URL(request.url).pathname === "/keys.json"
      ? new Response(readFileSync(join(outs.a, "static", "api", "registry.keys.json")))
      : new Response("no", { status: 404 })
  );
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const host = new URL(keysServer.base).host;
  const SECRET = /s3cret|token|frag|user:/;
  const cases: [string, number, RegExp][] = [
    [
      `http://user:s3cret@${host}/keys.json`,
      2,
      new RegExp(`^--keys ${host}/keys\\.json: a URL with a user name or password is not fetched \\(usage: `),
    ],
    [
      `${keysServer.base}/missing.json?token=s3cret#frag`,
      1,
      new RegExp(`^--keys ${host}/missing\\.json: answered 404\n$`),
    ],
    [
      `http://127.0.0.1:${closedPort}/keys.json?token=s3cret`,
      1,
      new RegExp(`^--keys GET 127\\.0\\.0\\.1:${closedPort}/keys\\.json: connection refused`),
    ],
  ];
  for (const [location, code, message] of cases) {
    const run = await runAgainst(base, location);
    const err = run.stderr;
    assert.is(run.code, code, err);
    assert.match(err, message);
    assert.not.match(err, SECRET, err);
    assert.is(run.stdout.toString("utf8"), "");
  }
  // Keys read from the deployment itself: a warning naming the path, and the run passes.
  const own = await runAgainst(base, `${base}/api/registry.keys.json?token=s3cret#frag`);
  const out = own.stdout.toString("utf8");
  assert.is(own.code, 0, out);
  assert.match(
    out,
    /\| pinned keys \| warn \| warning: --keys \/api\/registry\.keys\.json is on the deployment's own origin/,
  );
  assert.not.match(out + own.stderr, SECRET);
  const passing = await runAgainst(base, `${keysServer.base}/keys.json?token=s3cret`);
  assert.is(passing.code, 0, passing.stdout.toString("utf8"));
  assert.not.match(passing.stdout.toString("utf8"), SECRET);
});

test.run();
