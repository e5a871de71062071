/**
 * The consumer kit (client/client.ts) on Node, Deno, Bun and workerd against real builds: the
 * history sequence (`fixtures/history/`), each source built with `--previous` the build before and
 * served by its own `DIR/node/server.mjs`. Each runtime runs the kit in one process for the whole
 * test (Deno and Bun serve a small driver, workerd runs it bundled as a Worker without
 * nodejs_compat; Node calls it in this process), keeping its own copy. After every build each copy
 * is the served document's bytes exactly; a second run against the same deployment is one request,
 * answered 304 (the server's own log counts them); a copy from a restarted history refetches; a
 * stale feed waits. `checkManifest` runs in the same driver on each runtime against a build signed
 * with a key from `keygen` (the manifest and the document fetched from its server): it passes with
 * the pinned key and with the served key set, the document's SHA-256 matches its listing and a
 * changed byte does not, and another key, another issuer, a rollback, an equivocation (of the
 * document, and of the whole files map) and an expired signature each fail with their reason. The kit's bounds and messages, and every
 * kind of run, are in sync.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { sync, type SyncResult } from "../client/client.ts";
import { runKeygen } from "../node/builder/keygen.ts";
import { type HistoryStep, historySteps } from "./cases.ts";
import { cleanEnv, runCommand } from "./process.ts";
import { type Running, serveWorkerd, startServer } from "./servers.ts";
import { buildFirst } from "./first-build.ts";

const ROOT = resolve(".");
const BASE_URL = "https://registry.example.org";
const work = mkdtempSync(join(tmpdir(), "registry-client-"));
const env = cleanEnv({ HOME: work, DENO_DIR: join(work, "deno"), DENO_NO_UPDATE_CHECK: "1" });

/** What a runtime's run of `sync` gave: the result, its bytes in base64, or the error's line. */
interface Outcome {
  readonly kind?: SyncResult["kind"];
  readonly why?: string | null;
  readonly requests?: number;
  readonly feedEtag?: string | null;
  readonly bytes?: string | null;
  readonly error?: string;
}

/**
 * The driver each other runtime serves (and Node imports): a POST of { base, copy, feedEtag } runs
 * `sync` once; a POST of { op: "check", base, checks } fetches the signed manifest and the document
 * from `base` and runs `checkManifest` once per check ({ keys, expect }; keys "served" are the
 * deployment's own key set), then `fileMatches` on the document and on a copy with one byte changed.
 */
const DRIVER = `import { checkManifest, fileMatches, sync } from ${JSON.stringify(join(ROOT, "client", "client.ts"))};
const b64 = (bytes) => { let s = ""; for (const b of bytes) s += String.fromCharCode(b); return btoa(s); };
const unb64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
async function check(base, checks) {
  const get = async (path) => {
    const res = await fetch(base + path);
    if (res.status !== 200) throw new Error(path + ": HTTP " + res.status);
    return new Uint8Array(await res.arrayBuffer());
  };
  const manifest = await get("/api/registry.v1.manifest.json");
  const served = JSON.parse(new TextDecoder().decode(await get("/api/registry.keys.json")));
  const document = await get("/api/registry.v1.json");
  const changed = document.slice();
  changed[changed.length >> 1] ^= 1;
  const results = [];
  for (const { keys, expect } of checks) {
    const r = await checkManifest(manifest, keys === "served" ? served : keys, expect);
    results.push(r.ok
      ? {
        ok: true,
        seq: r.seq,
        listed: Object.keys(r.files).length,
        matches: await fileMatches(r.files, "/api/registry.v1.json", document),
        changed: await fileMatches(r.files, "/api/registry.v1.json", changed),
      }
      : { ok: false, reason: r.reason });
  }
  return results;
}
export default {
  async fetch(request) {
    const body = await request.json();
    if (body.op === "check") {
      try {
        return Response.json({ results: await check(body.base, body.checks) });
      } catch (error) {
        return Response.json({ error: error.name + ": " + error.message });
      }
    }
    const { base, copy, feedEtag } = body;
    try {
      const r = await sync(base, copy === null ? undefined : unb64(copy), { feedEtag, timeoutMs: 20000 });
      const bytes = r.kind === "updated" || r.kind === "fetched" ? b64(r.bytes) : null;
      return Response.json({ kind: r.kind, why: r.why ?? null, requests: r.requests, feedEtag: r.feedEtag, bytes });
    } catch (error) {
      return Response.json({ error: error.name + ": " + error.message });
    }
  },
};
`;

type Call = (base: string, copy: Buffer | null, feedEtag: string | null) => Promise<Outcome>;

/** Node: the kit in this process. */
const node: Call = async (base, copy, feedEtag) => {
  try {
    const r = await sync(base, copy === null ? undefined : new Uint8Array(copy), { feedEtag });
    const bytes = r.kind === "updated" || r.kind === "fetched" ? Buffer.from(r.bytes).toString("base64") : null;
    const why = r.kind === "fetched" ? r.why : null;
    return { kind: r.kind, why, requests: r.requests, feedEtag: r.feedEtag, bytes };
  } catch (error: unknown) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
};

/** A runtime serving the driver at `origin`. */
const served = (origin: string): Call => async (base, copy, feedEtag) => {
  const res = await fetch(origin, {
    method: "POST",
    body: JSON.stringify({ base, copy: copy?.toString("base64") ?? null, feedEtag }),
  });
  return (await res.json()) as Outcome;
};

const runtimes: [string, Call][] = [["node", node]];
/** The catch-up mutation group runs the kit on Node alone, once per mutant: the others run the same code. */
const NODE_ONLY = process.env["CLIENT_NODE_ONLY"] === "1";
/** Where each other runtime serves the driver. */
const runtimeOrigins: [string, string][] = [];
const stops: (() => Promise<unknown>)[] = [];

/** workerd serving `module` without nodejs_compat, fetching only loopback addresses, its port read from its control fd. */
async function startWorkerd(module: string): Promise<{ origin: string; stop: () => Promise<void> }> {
  const dir = join(work, "workerd");
  writeFileSync(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .driver), (name = "loopback", network = (allow = ["local"])) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);
const driver :Workerd.Worker = (
  modules = [ (name = "index.mjs", esModule = embed "${module}") ],
  compatibilityDate = "2025-09-01",
  globalOutbound = "loopback",
);
`,
  );
  return await serveWorkerd(dir, env);
}

test.before(async () => {
  writeFileSync(join(work, "driver.mjs"), DRIVER);
  if (NODE_ONLY) return;
  mkdirSync(join(work, "workerd"));
  await build({
    entryPoints: [join(work, "driver.mjs")],
    outfile: join(work, "workerd", "index.mjs"),
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    logLevel: "warning",
  });
  // The three start side by side: this machine has two cores, and each mostly waits.
  const [deno, bun, workerd] = await Promise.all([
    startServer(
      "node_modules/.bin/deno",
      [
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--allow-net=127.0.0.1",
        join(work, "driver.mjs"),
      ],
      env,
      60_000,
      { ready: /Listening on (?:\x1b\[\d+m)*(http:\/\/127\.0\.0\.1:\d+)/ },
    ),
    startServer("node_modules/.bin/bun", ["test/runtimes/bun-serve.ts", join(work, "driver.mjs")], env, 60_000),
    startWorkerd("index.mjs"),
  ]);
  stops.push(() => deno.stop(), () => bun.stop(), () => workerd.stop());
  runtimes.push(["deno", served(deno.origin)], ["bun", served(bun.origin)], ["workerd", served(workerd.origin)]);
  runtimeOrigins.push(["deno", deno.origin], ["bun", bun.origin], ["workerd", workerd.origin]);
});
test.after(async () => {
  await Promise.all(stops.map((stop) => stop()));
  rmSync(work, { recursive: true, force: true });
});

/** Builds `fixture` at `builtAt` into `out`, carrying on `previous` (or starting a new history). */
async function buildStep(fixture: string, builtAt: string, out: string, previous: string | null): Promise<void> {
  const built = await buildFirst([
    "--source",
    fixture,
    "--base-url",
    BASE_URL,
    "--out",
    out,
    ...(previous === null ? [] : ["--previous", previous]),
  ], { env: cleanEnv({ SOURCE_DATE_EPOCH: String(Date.parse(builtAt) / 1000) }) });
  assert.is(built.code, 0, `${fixture}: ${built.stderr}`);
}

/** The build in `out` served by its own Node server, logging each request. */
function serve(out: string): Promise<Running> {
  return startServer(
    "node",
    [join(out, "node", "server.mjs")],
    cleanEnv({ HOST: "127.0.0.1", PORT: "0", LOG_REQUESTS: "1" }),
  );
}

/** The requests the server logged: method, path and status. */
function logged(server: Running): { method: string; path: string; status: number }[] {
  return server.output().split("\n").filter((line) => line.startsWith("{")).map((line) => {
    const { method, path, status } = JSON.parse(line) as { method: string; path: string; status: number };
    return { method, path, status };
  });
}

/** The server's log once it holds `count` requests (its lines arrive through a pipe), within 5 s. */
async function loggedAtLeast(server: Running, count: number): Promise<ReturnType<typeof logged>> {
  for (let waited = 0; logged(server).length < count && waited < 5_000; waited += 20) {
    await new Promise((done) => setTimeout(done, 20));
  }
  return logged(server);
}

/** Each runtime's copy: its bytes and the feed's ETag last seen. */
const copies = new Map<string, { bytes: Buffer | null; feedEtag: string | null }>();
/** Each runtime's copy of the first build, kept to catch up across the whole history at once. */
const firstCopies = new Map<string, Buffer>();
const builds: string[] = [];

/** Runs `sync` on every runtime with its copy; asserts what each did and keeps what it gave. */
async function round(
  server: Running,
  label: string,
  expect: { kind: SyncResult["kind"]; why?: string; requests: number },
  document: Buffer,
): Promise<number> {
  let requests = 0;
  for (const [name, call] of runtimes) {
    const held = copies.get(name) ?? { bytes: null, feedEtag: null };
    const got = await call(server.origin, held.bytes, held.feedEtag);
    const what = `${label} on ${name}`;
    assert.is(got.error, undefined, `${what}: ${got.error}`);
    assert.equal(
      { kind: got.kind, requests: got.requests, ...(expect.why === undefined ? {} : { why: got.why }) },
      expect,
      what,
    );
    const bytes = typeof got.bytes === "string" ? Buffer.from(got.bytes, "base64") : held.bytes;
    if (expect.kind !== "wait") {
      assert.ok(bytes?.equals(document), `${what}: the copy is the served document's bytes exactly`);
    }
    copies.set(name, { bytes, feedEtag: got.feedEtag ?? null });
    requests += got.requests ?? 0;
  }
  return requests;
}

test("across the history, on node, deno, bun and workerd: each copy is the served bytes after every build; a second run is one request answered 304", async () => {
  for (const [i, step] of historySteps.entries()) {
    const out = join(work, `build-${i}`);
    // SOURCE_DATE_EPOCH wins over the built_at a rebuild that changes nothing keeps: the no-change step is
    // built at its predecessor's time, as its golden keeps it, so that it publishes nothing new.
    const unchanged = step.name.includes("no-change");
    const builtAt = unchanged ? (historySteps[i - 1] as HistoryStep).builtAt : step.builtAt;
    await buildStep(step.fixture, builtAt, out, builds.at(-1) ?? null);
    builds.push(out);
    const document = readFileSync(join(out, "static", "api", "registry.v1.json"));
    const server = await serve(out);
    try {
      const expect = i === 0
        ? { kind: "fetched" as const, why: "no copy", requests: 2 }
        : unchanged
        ? { kind: "unchanged" as const, requests: 1 }
        : { kind: "updated" as const, requests: 1 };
      const made = await round(server, step.name, expect, document);
      if (i === 0) { for (const [name, { bytes }] of copies) firstCopies.set(name, bytes as Buffer); }
      const again = await round(server, `${step.name}, run again`, { kind: "unchanged", requests: 1 }, document);
      const log = await loggedAtLeast(server, made + again);
      assert.is(log.length, made + again, `${step.name}: the server saw the requests the runtimes counted`);
      assert.equal(
        log.slice(made),
        runtimes.map(() => ({ method: "GET", path: "/api/registry.v1.changes.json", status: 304 })),
        `${step.name}: the server answered each runtime's second run once, 304`,
      );
      if (i === historySteps.length - 1) {
        // A copy of the first build catches up across every item at once, with no document fetched.
        for (const [name, call] of runtimes) {
          const got = await call(server.origin, firstCopies.get(name) as Buffer, null);
          assert.equal([got.kind, got.requests], ["updated", 1], `${name}: from the first build`);
          assert.ok(Buffer.from(got.bytes as string, "base64").equals(document), `${name}: from the first build`);
        }
      }
    } finally {
      await server.stop();
    }
  }
});

/** What the driver's check op gave on one runtime. */
interface Checked {
  readonly results?: readonly Record<string, unknown>[];
  readonly error?: string;
}

test("checkManifest on node, deno, bun and workerd against a signed build: pinned or served keys pass and the document matches; each failure has its reason", async () => {
  const keys = join(work, "keys");
  mkdirSync(keys);
  const made = await runCommand(runKeygen, [join(keys, "signing.pem")], { cwd: keys });
  assert.is(made.code, 0, made.stderr);
  const other = await runCommand(runKeygen, [join(keys, "other.pem")], { cwd: keys });
  assert.is(other.code, 0, other.stderr);
  const pinned = JSON.parse(made.stdout.toString("utf8"));
  const out = join(work, "signed");
  const builtAt = Date.parse("2026-11-21T12:00:00Z") / 1000;
  const built = await buildFirst(
    ["--source", "fixtures/registry.json", "--base-url", BASE_URL, "--out", out],
    {
      env: cleanEnv({
        SOURCE_DATE_EPOCH: String(builtAt),
        REGISTRY_SIGNING_KEY: readFileSync(join(keys, "signing.pem"), "utf8"),
      }),
    },
  );
  assert.is(built.code, 0, built.stderr);
  const manifest = JSON.parse(readFileSync(join(out, "static", "api", "registry.v1.manifest.json"), "utf8"));
  const { exp } = JSON.parse(Buffer.from(manifest.payload, "base64url").toString("utf8")) as { exp: number };
  const expect = { baseUrl: BASE_URL, version: 1 };
  const checks = [
    { keys: pinned, expect },
    { keys: "served", expect },
    { keys: JSON.parse(other.stdout.toString("utf8")), expect },
    { keys: pinned, expect: { baseUrl: "https://elsewhere.example", version: 1 } },
    { keys: pinned, expect: { ...expect, lastSeq: builtAt + 1 } },
    { keys: pinned, expect: { ...expect, lastSeq: builtAt, lastSha256: "0".repeat(64) } },
    { keys: pinned, expect: { ...expect, lastSeq: builtAt, lastFilesSha256: "0".repeat(64) } },
    { keys: pinned, expect: { ...expect, now: exp + 301 } },
  ];
  // Six files listed: the document, schema, description, both feeds and /vaults.json (what every artifact serves).
  const passed = { ok: true, seq: builtAt, listed: 6, matches: true, changed: false };
  const expected = [
    passed,
    passed,
    ...["signature", "issuer", "rollback", "equivocation", "equivocation", "expired"].map((reason) => ({
      ok: false,
      reason,
    })),
  ];
  // Node runs the same driver, imported into this process.
  const driver = (await import(pathToFileURL(join(work, "driver.mjs")).href)) as {
    default: { fetch(request: Request): Promise<Response> };
  };
  const origins = new Map(runtimeOrigins);
  assert.equal([...origins.keys()], NODE_ONLY ? [] : ["deno", "bun", "workerd"]);
  const server = await serve(out);
  try {
    for (const name of ["node", ...origins.keys()]) {
      const request = new Request(origins.get(name) ?? "http://driver.invalid/", {
        method: "POST",
        body: JSON.stringify({ op: "check", base: server.origin, checks }),
      });
      const answer = name === "node" ? await driver.default.fetch(request) : await fetch(request);
      const got = (await answer.json()) as Checked;
      assert.is(got.error, undefined, `${name}: ${got.error}`);
      assert.equal(got.results, expected, name);
    }
  } finally {
    await server.stop();
  }
});

test("a stale feed (a deployment older than the copy) waits; a copy from a restarted history refetches", async () => {
  assert.is(builds.length, historySteps.length, "the history was built");
  const stale = await serve(builds[0] as string);
  try {
    await round(stale, "the first build's feed", { kind: "wait", requests: 1 }, Buffer.alloc(0));
  } finally {
    await stale.stop();
  }
  const restarted = join(work, "restarted");
  await buildStep("fixtures/history/02-additions.json", "2026-12-28T12:00:00Z", restarted, null);
  const server = await serve(restarted);
  try {
    const document = readFileSync(join(restarted, "static", "api", "registry.v1.json"));
    await round(server, "a restarted history", { kind: "fetched", why: "unknown", requests: 2 }, document);
    await round(server, "a restarted history, run again", { kind: "unchanged", requests: 1 }, document);
    // Every runtime says a failure in one line, naming the request by host and path.
    for (const [name, call] of runtimes) {
      const got = await call(`${server.origin}/elsewhere`, null, null);
      assert.is(
        got.error,
        `SyncError: GET ${new URL(server.origin).host}/elsewhere/api/registry.v1.changes.json: HTTP 404, expected 200`,
        name,
      );
    }
  } finally {
    await server.stop();
  }
});

test.run();
