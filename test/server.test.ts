/**
 * The Node server (`npm start`) over a real socket: transport, start-up refusal, graceful stop.
 * `runServe` runs in this process where the process is not the point; signals, exit codes and the
 * `npm start` and `registry-endpoint serve` entries run as real processes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, connect, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";
import dns from "node:dns";
import { createServer as createHttpServer, type Server } from "node:http";
import { runServe } from "../node/serve/server.ts";
import { listen } from "../node/serve/shutdown.ts";
import { headerLines } from "../node/serve/request-guard.ts";
import fc from "fast-check";
import { GOLDEN_OPTIONS, PATH_RULE } from "./cases.ts";
import { cleanEnv, run, runCommand } from "./process.ts";
import { fetchRaw, type InProcess, rawExchange, type Running, serveInProcess, startServer } from "./servers.ts";
import { buildFirst } from "./first-build.ts";

const EPOCH = String(Date.parse(GOLDEN_OPTIONS.builtAt) / 1000);
const env = cleanEnv({ HOST: "127.0.0.1", PORT: "0", BASE_URL: GOLDEN_OPTIONS.baseUrl, SOURCE_DATE_EPOCH: EPOCH });
const golden = readFileSync("golden/registry.json");
const work = mkdtempSync(join(tmpdir(), "registry-server-"));
/** `npm start`'s command, in this process. */
let server: InProcess;
/** The bundled production server (`dist/node/server.mjs`) of the same source and base URL. */
let artifact: Running;

test.before(async () => {
  server = await serveInProcess(runServe, [], env);
  const built = await buildFirst([
    "--source",
    "fixtures/registry.json",
    "--base-url",
    GOLDEN_OPTIONS.baseUrl,
    "--out",
    join(work, "dist"),
  ], { env });
  if (built.code !== 0) throw new Error(built.stderr);
  artifact = await startServer("node", [join(work, "dist", "node", "server.mjs")], env);
});
test.after(async () => {
  await server?.stop();
  await artifact?.stop("SIGKILL");
  rmSync(work, { recursive: true, force: true });
});

/** One raw exchange split into status, headers (lower-case names) and the bytes after them. */
async function exchange(
  origin: string,
  request: string,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const bytes = await rawExchange(Number(new URL(origin).port), request);
  const end = bytes.indexOf("\r\n\r\n");
  const [statusLine = "", ...lines] = bytes.subarray(0, end === -1 ? bytes.length : end).toString("latin1").split(
    "\r\n",
  );
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
  );
  return {
    status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? 0),
    headers,
    body: end === -1 ? Buffer.alloc(0) : bytes.subarray(end + 4),
  };
}

/** Request forms either server could get wrong, and the status both must give. */
const FORMS: readonly (readonly [string, number])[] = [
  ["GET /vaults.json HTTP/1.0\r\n\r\n", 400],
  ["HEAD /vaults.json HTTP/1.0\r\n\r\n", 400],
  ["GET /vaults.json HTTP/1.1\r\nConnection: close\r\n\r\n", 400],
  ["GET /vaults.json HTTP/1.1\r\nHost: user:pw@127.0.0.1\r\nConnection: close\r\n\r\n", 400],
  ["GET /vaults.json HTTP/1.0\r\nHost: user@h\r\n\r\n", 400],
  ["GET /vaults.json HTTP/1.1\r\nHost: h/x\r\nConnection: close\r\n\r\n", 400],
  ["GET /vaults.json HTTP/1.1\r\nHost: h:99999\r\nConnection: close\r\n\r\n", 400],
  ["GET /vaults.json HTTP/1.1\r\nHost: 1.2.3\r\nConnection: close\r\n\r\n", 400],
  // RFC 9112 section 3.2: more than one Host line is a 400, even the same host twice.
  ["GET /vaults.json HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: elsewhere.example\r\nConnection: close\r\n\r\n", 400],
  ["GET /vaults.json HTTP/1.1\r\nHost: h\r\nhost: h\r\nConnection: close\r\n\r\n", 400],
  ["GET http://h:99999/vaults.json HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", 400],
  ["GET ftp://h/vaults.json HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", 400],
  ["OPTIONS * HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", 400],
  ["GET /api\\registry.v1.json HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", 400],
  ["CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n", 405],
  ["CONNECT /vaults.json HTTP/1.1\r\nHost: h\r\n\r\n", 405],
  ["GET http://h?/vaults.json HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", 404],
  // node:http's parser refuses a fragment in an absolute-form target: a problem document all the same.
  ["GET http://h#/vaults.json HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", 400],
  ["GET /vaults.json HTTP/1.1\r\nHost: h\r\nBad Header: x\r\n\r\n", 400],
  [`GET /vaults.json HTTP/1.1\r\nHost: h\r\nX-Long: ${"v".repeat(20_000)}\r\n\r\n`, 431],
  ["GET /vaults.json HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", 200],
  ["GET http://user:pw@h:8080/vaults.json?x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", 200],
];

test("npm start and dist/node/server.mjs answer every request form alike: the same status, a problem+json body for each refusal", async () => {
  for (const [request, status] of FORMS) {
    const [dev, bundled] = [await exchange(server.origin, request), await exchange(artifact.origin, request)];
    const what = JSON.stringify(request);
    assert.is(dev.status, status, `npm start: ${what}`);
    assert.is(bundled.status, status, `server.mjs: ${what}`);
    if (status === 200) {
      assert.ok(dev.body.equals(golden) && bundled.body.equals(golden), what);
      continue;
    }
    for (const answer of [dev, bundled]) {
      assert.is(answer.headers["content-type"], "application/problem+json", what);
      assert.is(answer.headers["access-control-allow-origin"], "*", what);
      const body = request.startsWith("HEAD ") ? {} : (JSON.parse(answer.body.toString("utf8")) as { status?: number });
      if (!request.startsWith("HEAD ")) assert.is(body.status, status, what);
      if (status === 405) assert.is(answer.headers["allow"], "GET, HEAD, OPTIONS", what);
    }
    assert.ok(dev.body.equals(bundled.body), `the same problem document: ${what}`);
  }
});

test("a fresh server's first request without a Host is refused, and each Host is judged on its own whatever came before", async () => {
  // A process of its own: the Host check keeps the last Host it judged, and its first request meets that empty.
  const fresh = await startServer("node", [join(work, "dist", "node", "server.mjs")], env);
  try {
    const sequence: [string, number][] = [
      ["GET /vaults.json HTTP/1.0\r\n\r\n", 400],
      ["GET /vaults.json HTTP/1.0\r\nHost: h\r\n\r\n", 200],
      ["GET /vaults.json HTTP/1.0\r\n\r\n", 400],
      ["GET /vaults.json HTTP/1.0\r\nHost: user@h\r\n\r\n", 400],
      ["GET /vaults.json HTTP/1.0\r\nHost: h\r\n\r\n", 200],
      ["GET /vaults.json HTTP/1.0\r\nHost: h\r\nHost: h\r\n\r\n", 400],
      ["GET /vaults.json HTTP/1.0\r\nHost: h\r\n\r\n", 200],
    ];
    const got = [];
    for (const [request] of sequence) got.push((await exchange(fresh.origin, request)).status);
    assert.equal(got, sequence.map(([, status]) => status));
  } finally {
    assert.is(await fresh.stop(), 0);
  }
});

test("HEAD on the raw transport, both servers: the GET's Content-Length and not one byte of body", async () => {
  for (const origin of [server.origin, artifact.origin]) {
    for (const path of ["/vaults.json", "/api/registry.v1.schema.json", "/nope"]) {
      const get = await exchange(origin, `GET ${path} HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`);
      const head = await exchange(origin, `HEAD ${path} HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`);
      assert.is(head.status, get.status, path);
      assert.ok(get.body.length > 0, path);
      assert.is(get.headers["content-length"], String(get.body.length), path);
      assert.is(head.headers["content-length"], get.headers["content-length"], `${origin} HEAD ${path}`);
      assert.is(head.body.length, 0, `${origin} HEAD ${path}: no body bytes`);
    }
  }
});

test("prints one start line naming the source, counts, built_at, base URL, ETag and both URLs", () => {
  const line = server.output().trim();
  assert.is(line.split("\n").length, 1);
  assert.match(
    line,
    /^registry: serving registry\.json \(48 vaults, 35 edges, built_at 2026-11-21T12:00:00Z, base URL https:\/\/registry\.example\.org, ETag "[0-9a-f]{32}"\) on /,
  );
  assert.ok(
    line.includes(`${server.origin}/vaults.json`) && line.includes(`${server.origin}/api/registry.v1.json`),
    line,
  );
});

test("both paths over the socket: 200, golden bytes, identical headers, exact content type and length", async () => {
  const [a, b] = [
    await fetchRaw(`${server.origin}/vaults.json`),
    await fetchRaw(`${server.origin}/api/registry.v1.json?x=1`),
  ];
  for (const res of [a, b]) {
    assert.is(res.status, 200);
    assert.ok(res.body.equals(golden));
    assert.is(res.headers["content-type"], "application/json");
    assert.is(res.headers["content-length"], String(golden.byteLength));
    assert.is(res.headers["last-modified"], "Sat, 21 Nov 2026 12:00:00 GMT");
    assert.is(res.headers["access-control-allow-origin"], "*");
    assert.is(res.headers["x-content-type-options"], "nosniff");
    assert.is(res.headers["transfer-encoding"], undefined, "sent with Content-Length, not chunked");
    for (const leak of ["set-cookie", "x-powered-by", "server"]) assert.is(res.headers[leak], undefined, leak);
  }
  const { date: _a, "content-location": location, "access-control-expose-headers": exposedA, ...ha } = a.headers;
  const { date: _b, "access-control-expose-headers": exposedB, ...hb } = b.headers;
  assert.is(location, "/api/registry.v1.json");
  assert.is(exposedA, "ETag, Link, Allow, Content-Location", "/vaults.json lets browsers read Content-Location");
  assert.is(exposedB, "ETag, Link, Allow");
  assert.equal(ha, hb);
});

test("HEAD, 304, OPTIONS, 405 and 404 over the socket", async () => {
  const head = await fetchRaw(`${server.origin}/vaults.json`, { method: "HEAD" });
  assert.is(head.status, 200);
  assert.is(head.body.length, 0);
  assert.is(head.headers["content-length"], String(golden.byteLength));
  const etag = head.headers["etag"] as string;
  const cached = await fetchRaw(`${server.origin}/api/registry.v1.json`, { headers: { "if-none-match": etag } });
  assert.is(cached.status, 304);
  assert.is(cached.body.length, 0);
  assert.is((await fetchRaw(`${server.origin}/vaults.json`, { method: "OPTIONS" })).status, 204);
  const post = await fetchRaw(`${server.origin}/vaults.json`, { method: "POST" });
  assert.is(post.status, 405);
  assert.is(post.headers["allow"], "GET, HEAD, OPTIONS");
  const missing = await fetchRaw(`${server.origin}/api/registry.v2.json`);
  assert.is(missing.status, 404);
  assert.is(missing.headers["content-type"], "application/problem+json");
});

test("gzip and br over the socket decode to the golden bytes", async () => {
  const gz = await fetchRaw(`${server.origin}/vaults.json`, { headers: { "accept-encoding": "gzip" } });
  const br = await fetchRaw(`${server.origin}/vaults.json`, { headers: { "accept-encoding": "gzip, deflate, br" } });
  assert.is(gz.headers["content-encoding"], "gzip");
  assert.is(br.headers["content-encoding"], "br");
  assert.ok(gunzipSync(gz.body).equals(golden));
  assert.ok(brotliDecompressSync(br.body).equals(golden));
  assert.is(br.headers["content-length"], String(br.body.length));
});

test("the path rule over the socket: the same table every runtime answers (test/cases.ts)", async () => {
  const { port } = new URL(server.origin);
  for (const [target, status] of PATH_RULE) {
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1");
      let text = "";
      socket.setTimeout(10_000, () => socket.destroy(new Error("no answer")));
      socket.on("data", (c: Buffer) => (text += c.toString("latin1")));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
      socket.end(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    });
    assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `), target);
  }
});

test("a request whose body drips is cut off by the request timeout, not kept open", async () => {
  const { port } = new URL(server.origin);
  const started = Date.now();
  const closed = await new Promise<number>((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1");
    socket.on("error", () => undefined);
    socket.write("GET /vaults.json HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n");
    // One byte a second, for at most 40 s: the server must close first.
    let sent = 0;
    const drip = setInterval(
      () => (sent++ < 40 ? socket.write("x") : (clearInterval(drip), reject(new Error("still open after 40 s")))),
      1_000,
    );
    socket.on("close", () => {
      clearInterval(drip);
      resolve(Date.now() - started);
    });
  });
  assert.ok(
    closed >= 14_000 && closed < 30_000,
    `closed after ${closed} ms (request timeout 15 s, checked every second)`,
  );
});

/** runServe in this process with a time limit: a server that starts where it must refuse stops after 15 s. */
const serveAtMost = (argv: readonly string[], commandEnv: NodeJS.ProcessEnv) =>
  runCommand((args, e, io) => runServe(args, e, io, AbortSignal.timeout(15_000)), argv, { env: commandEnv });

/** How many listeners this process has for SIGTERM and SIGINT. */
const signalListeners = (): number[] => [process.listenerCount("SIGTERM"), process.listenerCount("SIGINT")];

test("runServe serves in this process and returns 0 when its signal aborts, its signal listeners gone", async () => {
  const before = signalListeners();
  const own = await serveInProcess(runServe, ["--source", "fixtures/valid/unicode.json"], env);
  assert.equal(signalListeners(), before.map((n) => n + 1), "it listens for SIGTERM and SIGINT while it serves");
  const port = Number(new URL(own.origin).port);
  const res = await fetchRaw(`${own.origin}/vaults.json`);
  assert.ok(res.body.equals(readFileSync("golden/valid/unicode.json")));
  assert.is(await own.stop(), 0);
  assert.equal(signalListeners(), before, "no signal listener left behind");
  assert.match(
    own.output(),
    /^registry: serving unicode\.json \(.*\(pid \d+\)\nregistry: stop requested: stopping; no new connections, requests under way may finish \(at most 10 s\)\nregistry: stopped after \d+ ms\n$/,
  );
  assert.is((await rawExchange(port, "GET /vaults.json HTTP/1.0\r\nHost: h\r\n\r\n")).length, 0, "nothing listens");
});

test("--base-url: the served document's URLs follow the flag over BASE_URL; a bad one is refused before listening", async () => {
  const own = await serveInProcess(runServe, [
    "--source",
    "fixtures/valid/unicode.json",
    "--base-url",
    "https://flag.example/reg",
  ], env);
  const served = JSON.parse((await fetchRaw(`${own.origin}/vaults.json`)).body.toString("utf8"));
  assert.is(await own.stop(), 0);
  assert.is(served.about.canonical_url, "https://flag.example/reg/vaults.json");
  const bad = await serveAtMost(["--base-url", "ftp://x"], env);
  assert.is(bad.code, 1, bad.stderr);
  assert.is(bad.stdout.toString(), "", "nothing listened");
  assert.match(bad.stderr, /^--base-url: expected an absolute http or https URL/);
});

test("a port taken: runServe returns 1 with one line on stderr, nothing on stdout, no listener left", async () => {
  const taken = createNetServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  const { port } = taken.address() as AddressInfo;
  const before = signalListeners();
  try {
    const result = await serveAtMost([], { ...env, PORT: String(port) });
    assert.is(result.code, 1, result.stdout.toString());
    assert.is(result.stdout.toString(), "");
    assert.is(
      result.stderr,
      `cannot listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}\n`,
    );
    assert.equal(signalListeners(), before, "no signal listener left behind");
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});

test("listen: an IPv4 address is bound as it is, with no DNS lookup; a name, or another form of an address, is looked up as Node does", async () => {
  const asked: string[] = [];
  const lookup = dns.lookup;
  dns.lookup = ((host: string, ...rest: unknown[]) => {
    asked.push(host);
    return (lookup as (...args: unknown[]) => void).call(dns, host, ...rest);
  }) as typeof dns.lookup;
  const listening = async (host: string): Promise<Server> => {
    const s = createHttpServer((_req, res) => res.end("ok"));
    const ready = new Promise<void>((resolve, reject) => {
      s.once("listening", resolve);
      s.once("error", reject);
    });
    listen(s, 0, host);
    await ready;
    return s;
  };
  try {
    const direct = await listening("127.0.0.1");
    const { address, family, port } = direct.address() as AddressInfo;
    assert.equal([address, family], ["127.0.0.1", "IPv4"]);
    assert.is((await fetchRaw(`http://127.0.0.1:${port}/`)).body.toString(), "ok");
    await new Promise((resolve) => direct.close(resolve));
    assert.equal(asked, [], "no lookup of an address");
    // Node's own way for the rest: `localhost`, and 127.1 (an address to getaddrinfo, not to net.isIPv4).
    for (const host of ["localhost", "127.1"]) {
      const looked = await listening(host);
      await new Promise((resolve) => looked.close(resolve));
    }
    assert.equal(asked, ["localhost", "127.1"]);
  } finally {
    dns.lookup = lookup;
  }
});

/** A node:http server on 127.0.0.1 that keeps each request's `rawHeaders` and `headersDistinct` in `seen`. */
async function headerProbe() {
  const seen: { raw: string[]; distinct: Record<string, string[]> }[] = [];
  const probe = createHttpServer((req, res) => {
    seen.push({ raw: [...req.rawHeaders], distinct: { ...req.headersDistinct } as Record<string, string[]> });
    res.end();
  });
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  return { seen, probe, port: (probe.address() as AddressInfo).port };
}

test("headerLines: every line of a header joined as headersDistinct joins them, over generated requests (law)", async () => {
  const { seen, probe, port } = await headerProbe();
  const name = fc.constantFrom("If-None-Match", "if-none-match", "ACCEPT-ENCODING", "Accept-Encoding", "X-A", "x-a");
  const value = fc.stringMatching(/^[!-~]([ !-~]{0,12}[!-~])?$/);
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(name, value), { maxLength: 6 }), async (lines) => {
        seen.length = 0;
        const head = lines.map(([n, v]) => `${n}: ${v}\r\n`).join("");
        await rawExchange(port, `GET / HTTP/1.1\r\nHost: h\r\n${head}Connection: close\r\n\r\n`);
        const [{ raw, distinct }] = seen as [(typeof seen)[number]];
        for (const asked of ["if-none-match", "accept-encoding", "x-a", "host", "absent"]) {
          assert.is(headerLines(raw, asked), distinct[asked]?.join(", "), asked);
        }
      }),
      { numRuns: 60 },
    );
  } finally {
    await new Promise((resolve) => probe.close(resolve));
  }
});

test("headerLines: a line past the 1000 that headersDistinct reads (the 1001st, If-None-Match) is not read (Node 20 keeps more; Node 22 answers 431)", async () => {
  const { seen, probe, port } = await headerProbe();
  try {
    const filler = "X-F: 1\r\n".repeat(999);
    const answer = await rawExchange(
      port,
      `GET / HTTP/1.1\r\n${filler}Host: h\r\nIf-None-Match: "x"\r\nConnection: close\r\n\r\n`,
    );
    if (seen.length === 0) {
      assert.match(answer.toString("latin1"), /^HTTP\/1\.1 431 /, "refused by node:http, or read");
      return;
    }
    const [{ raw, distinct }] = seen as [(typeof seen)[number]];
    assert.ok(raw.length > 2000, `node:http kept ${raw.length / 2} lines`);
    assert.is(distinct["if-none-match"], undefined, "the 1001st line is past what headersDistinct reads");
    for (const asked of ["if-none-match", "host", "x-f"]) {
      assert.is(headerLines(raw, asked), distinct[asked]?.join(", "), asked);
    }
  } finally {
    await new Promise((resolve) => probe.close(resolve));
  }
});

test("dist/node/server.mjs under cluster (as pm2's cluster mode runs it): every worker listens through the primary, on one port", async () => {
  // The primary, in a process of its own: two workers of the artifact, each told to listen on 127.0.0.1, port 0.
  const primary = `
    import cluster from "node:cluster";
    cluster.setupPrimary({ exec: ${
    JSON.stringify(join(work, "dist", "node", "server.mjs"))
  }, args: [], execArgv: [], silent: true });
    const workers = [cluster.fork(), cluster.fork()];
    const listening = (w) => new Promise((resolve) => w.once("listening", (a) => resolve(a.port)));
    const ports = await Promise.all(workers.map(listening));
    const res = await fetch("http://127.0.0.1:" + ports[0] + "/vaults.json");
    console.log(JSON.stringify({ ports, status: res.status }));
    for (const w of workers) w.kill("SIGTERM");
  `;
  const done = await run("node", ["--input-type=module", "-e", primary], { env, timeoutMs: 20_000 });
  assert.is(done.code, 0, done.stderr);
  const { ports, status } = JSON.parse(done.stdout.toString()) as { ports: number[]; status: number };
  assert.is(status, 200);
  assert.ok(ports[0]! > 0 && ports[0] === ports[1], `one port for both workers: ${ports.join(", ")}`);
});

test("SIGTERM lets an in-flight request finish, then the process exits 0 at once", async () => {
  const own = await startServer("node", ["--import", "tsx", "node/bin/serve.ts"], env);
  const port = Number(new URL(own.origin).port);
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve) => socket.on("connect", resolve));
  const received: Buffer[] = [];
  socket.on("data", (c: Buffer) => received.push(c));
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  socket.write("GET /vaults.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"); // the request is under way
  await new Promise((r) => setTimeout(r, 200));
  own.child.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 200));
  socket.write("Connection: close\r\n\r\n"); // ...and completes after the signal
  await closed;
  const answered = Date.now();
  const code = await own.stop("SIGTERM", 5_000);
  const answer = Buffer.concat(received);
  assert.match(answer.subarray(0, 20).toString(), /^HTTP\/1\.1 200 OK/);
  assert.ok(answer.subarray(answer.length - golden.length).equals(golden), "the whole body arrived");
  assert.is(code, 0);
  assert.ok(Date.now() - answered < 2_000, `exited ${Date.now() - answered} ms after the last answer`);
  assert.match(own.output(), /\nregistry: SIGTERM: stopping; .*\nregistry: stopped after \d+ ms\n$/);
});

test("a second SIGTERM just after the stop, as the process ends: still exit 0 (npm start and dist/node/server.mjs)", async () => {
  const commands: [string, string[]][] = [
    ["npm start", ["--import", "tsx", "node/bin/serve.ts"]],
    ["dist/node/server.mjs", [join(work, "dist", "node", "server.mjs")]],
  ];
  for (const [name, args] of commands) {
    const own = await startServer("node", args, env);
    // More signals, one every 2 ms from the moment the server says it has stopped until the process ends.
    let more: NodeJS.Timeout | undefined;
    own.child.stdout?.on("data", () => {
      if (more === undefined && /registry: stopped after/.test(own.output())) {
        more = setInterval(() => own.child.kill("SIGTERM"), 2);
      }
    });
    own.child.on("exit", () => clearInterval(more));
    const code = await own.stop("SIGTERM", 5_000);
    clearInterval(more);
    assert.is(code, 0, `${name}: ${own.output()}`);
  }
});

test("a stop while a keep-alive request is under way: the answer says Connection: close, and the server stops once it is sent, not after the keep-alive timeout", async () => {
  const own = await serveInProcess(runServe, [], env);
  const socket = connect(Number(new URL(own.origin).port), "127.0.0.1");
  socket.on("error", () => undefined);
  await new Promise<void>((resolve) => socket.on("connect", resolve));
  const received: Buffer[] = [];
  socket.on("data", (c: Buffer) => received.push(c));
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  try {
    socket.write("GET /vaults.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"); // under way, keep-alive
    await new Promise((r) => setTimeout(r, 200));
    const stopped = own.stop(); // within DRAIN_MS, whatever happens
    await new Promise((r) => setTimeout(r, 200));
    socket.write("\r\n"); // ...and complete after the stop
    const completed = Date.now();
    assert.is(await stopped, 0);
    const took = Date.now() - completed;
    await closed;
    const answer = Buffer.concat(received);
    const head = answer.subarray(0, answer.indexOf("\r\n\r\n")).toString();
    assert.match(head, /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(answer.subarray(answer.length - golden.length).equals(golden), "the whole body arrived");
    assert.match(head, /\r\nconnection: close(\r\n|$)/i, head);
    // Well under the keep-alive timeout (5 s) it once waited out, with room for a loaded machine.
    assert.ok(took < 3_000, `stopped ${took} ms after the request was complete`);
  } finally {
    socket.destroy();
  }
});

test("SIGINT with an idle keep-alive connection open: the process stops at once and exits 0", async () => {
  const own = await startServer("node", ["--import", "tsx", "node/bin/serve.ts"], env);
  const port = Number(new URL(own.origin).port);
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  const answered = new Promise<void>((resolve) => socket.once("data", () => resolve()));
  socket.write("HEAD /vaults.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); // kept alive, then idle
  await answered;
  const started = Date.now();
  const code = await own.stop("SIGINT", 5_000);
  socket.destroy();
  assert.is(code, 0);
  assert.ok(Date.now() - started < 2_000, `exited ${Date.now() - started} ms after SIGINT`);
  assert.match(own.output(), /\nregistry: SIGINT: stopping; .*\nregistry: stopped after \d+ ms\n$/);
});

test("an invalid source or configuration: problems on stderr, exit 1, never listening", async () => {
  for (
    const extra of [
      { REGISTRY_SOURCE: "fixtures/invalid/many-problems.json" },
      { REGISTRY_SOURCE: "nope.json" },
      { BASE_URL: "ftp://x" },
      { PORT: "99999" },
      { LOG_REQUESTS: "yes" },
    ]
  ) {
    const started = Date.now();
    const result = await serveAtMost([], { ...env, ...extra });
    assert.is(result.code, 1, JSON.stringify(extra));
    assert.is(result.stdout.toString(), "", "nothing listened");
    assert.ok(result.stderr.length > 0);
    assert.not.match(result.stderr, /\n\s+at /, "no stack trace");
    assert.ok(Date.now() - started < 15_000);
  }
  const settings = await serveAtMost([], { ...env, PORT: "99999", LOG_REQUESTS: "yes" });
  assert.is(
    settings.stderr,
    'PORT: expected a port number from 0 to 65535, got "99999"\nLOG_REQUESTS: expected 1 (log each request) or 0, got "yes"\n',
  );
  const many = await serveAtMost([], { ...env, REGISTRY_SOURCE: "fixtures/invalid/many-problems.json" });
  // The CLI's problems, the file named by its base name: a server's lines may end in a platform's logs.
  assert.is(
    many.stderr,
    readFileSync("golden/invalid/many-problems.txt", "utf8").replaceAll(
      "fixtures/invalid/many-problems.json: ",
      "many-problems.json: ",
    ),
  );
});

test("npm start's process refusing to start: one line on stderr, no stack trace, exit 1", async () => {
  const result = await run("node", ["--import", "tsx", "node/bin/serve.ts"], {
    env: { ...env, PORT: "99999" },
    timeoutMs: 20_000,
  });
  assert.is(result.code, 1);
  assert.is(result.stdout.toString(), "");
  assert.is(result.stderr, 'PORT: expected a port number from 0 to 65535, got "99999"\n');
});

test("REGISTRY_SOURCE serves another source", async () => {
  const own = await serveInProcess(runServe, [], { ...env, REGISTRY_SOURCE: "fixtures/valid/unicode.json" });
  try {
    const res = await fetchRaw(`${own.origin}/vaults.json`);
    assert.ok(res.body.equals(readFileSync("golden/valid/unicode.json")));
  } finally {
    assert.is(await own.stop(), 0);
  }
});

test("--source serves another source and wins over REGISTRY_SOURCE", async () => {
  const own = await serveInProcess(runServe, ["--source", "fixtures/valid/unicode.json"], {
    ...env,
    REGISTRY_SOURCE: "nope.json",
  });
  try {
    const res = await fetchRaw(`${own.origin}/vaults.json`);
    assert.ok(res.body.equals(readFileSync("golden/valid/unicode.json")));
  } finally {
    assert.is(await own.stop(), 0);
  }
});

/** fixtures/valid/unicode.json with a key only `--internal-keys sync_owner` declares. */
function internalKeySource(): string {
  const source = JSON.parse(readFileSync("fixtures/valid/unicode.json", "utf8")) as {
    vaults: Record<string, unknown>[];
  };
  (source.vaults[0] as Record<string, unknown>)["sync_owner"] = "kept out";
  const file = join(work, "internal-key.json");
  writeFileSync(file, JSON.stringify(source));
  return file;
}

test("--internal-keys declares internal keys beside the source, joined with INTERNAL_KEYS; without it the key is refused", async () => {
  const file = internalKeySource();
  const own = await serveInProcess(runServe, ["--source", file, "--internal-keys", "sync_owner"], {
    ...env,
    INTERNAL_KEYS: "other_key",
  });
  try {
    const res = await fetchRaw(`${own.origin}/vaults.json`);
    assert.ok(res.body.equals(readFileSync("golden/valid/unicode.json")), "the internal key is not published");
  } finally {
    assert.is(await own.stop(), 0);
  }
  const refused = await serveAtMost(["--source", file], env);
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /\.sync_owner: undeclared key/);
});

test("registry-endpoint serve, the package's bin: its flags over REGISTRY_SOURCE and with INTERNAL_KEYS; SIGTERM, exit 0", async () => {
  const own = await startServer("node", [
    "--import",
    "tsx",
    "node/bin/registry-endpoint.ts",
    "serve",
    "--source",
    internalKeySource(),
    "--internal-keys",
    "sync_owner",
  ], { ...env, REGISTRY_SOURCE: "nope.json", INTERNAL_KEYS: "other_key" });
  try {
    const res = await fetchRaw(`${own.origin}/vaults.json`);
    assert.ok(res.body.equals(readFileSync("golden/valid/unicode.json")), "the internal key is not published");
  } finally {
    assert.is(await own.stop(), 0);
  }
  assert.match(own.output(), /\nregistry: SIGTERM: stopping; .*\nregistry: stopped after \d+ ms\n$/);
});

test("LOG_REQUESTS=1: one JSON line per request, the path without its query, never header values", async () => {
  const own = await serveInProcess(runServe, [], { ...env, LOG_REQUESTS: "1" });
  try {
    await fetchRaw(`${own.origin}/vaults.json?token=secret-value`, { headers: { authorization: "Bearer hidden" } });
    await fetchRaw(`${own.origin}/nope`, { method: "HEAD" });
    await new Promise((r) => setTimeout(r, 100));
  } finally {
    assert.is(await own.stop(), 0);
  }
  const lines = own.output().split("\n").filter((l) => l.startsWith("{"));
  assert.is(lines.length, 2, own.output());
  const [get, head] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(Object.keys(get ?? {}), ["time", "method", "path", "status", "bytes", "ms"]);
  assert.equal({ ...get, time: 0, ms: 0 }, {
    time: 0,
    method: "GET",
    path: "/vaults.json",
    status: 200,
    bytes: golden.length,
    ms: 0,
  });
  assert.equal({ ...head, time: 0, ms: 0 }, { time: 0, method: "HEAD", path: "/nope", status: 404, bytes: 0, ms: 0 });
  assert.not.match(own.output(), /secret-value|hidden/);
  assert.match(own.output(), /^registry: stop requested: stopping; .*\nregistry: stopped after \d+ ms$/m);
});

test("npm start: SIGTERM to the process npm started stops the server (npm start runs node with exec)", async () => {
  const npm = await startServer("npm", ["start"], env);
  const code = await npm.stop("SIGTERM", 10_000);
  assert.match(npm.output(), /registry: stopped after \d+ ms/);
  assert.is(code, 0);
});

test("npx registry-endpoint serve: SIGTERM to npx, whose shell passes no signal on, still stops node gracefully", async () => {
  // npx is npm exec: npm, then sh -c, then node. The same chain, with the repository's bin.
  const npx = await startServer("npm", [
    "exec",
    "--offline",
    "--",
    "node",
    "--import",
    "tsx",
    "node/bin/registry-endpoint.ts",
    "serve",
  ], env);
  const pid = Number(/\(pid (\d+)\)/.exec(npx.output())?.[1]);
  const port = Number(new URL(npx.origin).port);
  // node holds the pipe npm got: it closes when node has exited.
  const closed = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 10_000);
    npx.child.stdout?.on("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  await npx.stop("SIGTERM", 10_000);
  const stopped = await closed;
  // Left running, node would serve on with no parent: stop it by its own pid.
  if (!stopped && pid > 0) process.kill(pid, "SIGKILL");
  assert.ok(pid > 0 && pid !== npx.child.pid, "node is not the process npm exec is");
  assert.ok(stopped, `node (pid ${pid}) still running 10 s after SIGTERM to npx:\n${npx.output()}`);
  assert.match(
    npx.output(),
    /\nregistry: the process that started it \(pid \d+\) is gone: stopping as on SIGTERM\nregistry: SIGTERM: stopping; .*\nregistry: stopped after \d+ ms\n$/,
  );
  assert.is(
    (await rawExchange(port, "GET /vaults.json HTTP/1.0\r\nHost: h\r\n\r\n")).length,
    0,
    "nothing listens any more",
  );
});

test("--help says what the server reads and its exit codes; a bad flag is one line and exit 2", async () => {
  const help = await runCommand(runServe, ["--help"], { env });
  assert.is(help.code, 0);
  for (
    const text of [
      "usage: npm start -- [--source FILE] [--base-url URL] [--internal-keys NAMES]",
      "--source",
      "--internal-keys",
      "REGISTRY_SOURCE",
      "INTERNAL_KEYS",
      "BASE_URL",
      "SOURCE_DATE_EPOCH",
      "HOST",
      "PORT",
      "LOG_REQUESTS",
      "Exit codes",
    ]
  ) {
    assert.ok(help.stdout.toString().includes(text), text);
  }
  assert.is(help.stderr, "");
  const bad = await runCommand(runServe, ["--port", "1"], { env });
  assert.is(bad.code, 2);
  assert.is(bad.stdout.toString(), "");
  assert.is(
    bad.stderr,
    "Unknown option '--port' (usage: npm start -- [--source FILE] [--base-url URL] [--internal-keys NAMES]; --help for more)\n",
  );
});

test.run();
