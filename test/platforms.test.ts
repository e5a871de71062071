/**
 * Every deploy artifact in its platform's own runtime, all from npm: one build of an operator's
 * source (not the embedded snapshot) serves the golden bytes and one ETag per coding everywhere.
 *
 * - Node: `node dist/node/server.mjs`, copied where there is no node_modules;
 * - Deno: `deno serve dist/fetch/index.mjs`; Bun: `Bun.serve` over its default export;
 * - Cloudflare Workers: workerd, without nodejs_compat, port read back from its control fd;
 * - Netlify: @netlify/dev on a site made by the README's recipe, followed literally;
 * - AWS Lambda: serverless-offline (osls) in front of `dist/lambda/index.mjs`, REST (payload 1.0)
 *   and HTTP API (2.0) over real HTTP; ALB and Function URL events, which no emulator covers, are
 *   the recorded ones in fixtures/aws-events/.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { node22 } from "../deploy/node22.ts";
import { tablePaths } from "../contract/version-policy.ts";
import { strongEtag } from "../http/responses.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { type Event, event, EVENTS, retarget, usesMultiValueHeaders } from "./aws-events.ts";
import { GOLDEN_OPTIONS, PATH_RULE } from "./cases.ts";
import { cleanEnv, run, runCommand } from "./process.ts";
import { leakIn, plantCanaries } from "./canary.ts";
import { SECRET } from "./arbitraries.ts";
import {
  fetchRaw as fetchUnchecked,
  freePort,
  type RawResponse,
  type Running,
  serveWorkerd,
  startServer,
} from "./servers.ts";
import { buildFirst } from "./first-build.ts";

const ROOT = resolve(".");
/** @netlify/dev (in deploy/tools/, beside netlify-cli) needs Node 22.12 or later. */
const NODE22 = node22() as string;
const golden = readFileSync("golden/valid/unicode.json");
const EPOCH = String(Date.parse(GOLDEN_OPTIONS.builtAt) / 1000);
const work = mkdtempSync(join(tmpdir(), "registry-platforms-"));
const dist = join(work, "dist");
const home = join(work, "home");
mkdirSync(home);
const SOURCE = join(work, "unicode.json");
writeFileSync(SOURCE, JSON.stringify(plantCanaries(JSON.parse(readFileSync("fixtures/valid/unicode.json", "utf8")))));
/** What no answer and no runtime's output may hold: the canary, and this machine's folders in play. */
const FORBIDDEN = [SECRET, work, ROOT];
const env = cleanEnv({ HOME: home, SOURCE_DATE_EPOCH: EPOCH });
const etag = await strongEtag(new Uint8Array(golden));
/** The ETag each runtime sent for each coding: one value per coding across all of them. */
const etagsByCoding = new Map<string, Map<string, string>>();
/** The ETag of each change feed, the same on every runtime. */
const feedEtags = new Map<string, string>();

test.before(async () => {
  const built = await buildFirst(["--source", SOURCE, "--base-url", GOLDEN_OPTIONS.baseUrl, "--out", dist], {
    env,
  });
  if (built.code !== 0) throw new Error(built.stderr);
});
test.after(() => rmSync(work, { recursive: true, force: true }));

/** Fails if `text` (an answer or a runtime's output) holds a forbidden string. */
function assertQuiet(what: string, text: string): void {
  const found = leakIn(text, FORBIDDEN);
  assert.is(found, undefined, `${what} holds ${found === SECRET ? "a private string" : "a folder of this machine"}`);
}

/** fetchRaw, and no answer carries a canary: headers, and the body decoded as it says. */
async function fetchRaw(
  url: string,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const res = await fetchUnchecked(url, init);
  const coding = res.headers["content-encoding"];
  const body = res.body.length === 0
    ? res.body
    : coding === "gzip"
    ? gunzipSync(res.body)
    : coding === "br"
    ? brotliDecompressSync(res.body)
    : res.body;
  assertQuiet(`${init.method ?? "GET"} ${url}`, `${JSON.stringify(res.headers)}\n${body.toString("latin1")}`);
  return res;
}

/** The status line of one raw request: the target goes on the wire exactly as written, unnormalized. */
function statusOfTarget(origin: string, target: string): Promise<number> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let head = "";
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${target}`)));
    socket.on("data", (chunk: Buffer) => {
      head += chunk.toString("latin1");
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (status !== null) {
        resolve(Number(status[1]));
        socket.destroy();
      }
    });
    socket.on("error", reject);
    socket.on("close", () => reject(new Error(`closed before a status line for ${target}`)));
    socket.write(`GET ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`);
  });
}

/** The contract over HTTP at `origin` + `prefix`: bytes, ETag, HEAD, 304, 405, 404, each coding decoded once, the path rule. */
async function conforms(
  runtime: string,
  origin: string,
  options: {
    prefix?: string;
    contentType?: RegExp;
    notFound?: (status: number, headers: Record<string, unknown>) => void;
    pathRule?: readonly (readonly [string, number])[];
  } = {},
): Promise<void> {
  const url = (path: string) => `${origin}${options.prefix ?? ""}${path}`;
  const rule = options.pathRule ?? PATH_RULE;
  const seen = [];
  for (const [target] of rule) seen.push([target, await statusOfTarget(origin, `${options.prefix ?? ""}${target}`)]);
  assert.is(JSON.stringify(seen), JSON.stringify(rule), `${runtime}: the path rule`);
  for (const path of ["/vaults.json", "/api/registry.v1.json"]) {
    const res = await fetchRaw(url(path));
    assert.is(res.status, 200, `${runtime} ${path}`);
    assert.ok(res.body.equals(golden), `${runtime} ${path}: the golden bytes`);
    assert.is(res.headers["etag"], etag, `${runtime} ${path}: the ETag of the golden bytes`);
    assert.match(
      String(res.headers["content-type"]),
      options.contentType ?? /^application\/json$/,
      `${runtime}: content type`,
    );
    assert.is(res.headers["content-length"], String(golden.length), `${runtime}: content length`);
    assert.is(res.headers["last-modified"], "Sat, 21 Nov 2026 12:00:00 GMT", `${runtime}: built_at stamped at build`);
    assert.is(res.headers["access-control-allow-origin"], "*");
  }
  assert.is(
    (await fetchRaw(url("/vaults.json"))).headers["content-location"],
    "/api/registry.v1.json",
    `${runtime}: Content-Location`,
  );
  // The change feeds: the build's own bytes and one ETag each on every runtime, and 304 on it.
  for (
    const [path, type] of [["/api/registry.v1.changes.json", "application/feed+json"], [
      "/api/registry.v1.changes.atom",
      "application/atom+xml",
    ]] as const
  ) {
    const res = await fetchRaw(url(path));
    assert.is(res.status, 200, `${runtime} ${path}`);
    assert.ok(res.body.equals(readFileSync(join(dist, "static", path))), `${runtime} ${path}: the build's bytes`);
    assert.match(
      String(res.headers["content-type"]),
      new RegExp(`^${type.replace("+", "\\+")}(; charset=utf-8)?$`),
      `${runtime} ${path}: content type`,
    );
    const first = feedEtags.get(path) ?? String(res.headers["etag"]);
    feedEtags.set(path, first);
    assert.is(res.headers["etag"], first, `${runtime} ${path}: the same ETag as every other runtime`);
    assert.is(
      (await fetchRaw(url(path), { headers: { "if-none-match": first } })).status,
      304,
      `${runtime} ${path}: 304 on its ETag`,
    );
  }
  const head = await fetchRaw(url("/vaults.json"), { method: "HEAD" });
  assert.is(head.status, 200, `${runtime} HEAD`);
  assert.is(head.body.length, 0, `${runtime} HEAD: no body`);
  assert.is(head.headers["etag"], etag, `${runtime} HEAD: the GET's ETag`);
  const notModified = await fetchRaw(url("/api/registry.v1.json"), { headers: { "if-none-match": etag } });
  assert.is(notModified.status, 304, `${runtime} conditional GET`);
  assert.is(notModified.body.length, 0);
  const post = await fetchRaw(url("/vaults.json"), { method: "POST" });
  assert.is(post.status, 405, `${runtime} POST`);
  assert.is(post.headers["allow"], "GET, HEAD, OPTIONS", `${runtime}: Allow`);
  const missing = await fetchRaw(url("/api/registry.v2.json"));
  if (options.notFound) options.notFound(missing.status, missing.headers);
  else {
    assert.is(missing.status, 404, `${runtime} unknown path`);
    assert.is(missing.headers["content-type"], "application/problem+json");
  }
  for (const coding of ["gzip", "br"]) {
    const res = await fetchRaw(url("/vaults.json"), { headers: { "accept-encoding": coding } });
    assert.is(res.status, 200);
    const sent = res.headers["content-encoding"];
    // Decoded exactly once, the body is the identity bytes: compressed twice, it would not be.
    const once = sent === "gzip" ? gunzipSync(res.body) : sent === "br" ? brotliDecompressSync(res.body) : res.body;
    assert.ok(once.equals(golden), `${runtime} ${coding}: decoded once (${String(sent)}) gives the golden bytes`);
    if (typeof sent === "string") {
      const seen = etagsByCoding.get(sent) ?? new Map<string, string>();
      seen.set(runtime, String(res.headers["etag"]));
      etagsByCoding.set(sent, seen);
    }
  }
}

test("Node: node dist/node/server.mjs, with no node_modules anywhere above it", async () => {
  const alone = join(work, "node-alone");
  mkdirSync(alone);
  cpSync(join(dist, "node", "server.mjs"), join(alone, "server.mjs"));
  const server = await startServer(process.execPath, [join(alone, "server.mjs")], {
    ...env,
    HOST: "127.0.0.1",
    PORT: "0",
  });
  try {
    await conforms("node", server.origin);
    assert.match(
      server.output(),
      new RegExp(
        `serving unicode\\.json \\(4 vaults, 3 edges, built_at ${GOLDEN_OPTIONS.builtAt}, base URL ${GOLDEN_OPTIONS.baseUrl}, ETag ${etag}\\)`,
      ),
    );
  } finally {
    assert.is(await server.stop(), 0, "SIGTERM: exit 0");
  }
  assertQuiet("node's start line and log", server.output());
  // The base URL is stamped at build: another one set at run time is refused, not ignored.
  const refused = await run(process.execPath, [join(alone, "server.mjs")], {
    env: { ...env, HOST: "127.0.0.1", PORT: "0", BASE_URL: "https://other.example" },
    timeoutMs: 20_000,
  });
  assert.is(refused.code, 1);
  assert.is(refused.stdout.length, 0, "never listened");
  assert.match(
    refused.stderr,
    /^BASE_URL: this build serves https:\/\/registry\.example\.org, not "https:\/\/other\.example": set BASE_URL when building/,
  );
  // The same base, written with a trailing slash, is the same base: the server starts.
  const same = await startServer(process.execPath, [join(alone, "server.mjs")], {
    ...env,
    HOST: "127.0.0.1",
    PORT: "0",
    BASE_URL: `${GOLDEN_OPTIONS.baseUrl}/`,
  });
  assert.is(await same.stop(), 0);
});

/** The Node lines from the floor on, from the registry packages `npm ci` brings (`node22`, `node24`, `node26`). */
const LTS: readonly [string, string][] = [
  ["Node 22", resolve("node_modules/node22/bin/node")],
  ["Node 24", resolve("node_modules/node24/bin/node")],
  ["Node 26", resolve("node_modules/node26/bin/node")],
];
/** The lines AWS Lambda has a runtime for (nodejs22.x, nodejs24.x). */
const LAMBDA_LINES = LTS.slice(0, 2);

test("Node LTS: node dist/node/server.mjs on Node 22, 24 and 26", async () => {
  for (const [label, binary] of LTS) {
    const version = await run(binary, ["--version"], { env });
    assert.match(version.stdout.toString(), new RegExp(`^v${label.slice(5)}\\.`), label);
    const server = await startServer(binary, [join(dist, "node", "server.mjs")], {
      ...env,
      HOST: "127.0.0.1",
      PORT: "0",
    });
    try {
      await conforms(`node ${label}`, server.origin);
    } finally {
      assert.is(await server.stop(), 0, `${label}: SIGTERM, exit 0`);
    }
    assertQuiet(`${label}'s start line`, server.output());
  }
});

test("Deno: deno serve dist/fetch/index.mjs", async () => {
  const server = await startServer(
    "node_modules/.bin/deno",
    ["serve", "--host", "127.0.0.1", "--port", "0", join(dist, "fetch", "index.mjs")],
    env,
    60_000,
  );
  try {
    await conforms("deno", server.origin);
  } finally {
    await server.stop();
  }
  assertQuiet("the runtime's output", server.output());
});

test("Bun: Bun.serve over dist/fetch/index.mjs's default export", async () => {
  const server = await startServer(
    "node_modules/.bin/bun",
    ["test/runtimes/bun-serve.ts", join(dist, "fetch", "index.mjs")],
    env,
    60_000,
  );
  try {
    await conforms("bun", server.origin);
  } finally {
    await server.stop();
  }
  assertQuiet("the runtime's output", server.output());
});

/** workerd serving `fetchFile` without nodejs_compat, its port read back from its control fd. */
async function startWorkerd(
  fetchFile: string,
  name: string,
): Promise<{ origin: string; output: () => string; stop: () => Promise<void> }> {
  const dir = join(work, name);
  mkdirSync(dir);
  cpSync(fetchFile, join(dir, "index.mjs"));
  writeFileSync(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .registry) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);
const registry :Workerd.Worker = (
  modules = [ (name = "index.mjs", esModule = embed "index.mjs") ],
  compatibilityDate = "2025-09-01",
);
`,
  );
  return await serveWorkerd(dir, env);
}

test("Cloudflare Workers: workerd serves dist/fetch/index.mjs without nodejs_compat, compressing nothing twice", async () => {
  const worker = await startWorkerd(join(dist, "fetch", "index.mjs"), "workerd");
  try {
    await conforms("workerd", worker.origin);
    assert.not.match(worker.output(), /Disallowed operation|Uncaught/, worker.output());
  } finally {
    await worker.stop();
  }
  assertQuiet("workerd's output", worker.output());
});

test("Netlify: @netlify/dev serves dist/fetch as the functions folder, as deploy/netlify/netlify.toml says", async () => {
  const toml = readFileSync("deploy/netlify/netlify.toml", "utf8");
  assert.match(toml, /\[functions\]\n {2}directory = "dist\/fetch"/, "the recipe's functions folder");
  const site = join(work, "netlify-site");
  mkdirSync(site);
  symlinkSync(dist, join(site, "dist"));
  // The recipe's base is the folder that holds it; here the site folder is that folder.
  writeFileSync(join(site, "netlify.toml"), toml.replace(/^\s*base = .*\n/m, ""));
  const server = await startServer(
    NODE22,
    ["--import", "tsx", join(ROOT, "test/runtimes/netlify-serve.ts"), site],
    env,
    90_000,
  );
  try {
    await conforms("netlify", server.origin, {
      // Only the function's three paths reach it; any other is Netlify's own 404 page.
      notFound: (status, headers) => {
        assert.is(status, 404);
        assert.is(headers["x-test-netlify"], "no match");
      },
    });
  } finally {
    await server.stop();
  }
  assertQuiet("the runtime's output", server.output());
});

test("Netlify static: dist/static as the publish folder; Netlify applies _headers, the bytes are the golden ones", async () => {
  const site = join(work, "netlify-static");
  mkdirSync(site);
  cpSync(join(dist, "static"), join(site, "public"), { recursive: true });
  writeFileSync(join(site, "netlify.toml"), '[build]\n  publish = "public"\n');
  const server = await startServer(
    NODE22,
    ["--import", "tsx", join(ROOT, "test/runtimes/netlify-serve.ts"), site, "--static"],
    env,
    90_000,
  );
  try {
    for (const path of ["/vaults.json", "/api/registry.v1.json"]) {
      const res = await fetchRaw(`${server.origin}${path}`);
      assert.is(res.status, 200, path);
      assert.ok(res.body.equals(golden), `${path}: the golden bytes`);
      assert.is(res.headers["content-type"], "application/json");
      assert.is(
        res.headers["cache-control"],
        "public, max-age=300, stale-while-revalidate=86400, stale-if-error=86400",
      );
      assert.is(res.headers["access-control-allow-origin"], "*");
      assert.is(res.headers["x-content-type-options"], "nosniff");
      assert.is(
        res.headers["link"],
        `<${GOLDEN_OPTIONS.baseUrl}/api/registry.v1.schema.json>; rel="describedby", <${GOLDEN_OPTIONS.baseUrl}/api/registry.v1.openapi.json>; rel="service-desc", <${GOLDEN_OPTIONS.baseUrl}/api/registry.v1.changes.json>; rel="alternate"; type="application/feed+json", <${GOLDEN_OPTIONS.baseUrl}/api/registry.v1.changes.atom>; rel="alternate"; type="application/atom+xml"`,
      );
    }
    assert.is((await fetchRaw(`${server.origin}/vaults.json`)).headers["content-location"], "/api/registry.v1.json");
    assert.is(
      (await fetchRaw(`${server.origin}/api/registry.v1.schema.json`)).headers["content-type"],
      "application/schema+json",
    );
    // The change feeds, with the content types _headers gives them.
    assert.is(
      (await fetchRaw(`${server.origin}/api/registry.v1.changes.json`)).headers["content-type"],
      "application/feed+json",
    );
    assert.is(
      (await fetchRaw(`${server.origin}/api/registry.v1.changes.atom`)).headers["content-type"],
      "application/atom+xml",
    );
  } finally {
    await server.stop();
  }
  assertQuiet("the runtime's output", server.output());
});

let sls: Running | undefined;

test("AWS Lambda behind serverless-offline on Node 22 and 24 (nodejs22.x, nodejs24.x): REST API (payload 1.0) and HTTP API (2.0) over real HTTP", async () => {
  for (const [label, binary] of LAMBDA_LINES) await lambdaOffline(label, binary);
});

/** serverless-offline, run by `binary` (its worker threads run the handler), in front of dist/lambda/index.mjs. */
async function lambdaOffline(label: string, binary: string): Promise<void> {
  const runtime = `nodejs${label.slice(5)}.x`;
  const project = join(work, `sls-${runtime}`);
  mkdirSync(join(project, "dist"), { recursive: true });
  cpSync(join(dist, "lambda"), join(project, "dist", "lambda"), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"));
  writeFileSync(
    join(project, "serverless.yml"),
    `service: registry
provider:
  name: aws
  runtime: ${runtime}
functions:
  registry:
    handler: dist/lambda/index.handler
    events:
      - http: { path: "{proxy+}", method: any }
      - httpApi: "*"
plugins:
  - serverless-offline
`,
  );
  const [httpPort, lambdaPort] = [await freePort(), await freePort()];
  sls = await startServer(
    binary,
    [
      join(ROOT, "node_modules/serverless/bin/serverless.js"),
      "offline",
      "start",
      "--host",
      "127.0.0.1",
      "--httpPort",
      String(httpPort),
      "--lambdaPort",
      String(lambdaPort),
      "--noTimeout",
    ],
    { ...env, SLS_TELEMETRY_DISABLED: "1", SLS_NOTIFICATIONS_MODE: "off", SLS_DEPRECATION_DISABLE: "*" },
    90_000,
    { cwd: project, ready: /Server ready: (http:\/\/127\.0\.0\.1:\d+)/ },
  );
  try {
    // The emulator's HTTP layer (hapi) appends "; charset=utf-8"; API Gateway does not.
    const contentType = /^application\/json(; charset=utf-8)?$/;
    // The emulator's HTTP layer (hapi) decodes the path and drops a trailing slash before it makes
    // the event, for both payloads; the function applies the rule to the path it is given. The
    // recorded events below carry the targets undecoded, as API Gateway's rawPath does.
    const decoded = new Set(["/vaults%2ejson", "/%76aults.json", "/vaults.json/"]);
    const restRule = PATH_RULE.map(([target, status]) => [target, decoded.has(target) ? 200 : status] as const);
    await conforms(`lambda REST API, ${runtime}`, sls.origin, { prefix: "/dev", contentType, pathRule: restRule });
    await conforms(`lambda HTTP API, ${runtime}`, sls.origin, { contentType, pathRule: restRule });
  } finally {
    await sls.stop();
  }
  assertQuiet("serverless-offline's output", sls.output());
}

test("every runtime sent one ETag per coding, and Node, Deno, Bun, workerd and Netlify all offered gzip and br", () => {
  for (const coding of ["gzip", "br"]) {
    const seen = etagsByCoding.get(coding) ?? new Map<string, string>();
    for (const runtime of ["node", "deno", "bun", "workerd", "netlify"]) {
      assert.ok(seen.has(runtime), `${runtime} offered ${coding}`);
    }
    const ours = [...seen].filter(([runtime]) => !runtime.startsWith("lambda"));
    assert.is(new Set(ours.map(([, tag]) => tag)).size, 1, `${coding}: ${JSON.stringify(ours)}`);
  }
});

// --- The recorded AWS events (ALB and Function URLs have no faithful emulator) ------------------

/** The bundle's handler; no answer it gives carries a canary. */
async function lambdaBundle(): Promise<(event: unknown) => Promise<Event>> {
  const handler = (await import(pathToFileURL(join(dist, "lambda", "index.mjs")).href)).handler as (
    event: unknown,
  ) => Promise<Event>;
  return async (event) => {
    const result = await handler(event);
    assertQuiet("a Lambda answer", JSON.stringify(result));
    return result;
  };
}

test("Lambda bundle: every recorded event kind, GET/HEAD/conditional/POST, headers shaped as the event's", async () => {
  const handler = await lambdaBundle();
  for (const name of EVENTS) {
    const sample = event(name);
    const multi = usesMultiValueHeaders(sample);
    for (const path of ["/vaults.json", "/api/registry.v1.json"]) {
      const result = await handler(retarget(sample, "GET", path, { "accept-encoding": "gzip, br" }));
      assert.is(result["statusCode"], 200, `${name} ${path}`);
      assert.is(result["body"], golden.toString("utf8"), `${name}: identity bytes even to a client that accepts gzip`);
      assert.is(result["isBase64Encoded"], false);
      assert.is("multiValueHeaders" in result, multi, `${name}: multiValueHeaders exactly when the event used them`);
      const header = (h: string) => (multi ? result["multiValueHeaders"][h]?.[0] : result["headers"][h]);
      assert.is(header("etag"), etag, `${name}: the one ETag`);
      assert.is(header("content-type"), "application/json");
      assert.is("statusDescription" in result, name.startsWith("alb"), `${name}: statusDescription for ALB only`);
    }
    const head = await handler(retarget(sample, "HEAD", "/vaults.json"));
    assert.is(head["statusCode"], 200, `${name} HEAD`);
    assert.is(head["body"], "");
    assert.is(
      (await handler(retarget(sample, "GET", "/vaults.json", { "If-None-Match": etag })))["statusCode"],
      304,
      `${name}: header names in any case`,
    );
    const post = await handler(retarget(sample, "POST", "/vaults.json"));
    assert.is(post["statusCode"], 405, `${name} POST`);
    assert.is(post["multiValueHeaders"]?.["allow"]?.[0] ?? post["headers"]?.["allow"], "GET, HEAD, OPTIONS");
    assert.is((await handler(retarget(sample, "GET", "/api/registry.v2.json")))["statusCode"], 404);
    for (const [target, status] of PATH_RULE.filter(([t]) => !t.includes("?"))) {
      assert.is(
        (await handler(retarget(sample, "GET", target)))["statusCode"],
        status,
        `${name}: the path rule on ${target}`,
      );
    }
  }
});

test("Lambda bundle: a malformed event is a 400 problem and one log line, never a throw or a stack trace", async () => {
  const handler = await lambdaBundle();
  const logged: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void logged.push(args.join(" "));
  try {
    for (
      const bad of [{}, null, "GET /vaults.json", { httpMethod: "GET" }, { version: "2.0" }, {
        requestContext: { http: {} },
      }]
    ) {
      const result = await handler(bad);
      assert.is(result["statusCode"], 400, JSON.stringify(bad));
      assert.is(JSON.parse(result["body"]).status, 400);
    }
  } finally {
    console.error = original;
  }
  assert.is(logged.length, 6);
  for (const line of logged) {
    assert.match(line, /^registry: 400 for a Lambda event that is not an HTTP request/);
    assert.not.match(line, /\n|\bat .*:\d+/);
  }
});

test("no file the build wrote holds a canary or a folder of this machine", () => {
  const files = readdirSync(dist, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  assert.ok(files.length >= 8, "node, fetch, lambda and the static export");
  for (const file of files) {
    assertQuiet(
      join(file.parentPath, file.name).slice(dist.length + 1),
      readFileSync(join(file.parentPath, file.name)).toString("latin1"),
    );
  }
});

test("dist/fetch/index.mjs imports nothing of Node, and its literal config names exactly the routes", async () => {
  const text = readFileSync(join(dist, "fetch", "index.mjs"), "utf8");
  assert.not.match(text, /["']node:|require\(/);
  const literal = /^export const config = (\{ path: \[[^\]]*\] \});$/m.exec(text)?.[1];
  assert.ok(literal !== undefined, "a literal export const config");
  const paths = (JSON.parse(literal.replace("path:", '"path":')) as { path: string[] }).path;
  const served = readFileSync(join(dist, "static", "_headers"), "utf8").split("\n").filter((l) => l.startsWith("/"));
  assert.equal([...paths].sort(), [...served].sort());
});

// --- A base URL with a path: every artifact answers with and without it -------------------------

const BASE_PATH = "/registry";

/** Each address of the table, with and without BASE_PATH in front: 200, the same bytes and ETag, the documents as built. */
async function answersBothWays(
  runtime: string,
  origin: string,
  document: Buffer,
  options: { prefix?: string } = {},
): Promise<void> {
  for (const path of tablePaths(VERSIONS)) {
    const [plain, prefixed] = [
      await fetchRaw(`${origin}${options.prefix ?? ""}${path}`),
      await fetchRaw(`${origin}${options.prefix ?? ""}${BASE_PATH}${path}`),
    ];
    assert.is(plain.status, 200, `${runtime} ${path}`);
    assert.is(prefixed.status, 200, `${runtime} ${BASE_PATH}${path}`);
    assert.ok(prefixed.body.equals(plain.body), `${runtime} ${path}: the same bytes with ${BASE_PATH} in front`);
    assert.is(prefixed.headers["etag"], plain.headers["etag"], `${runtime} ${path}: the same ETag`);
    if (path === "/vaults.json" || path === "/api/registry.v1.json") {
      assert.ok(plain.body.equals(document), `${runtime} ${path}: the document built for the base URL`);
    }
  }
  assert.is(
    (await fetchRaw(`${origin}${options.prefix ?? ""}/other/vaults.json`)).status,
    404,
    `${runtime}: only the base URL's own path`,
  );
}

test("base URL with a path: node, deno, bun, workerd, Netlify and Lambda answer each address with and without it, the same bytes", async () => {
  const based = join(work, "dist-based");
  const built = await buildFirst([
    "--source",
    SOURCE,
    "--base-url",
    `https://registry.example.org${BASE_PATH}`,
    "--out",
    based,
  ], { env });
  assert.is(built.code, 0, built.stderr);
  // The static export puts its files where the base URL's path says, and _headers names them there.
  const document = readFileSync(join(based, "static", "registry", "vaults.json"));
  assert.ok(document.includes(`"canonical_url": "https://registry.example.org${BASE_PATH}/vaults.json"`));
  assert.match(readFileSync(join(based, "static", "_headers"), "utf8"), /^\/registry\/vaults\.json\n/m);
  const servers: [string, () => Promise<{ origin: string; stop: () => Promise<unknown> }>][] = [
    [
      "node",
      () =>
        startServer(process.execPath, [join(based, "node", "server.mjs")], { ...env, HOST: "127.0.0.1", PORT: "0" }),
    ],
    [
      "deno",
      () =>
        startServer(
          "node_modules/.bin/deno",
          ["serve", "--host", "127.0.0.1", "--port", "0", join(based, "fetch", "index.mjs")],
          env,
          60_000,
        ),
    ],
    [
      "bun",
      () =>
        startServer(
          "node_modules/.bin/bun",
          ["test/runtimes/bun-serve.ts", join(based, "fetch", "index.mjs")],
          env,
          60_000,
        ),
    ],
    ["workerd", () => startWorkerd(join(based, "fetch", "index.mjs"), "workerd-based")],
    ["netlify", () => {
      const site = join(work, "netlify-based");
      mkdirSync(site);
      symlinkSync(based, join(site, "dist"));
      writeFileSync(
        join(site, "netlify.toml"),
        readFileSync("deploy/netlify/netlify.toml", "utf8").replace(/^\s*base = .*\n/m, ""),
      );
      return startServer(NODE22, ["--import", "tsx", join(ROOT, "test/runtimes/netlify-serve.ts"), site], env, 90_000);
    }],
  ];
  for (const [runtime, start] of servers) {
    const server = await start();
    try {
      await answersBothWays(runtime, server.origin, document);
    } finally {
      await server.stop();
    }
  }
  // Lambda: each recorded event kind, the path as API Gateway, ALB or a Function URL would hand it.
  const handler = (await import(pathToFileURL(join(based, "lambda", "index.mjs")).href)).handler as (
    event: unknown,
  ) => Promise<Event>;
  for (const name of EVENTS) {
    for (const path of ["/vaults.json", "/api/registry.v1.json"]) {
      const [plain, prefixed] = [
        await handler(retarget(event(name), "GET", path)),
        await handler(retarget(event(name), "GET", `${BASE_PATH}${path}`)),
      ];
      assert.is(prefixed["statusCode"], 200, `${name} ${BASE_PATH}${path}`);
      assert.is(prefixed["body"], plain["body"], `${name}: the same bytes`);
      assert.is(plain["body"], document.toString("utf8"), `${name}: the document built for the base URL`);
    }
  }
});

// --- handler.ts unbundled: the development entry and the embedded snapshot ---------------------

test("deno serve handler.ts serves the embedded snapshot; without --allow-env it refuses to start, saying why", async () => {
  const devEnv = { ...env, BASE_URL: GOLDEN_OPTIONS.baseUrl };
  const server = await startServer(
    "node_modules/.bin/deno",
    ["serve", "--host", "127.0.0.1", "--port", "0", "--allow-env=BASE_URL,SOURCE_DATE_EPOCH", "handler.ts"],
    devEnv,
    60_000,
  );
  try {
    const res = await fetchRaw(`${server.origin}/vaults.json`);
    assert.is(res.status, 200);
    assert.ok(res.body.equals(readFileSync("golden/registry.json")), "golden/registry.json");
    const gz = await fetchRaw(`${server.origin}/vaults.json`, { headers: { "accept-encoding": "gzip" } });
    assert.ok(
      gunzipSync(gz.body).equals(readFileSync("golden/registry.json")),
      "gzip made on the first request decodes to the same bytes",
    );
  } finally {
    await server.stop();
  }
  const refused = await run("node_modules/.bin/deno", ["serve", "--host", "127.0.0.1", "--port", "0", "handler.ts"], {
    env: devEnv,
    timeoutMs: 60_000,
  });
  assert.is.not(refused.code, 0);
  assert.match(refused.stderr, /--allow-env=BASE_URL,SOURCE_DATE_EPOCH/);
});

test("handler.ts: Netlify's config is a literal naming exactly the version table's paths; no export named handler", async () => {
  const text = readFileSync("handler.ts", "utf8");
  // As the formatter writes it: one path a line, a trailing comma.
  const literal = /^export const config = \{\s*path: (\[[^\]]*\]),?\s*\};$/m.exec(text)?.[1];
  assert.ok(literal !== undefined, "a literal export const config");
  const mod = await import("../handler.ts");
  assert.equal(mod.config.path, JSON.parse(literal.replace(/,\s*\]$/, "]")));
  assert.equal(mod.config.path, tablePaths(VERSIONS), "the literal is the table's paths: edit it with the table");
  for (const path of mod.config.path) assert.is((await mod.default.request(path)).status, 200, path);
  assert.not.ok("handler" in mod, "a named export `handler` would make Netlify treat the file as a v1 function");
});

test.run();
