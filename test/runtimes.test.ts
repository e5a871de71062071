/**
 * Every runtime serves the same bytes and ETag as Node: `deno serve handler.ts`, Bun, the built
 * Lambda bundle answering real AWS events, and Netlify's calling convention. All from npm.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createApp } from "../http/app.ts";
import { prepareBuild } from "../http/prepare.ts";
import { validateSource } from "../registry.ts";
import { GOLDEN_OPTIONS } from "./cases.ts";
import { cleanEnv, run } from "./process.ts";
import { fetchRaw, startServer } from "./servers.ts";

const EPOCH = String(Date.parse(GOLDEN_OPTIONS.builtAt) / 1000);
const env = cleanEnv({ BASE_URL: GOLDEN_OPTIONS.baseUrl, SOURCE_DATE_EPOCH: EPOCH });
const golden = readFileSync("golden/registry.json");
const source = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
if (!source.ok) throw new Error("fixture invalid");
const node = createApp(await prepareBuild(source.source, GOLDEN_OPTIONS));
const nodeEtag = (await node.request("/vaults.json")).headers.get("etag") as string;
const nodeSchema = Buffer.from(await (await node.request("/api/registry.v1.schema.json")).arrayBuffer());

async function sameAsNode(origin: string): Promise<void> {
  for (const path of ["/vaults.json", "/api/registry.v1.json"]) {
    const res = await fetchRaw(`${origin}${path}`);
    assert.is(res.status, 200, path);
    assert.ok(res.body.equals(golden), `${path}: golden bytes`);
    assert.is(res.headers["etag"], nodeEtag, `${path}: the same ETag as Node`);
    assert.is(res.headers["content-type"], "application/json");
    assert.is(res.headers["content-length"], String(golden.length));
    assert.is(res.headers["last-modified"], "Sat, 21 Nov 2026 12:00:00 GMT");
  }
  assert.is((await fetchRaw(`${origin}/vaults.json`, { headers: { "if-none-match": nodeEtag } })).status, 304);
  assert.is((await fetchRaw(`${origin}/vaults.json`, { method: "HEAD" })).body.length, 0);
  assert.ok((await fetchRaw(`${origin}/api/registry.v1.schema.json`)).body.equals(nodeSchema), "the same schema");
  assert.is((await fetchRaw(`${origin}/api/registry.v2.json`)).status, 404);
  const gz = await fetchRaw(`${origin}/vaults.json`, { headers: { "accept-encoding": "gzip" } });
  assert.is(gz.headers["content-encoding"], "gzip");
  assert.is(gz.headers["vary"], "Accept-Encoding");
  assert.ok(gunzipSync(gz.body).equals(golden), "gzip decodes to the golden bytes");
  assert.is((await fetchRaw(`${origin}/vaults.json`, { method: "DELETE" })).status, 405);
}

test("deno serve handler.ts: the same bytes and ETag as Node", async () => {
  const deno = await startServer(
    "node_modules/.bin/deno",
    ["serve", "--host", "127.0.0.1", "--port", "0", "--allow-env=BASE_URL,SOURCE_DATE_EPOCH", "handler.ts"],
    env,
  );
  try {
    await sameAsNode(deno.origin);
  } finally {
    await deno.stop();
  }
});

test("deno serve without --allow-env refuses to start, saying why", async () => {
  const result = await run("node_modules/.bin/deno", ["serve", "--host", "127.0.0.1", "--port", "0", "handler.ts"], { env, timeoutMs: 60_000 });
  assert.is.not(result.code, 0);
  assert.match(result.stderr, /--allow-env=BASE_URL,SOURCE_DATE_EPOCH/);
});

test("bun serves handler.ts: the same bytes and ETag as Node", async () => {
  const bun = await startServer("node_modules/.bin/bun", ["test/runtimes/bun-serve.ts"], env);
  try {
    await sameAsNode(bun.origin);
  } finally {
    await bun.stop();
  }
});

// --- AWS Lambda: the built bundle, invoked with real published events --------------------------

type Event = Record<string, any>;
const EVENTS = ["apigw-rest-v1", "apigw-rest-v1-stage", "apigw-http-v2", "alb-multivalue-headers", "alb-headers-only", "lambda-function-url"];
const event = (name: string): Event => JSON.parse(readFileSync(`fixtures/aws-events/${name}.json`, "utf8"));

/** The event with only its method, path and (added) headers changed, in the event's own shape. */
function retarget(e: Event, method: string, path: string, headers: Record<string, string> = {}): Event {
  const copy = structuredClone(e);
  if (copy["version"] === "2.0") {
    copy["rawPath"] = path;
    copy["requestContext"].http.method = method;
    copy["requestContext"].http.path = path;
  } else {
    copy["httpMethod"] = method;
    copy["path"] = path;
    if (copy["requestContext"]?.httpMethod !== undefined) copy["requestContext"].httpMethod = method;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (copy["headers"]) copy["headers"][name] = value;
    if (copy["multiValueHeaders"]) copy["multiValueHeaders"][name] = [value];
  }
  return copy;
}

const outDir = mkdtempSync(join(tmpdir(), "registry-build-"));
let lambda: (event: unknown) => Promise<Event>;

test.before(async () => {
  const built = await run("node", ["--import", "tsx", "node/build.ts", "--out", outDir], { env, timeoutMs: 120_000 });
  if (built.code !== 0) throw new Error(built.stderr);
  delete process.env["BASE_URL"]; // as on a Lambda with no BASE_URL set: the stamped one applies
  lambda = (await import(pathToFileURL(join(outDir, "lambda", "index.mjs")).href)).handler;
});
test.after(() => rmSync(outDir, { recursive: true, force: true }));

test("Lambda bundle: GET on both paths for every event kind, headers shaped as the event's", async () => {
  for (const name of EVENTS) {
    const sample = event(name);
    for (const path of ["/vaults.json", "/api/registry.v1.json"]) {
      const result = await lambda(retarget(sample, "GET", path));
      assert.is(result["statusCode"], 200, `${name} ${path}`);
      assert.is(result["body"], golden.toString("utf8"), `${name}: body identical to Node's`);
      assert.is(result["isBase64Encoded"], false);
      const multi = sample["multiValueHeaders"] !== undefined && sample["multiValueHeaders"] !== null;
      assert.is("multiValueHeaders" in result, multi, `${name}: multiValueHeaders exactly when the event used them`);
      assert.is("headers" in result, !multi, `${name}: headers otherwise`);
      const header = (h: string) => (multi ? result["multiValueHeaders"][h]?.[0] : result["headers"][h]);
      assert.is(header("etag"), nodeEtag, `${name}: the same ETag as Node`);
      assert.is(header("content-type"), "application/json");
      assert.is(header("last-modified"), "Sat, 21 Nov 2026 12:00:00 GMT", "built_at stamped at build");
    }
  }
});

test("Lambda bundle: answers identity even to clients that accept gzip (base64 bodies break REST APIs)", async () => {
  for (const name of EVENTS) {
    const result = await lambda(retarget(event(name), "GET", "/vaults.json", { "accept-encoding": "gzip, br" }));
    assert.is(result["statusCode"], 200, name);
    assert.is(result["isBase64Encoded"], false, name);
    assert.is(result["body"], golden.toString("utf8"), name);
  }
});

test("Lambda bundle: HEAD, conditional GET and POST for every event kind", async () => {
  for (const name of EVENTS) {
    const sample = event(name);
    const head = await lambda(retarget(sample, "HEAD", "/vaults.json"));
    assert.is(head["statusCode"], 200, `${name} HEAD`);
    assert.is(head["body"], "");
    const conditional = await lambda(retarget(sample, "GET", "/vaults.json", { "if-none-match": nodeEtag }));
    assert.is(conditional["statusCode"], 304, `${name} conditional`);
    assert.is(conditional["body"], "");
    const post = await lambda(retarget(sample, "POST", "/vaults.json"));
    assert.is(post["statusCode"], 405, `${name} POST`);
    assert.is((post["multiValueHeaders"]?.["allow"]?.[0]) ?? post["headers"]?.["allow"], "GET, HEAD, OPTIONS");
  }
});

test("Lambda bundle: the samples as published (POSTs to other paths) and malformed events get 4xx, never a throw", async () => {
  for (const name of EVENTS) {
    const result = await lambda(event(name));
    assert.ok([404, 405].includes(result["statusCode"]), `${name}: ${result["statusCode"]}`);
  }
  for (const bad of [{}, null, "GET /vaults.json", { httpMethod: "GET" }, { version: "2.0" }, { requestContext: { http: {} } }]) {
    const result = await lambda(bad);
    assert.ok([400, 404].includes(result["statusCode"]), `${JSON.stringify(bad)}: ${result["statusCode"]}`);
  }
});

test("static output: both paths are the golden bytes; the schema is Node's; _headers repeats the server's", () => {
  assert.ok(readFileSync(join(outDir, "static", "vaults.json")).equals(golden));
  assert.ok(readFileSync(join(outDir, "static", "api", "registry.v1.json")).equals(golden));
  assert.ok(readFileSync(join(outDir, "static", "api", "registry.v1.schema.json")).equals(nodeSchema));
  const headers = readFileSync(join(outDir, "static", "_headers"), "utf8");
  for (const path of ["/vaults.json", "/api/registry.v1.json", "/api/registry.v1.schema.json"]) {
    assert.match(headers, new RegExp(`^${path.replaceAll(".", "\\.")}\\n  content-type: application/(schema\\+)?json$`, "m"));
  }
  assert.match(headers, /^ {2}access-control-allow-origin: \*$/m);
  assert.match(headers, /^ {2}link: <https:\/\/registry\.example\.org\/api\/registry\.v1\.schema\.json>; rel="describedby"$/m);
});

// --- Netlify Functions v2: default export called as fetch(request, context), routed by config.path -

test("Netlify convention: config.path routes the three addresses; default.fetch(request, context) answers", async () => {
  const saved = { BASE_URL: process.env["BASE_URL"], SOURCE_DATE_EPOCH: process.env["SOURCE_DATE_EPOCH"] };
  Object.assign(process.env, { BASE_URL: GOLDEN_OPTIONS.baseUrl, SOURCE_DATE_EPOCH: EPOCH });
  const mod = await import("../handler.ts").finally(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  assert.equal(mod.config.path, ["/vaults.json", "/api/registry.v1.json", "/api/registry.v1.schema.json"]);
  assert.not.ok("handler" in mod, "a named export `handler` would make Netlify treat the file as a v1 function");
  const context = { account: { id: "a" }, deploy: { id: "d" }, geo: {}, ip: "203.0.113.1", params: {}, requestId: "r", site: { id: "s" }, waitUntil: () => undefined };
  for (const path of mod.config.path.slice(0, 2)) {
    const res = await mod.default.fetch(new Request(`https://registry.netlify.app${path}`), context);
    assert.is(res.status, 200);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(golden));
    assert.is(res.headers.get("etag"), nodeEtag);
  }
});

test.run();
