/** HTTP semantics of D7, through `app.request` (no socket). */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import fc from "fast-check";
import { answerer, basePathOf } from "../http/answer.ts";
import { createApp } from "../http/app.ts";
import { tablePaths } from "../http/version-policy.ts";
import { VERSIONS } from "../http/versions.ts";
import { fcParams } from "./arbitraries.ts";
import { prepareBuild } from "../http/prepare.ts";
import { validateSource } from "../registry.ts";
import { restoreBuild } from "../http/restore.ts";
import { stampBuild } from "../node/build/stamp.ts";
import { GOLDEN_OPTIONS } from "./cases.ts";

const source = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
if (!source.ok) throw new Error("fixture invalid");
const build = await prepareBuild(source.source, GOLDEN_OPTIONS);
const app = createApp(build);
const golden = readFileSync("golden/registry.json");
const DOCS = ["/vaults.json", "/api/registry.v1.json"];
const SCHEMA = "/api/registry.v1.schema.json";

const get = (path: string, init: RequestInit = {}) => app.request(path, init);
const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

test("GET both paths: 200, the golden bytes, identical headers", async () => {
  const [a, b] = await Promise.all(DOCS.map((p) => get(p)));
  for (const res of [a!, b!]) {
    assert.is(res.status, 200);
    assert.ok((await bytes(res)).equals(golden), "body is golden/registry.json");
  }
  // The same headers, but /vaults.json also names (and lets browsers read) the versioned path whose bytes it serves.
  const { "content-location": location, "access-control-expose-headers": exposed, ...canonical } = Object.fromEntries(a!.headers);
  assert.is(location, "/api/registry.v1.json");
  assert.is(exposed, "ETag, Link, Allow, Content-Location");
  assert.is(b!.headers.get("content-location"), null);
  assert.is(b!.headers.get("access-control-expose-headers"), "ETag, Link, Allow");
  const { "access-control-expose-headers": _, ...versioned } = Object.fromEntries(b!.headers);
  assert.equal(canonical, versioned);
});

test("headers: exact content type, strong ETag, length, caching, Last-Modified = built_at, CORS, nosniff, Link", async () => {
  const res = await get("/vaults.json");
  const h = res.headers;
  assert.is(h.get("content-type"), "application/json");
  assert.match(h.get("etag") ?? "", /^"[0-9a-f]{32}"$/);
  assert.is(h.get("content-length"), String(golden.byteLength));
  assert.is(h.get("cache-control"), "public, max-age=300, stale-while-revalidate=86400, stale-if-error=86400");
  assert.is(h.get("last-modified"), "Sat, 21 Nov 2026 12:00:00 GMT");
  assert.is(new Date(h.get("last-modified") ?? "").toISOString(), "2026-11-21T12:00:00.000Z");
  assert.is(h.get("access-control-allow-origin"), "*");
  assert.is(h.get("access-control-expose-headers"), "ETag, Link, Allow, Content-Location");
  assert.is(h.get("x-content-type-options"), "nosniff");
  assert.is(h.get("link"), `<${GOLDEN_OPTIONS.baseUrl}/api/registry.v1.schema.json>; rel="describedby", <${GOLDEN_OPTIONS.baseUrl}/api/registry.v1.openapi.json>; rel="service-desc", <${GOLDEN_OPTIONS.baseUrl}/api/registry.v1.changes.json>; rel="alternate"; type="application/feed+json", <${GOLDEN_OPTIONS.baseUrl}/api/registry.v1.changes.atom>; rel="alternate"; type="application/atom+xml"`);
  assert.is(h.get("set-cookie"), null);
  assert.is(h.get("x-powered-by"), null);
});

test("security headers on every answer, errors included; no cookies, no X-Powered-By or Server version", async () => {
  const answers = [await get("/vaults.json"), await get("/vaults.json", { method: "HEAD" }), await get("/nope"), await get("/vaults.json", { method: "POST" }), await get(SCHEMA)];
  for (const res of answers) {
    assert.is(res.headers.get("x-content-type-options"), "nosniff");
    assert.is(res.headers.get("content-security-policy"), "default-src 'none'; frame-ancestors 'none'");
    assert.is(res.headers.get("cross-origin-resource-policy"), "cross-origin");
    assert.is(res.headers.get("referrer-policy"), "no-referrer");
    assert.is(res.headers.get("access-control-allow-origin"), "*");
    for (const leak of ["set-cookie", "x-powered-by", "server", "access-control-allow-credentials"]) assert.is(res.headers.get(leak), null, leak);
  }
});

test("the ETag is derived from the bytes: SHA-256, first 128 bits", async () => {
  const digest = Buffer.from(await crypto.subtle.digest("SHA-256", golden)).subarray(0, 16).toString("hex");
  assert.is((await get("/api/registry.v1.json")).headers.get("etag"), `"${digest}"`);
});

test("query strings are ignored", async () => {
  for (const path of ["/vaults.json?x=1", "/api/registry.v1.json?v=2&callback=evil", "/vaults.json?"]) {
    const res = await get(path);
    assert.is(res.status, 200, path);
    assert.ok((await bytes(res)).equals(golden), path);
  }
});

test("HEAD: the GET headers, no body", async () => {
  for (const path of [...DOCS, SCHEMA]) {
    const [g, h] = await Promise.all([get(path), get(path, { method: "HEAD" })]);
    assert.is(h.status, 200);
    assert.equal(Object.fromEntries(h.headers), Object.fromEntries(g.headers));
    assert.is((await bytes(h)).length, 0);
  }
});

test("If-None-Match: the ETag, a list holding it, W/ of it, or * answer 304 with no body", async () => {
  const etag = (await get("/vaults.json")).headers.get("etag") as string;
  for (const value of [etag, `"nope", ${etag}`, `W/${etag}`, "*", ` ${etag} ,"x"`]) {
    for (const method of ["GET", "HEAD"]) {
      const res = await get("/api/registry.v1.json", { method, headers: { "if-none-match": value } });
      assert.is(res.status, 304, `${method} ${value}`);
      assert.is((await bytes(res)).length, 0);
      assert.is(res.headers.get("etag"), etag);
      assert.is(res.headers.get("access-control-allow-origin"), "*");
      assert.is(res.headers.get("content-type"), null);
    }
  }
  for (const value of ['"nope"', `W/"x"`, etag.slice(0, -2) + '"', "", etag.replaceAll('"', "")]) {
    assert.is((await get("/vaults.json", { headers: { "if-none-match": value } })).status, 200, value);
  }
});

test("If-Modified-Since: at or after built_at gives 304; before, or malformed, gives 200; If-None-Match wins", async () => {
  const at = (iso: string) => new Date(iso).toUTCString();
  assert.is((await get("/vaults.json", { headers: { "if-modified-since": at("2026-11-21T12:00:00Z") } })).status, 304);
  assert.is((await get("/vaults.json", { headers: { "if-modified-since": at("2027-01-01T00:00:00Z") } })).status, 304);
  assert.is((await get("/vaults.json", { headers: { "if-modified-since": at("2026-11-21T11:59:59Z") } })).status, 200);
  assert.is((await get("/vaults.json", { headers: { "if-modified-since": "not a date" } })).status, 200);
  // RFC 9110's three HTTP-date forms count; anything else Date.parse would take does not.
  for (const form of ["Sat, 21 Nov 2026 12:00:00 GMT", "Saturday, 21-Nov-26 12:00:00 GMT", "Sat Nov 21 12:00:00 2026"]) {
    assert.is((await get("/vaults.json", { headers: { "if-modified-since": form } })).status, 304, form);
  }
  for (const loose of ["3000", "foo 2099", "2099-01-01", "Sat, 31 Feb 2099 12:00:00 GMT", "sat, 21 nov 2099 12:00:00 gmt", "Sat, 21 Nov 2099 12:00:00 UTC"]) {
    assert.is((await get("/vaults.json", { headers: { "if-modified-since": loose } })).status, 200, loose);
  }
  const both = { "if-none-match": '"other"', "if-modified-since": at("2027-01-01T00:00:00Z") };
  assert.is((await get("/vaults.json", { headers: both })).status, 200, "If-None-Match takes precedence");
});

test("OPTIONS: a CORS preflight answered 204", async () => {
  const res = await get("/vaults.json", {
    method: "OPTIONS",
    headers: { origin: "https://app.example", "access-control-request-method": "GET", "access-control-request-headers": "if-none-match" },
  });
  assert.is(res.status, 204);
  assert.is(res.headers.get("access-control-allow-origin"), "*");
  assert.is(res.headers.get("access-control-allow-methods"), "GET, HEAD, OPTIONS");
  assert.match(res.headers.get("access-control-allow-headers") ?? "", /If-None-Match/);
  assert.is(res.headers.get("allow"), "GET, HEAD, OPTIONS");
  assert.is(res.headers.get("access-control-max-age"), "86400");
  assert.is((await bytes(res)).length, 0);
});

test("errors are not cached; without codings on offer there is no Vary", async () => {
  assert.is((await get("/nope")).headers.get("cache-control"), "no-store");
  assert.is((await get("/vaults.json", { method: "PUT" })).headers.get("cache-control"), "no-store");
  assert.is((await get("/vaults.json")).headers.get("vary"), null);
});

test("an unexpected failure answers a bare 500 problem, no detail", async () => {
  const document = build.routes.get("/vaults.json")!;
  const broken = { ...document, select: () => { throw new Error("secret internal detail"); } };
  const res = await createApp({ ...build, routes: new Map([["/vaults.json", broken]]) }).request("/vaults.json");
  assert.is(res.status, 500);
  assert.is(res.headers.get("content-type"), "application/problem+json");
  assert.equal(JSON.parse((await bytes(res)).toString()), { type: "about:blank", title: "Internal Server Error", status: 500 });
});

test("a stamped build (what every artifact embeds) serves the same bytes and headers", async () => {
  const again = createApp(restoreBuild(JSON.parse(JSON.stringify(stampBuild(build, [])))));
  for (const path of [...DOCS, SCHEMA]) {
    const [a, b] = [await get(path), await again.request(path, { headers: { "accept-encoding": "gzip" } })];
    assert.ok((await bytes(a)).equals(await bytes(b)), path);
    assert.equal(Object.fromEntries(a.headers), Object.fromEntries(b.headers));
  }
  assert.is((await again.request("/vaults.json", { headers: { "if-none-match": build.meta.etag } })).status, 304);
});

test("other methods on the registry's paths: 405 problem+json with Allow", async () => {
  for (const method of ["POST", "PUT", "DELETE", "PATCH", "PROPFIND"]) {
    for (const path of [...DOCS, SCHEMA]) {
      const res = await get(path, { method, ...(method === "POST" || method === "PUT" ? { body: "{}" } : {}) });
      assert.is(res.status, 405, `${method} ${path}`);
      assert.is(res.headers.get("allow"), "GET, HEAD, OPTIONS");
      assert.is(res.headers.get("content-type"), "application/problem+json");
      assert.equal(JSON.parse((await bytes(res)).toString()), { type: "about:blank", title: "Method Not Allowed", status: 405 });
    }
  }
});

test("any other path, v2 included: 404 problem+json with CORS, no internal detail", async () => {
  for (const path of ["/", "/api/registry.v2.json", "/vaults.json/", "/VAULTS.JSON", "/vaults", "/api/registry.v1.json.bak", "/vaults/harbour-ledger/"]) {
    const res = await get(path);
    assert.is(res.status, 404, path);
    assert.is(res.headers.get("content-type"), "application/problem+json");
    assert.is(res.headers.get("access-control-allow-origin"), "*");
    const body = (await bytes(res)).toString();
    assert.equal(JSON.parse(body), { type: "about:blank", title: "Not Found", status: 404 });
  }
});

test("the schema: application/schema+json, cached and CORS like the document, $id under the base URL", async () => {
  const res = await get(SCHEMA);
  assert.is(res.status, 200);
  assert.is(res.headers.get("content-type"), "application/schema+json");
  assert.match(res.headers.get("etag") ?? "", /^"[0-9a-f]{32}"$/);
  assert.not.equal(res.headers.get("etag"), (await get("/vaults.json")).headers.get("etag"));
  assert.is(res.headers.get("access-control-allow-origin"), "*");
  assert.is(res.headers.get("cache-control"), (await get("/vaults.json")).headers.get("cache-control"));
  const schema = JSON.parse((await bytes(res)).toString());
  assert.is(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
  assert.is(schema.$id, `${GOLDEN_OPTIONS.baseUrl}/api/registry.v1.schema.json`);
  const etag = res.headers.get("etag") as string;
  assert.is((await get(SCHEMA, { headers: { "if-none-match": etag } })).status, 304);
});

test("law: with a base URL that has a path, every address answers the same with that path in front; nothing else is added", async () => {
  const segment = fc.stringMatching(/^[a-z0-9_.~-]{1,8}$/).filter((x) => x !== "." && x !== "..");
  await fc.assert(
    fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 3 }), fc.constantFrom(...tablePaths(VERSIONS), "/api/registry.v2.json", "/"), fc.constantFrom("GET", "HEAD", "POST", "OPTIONS"), fc.boolean(), async (segments, path, method, slash) => {
      const prefix = `/${segments.join("/")}`;
      const base = await prepareBuild(source.source, { ...GOLDEN_OPTIONS, baseUrl: `https://registry.example.org${prefix}${slash ? "/" : ""}` });
      const answer = answerer(base);
      const header = () => undefined;
      const plain = answer(method, path, header);
      const prefixed = answer(method, `${prefix}${path}`, header);
      assert.equal([prefixed.status, prefixed.headers, prefixed.body], [plain.status, plain.headers, plain.body], `${prefix}${path}`);
      assert.is(basePathOf(base.meta.baseUrl), prefix);
      // Only the base's own path: another prefix, or the prefix twice, is not an address.
      assert.is(answer(method, `/other${path}`, header).status, 404);
      if (path !== "/") assert.is(answer(method, `${prefix}${prefix}${path}`, header).status, 404);
    }),
    { ...fcParams, numRuns: Math.min(fcParams.numRuns ?? 100, 40) },
  );
});

test("a base path that is itself the start of an address keeps that address exact", async () => {
  const api = await prepareBuild(source.source, { ...GOLDEN_OPTIONS, baseUrl: "https://registry.example.org/api" });
  const answer = answerer(api);
  const header = () => undefined;
  assert.is(answer("GET", "/api/registry.v1.json", header).status, 200, "the versioned path as it is");
  assert.is(answer("GET", "/api/api/registry.v1.json", header).status, 200, "and with the base path in front");
  assert.is(answer("GET", "/api/vaults.json", header).status, 200);
  assert.is(answer("GET", "/registry.v1.json", header).status, 404, "the base path is not removed from an address that has it");
});

test.run();
