/** The HTTP rules of docs/http.md, through `app.request` (no socket). */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import fc from "fast-check";
import { answerer, answersOf, basePathOf } from "../http/answer.ts";
import { addressesOf, createApp } from "../http/app.ts";
import { httpDate } from "../http/responses.ts";
import { tablePaths } from "../contract/version-policy.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { fcParams } from "./arbitraries.ts";
import { prepareBuild } from "../assembly/prepare.ts";
import { validateSource } from "../registry.ts";
import { restoreBuild } from "../http/restore.ts";
import { stampBuild } from "../node/builder/stamp.ts";
import { GOLDEN_OPTIONS } from "./cases.ts";
import { pathOf, plainAuthority } from "../http/request-path.ts";
import { staticHeaders } from "../node/builder/static.ts";
import { zlibCompress } from "../node/common/compress.ts";

const source = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
if (!source.ok) throw new Error("fixture invalid");
const build = await prepareBuild(source.source, GOLDEN_OPTIONS);
const app = createApp(build);
const golden = readFileSync("golden/registry.json");
const DOCS = ["/vaults.json", "/api/registry.v1.json"];
const SCHEMA = "/api/registry.v1.schema.json";

const get = (path: string, init: RequestInit = {}) => app.request(path, init);

test("the app never throws and never answers in Hono's own words: a request it cannot route, or one that fails on a second look, is a 500 problem", async () => {
  const broken = [
    { method: "GET", url: undefined, headers: new Headers() },
    { method: "GET", url: 5, headers: new Headers() },
  ];
  for (const raw of broken) {
    const res = await app.fetch(raw as unknown as Request);
    assert.is(res.status, 500);
    assert.is(res.headers.get("content-type"), "application/problem+json");
    assert.is(res.headers.get("access-control-allow-origin"), "*");
  }
  let reads = 0;
  const fickle = {
    get method() {
      if (reads++ > 0) throw new Error("a second look");
      return "GET";
    },
    url: "http://h/vaults.json",
    headers: new Headers(),
  };
  const res = await app.fetch(fickle as unknown as Request);
  assert.ok(res.status === 200 || res.status === 500, String(res.status));
  assert.ok(res.headers.get("content-type") !== "text/plain; charset=UTF-8", "not Hono's own 500");
  // A deferred build given no addresses, as a JavaScript caller may: every path is routed to the table.
  for (
    const raw of [undefined, {
      get method() {
        throw new Error("a first look");
      },
      url: "http://h/vaults.json",
    }]
  ) {
    const failed = await app.fetch(raw as unknown as Request);
    assert.equal([failed.status, failed.headers.get("content-type")], [500, "application/problem+json"]);
  }
  const untyped = createApp as unknown as (deferred: unknown) => ReturnType<typeof createApp>;
  let builds = 0;
  const routedAll = untyped(async () => (builds++, build));
  assert.equal(routedAll.routes.map((r) => `${r.method} ${r.path}`), ["ALL /*"]);
  // A target with no path, or no URL to read, is not an address even to the catch-all route, and builds nothing.
  assert.is(
    (await routedAll.fetch({ method: "GET", url: "*", headers: new Headers() } as unknown as Request)).status,
    400,
  );
  assert.is((await routedAll.fetch({ method: "GET", url: undefined, headers: new Headers() } as never)).status, 500);
  assert.is(builds, 0);
  assert.is((await routedAll.request("/vaults.json")).status, 200);
});

test("the app declares a route for each address of the build, with the base URL's path in front too when it has one", async () => {
  assert.equal(app.routes.map((r) => `${r.method} ${r.path}`), addressesOf(build).map((p) => `ALL ${p}`));
  assert.equal(addressesOf(build), [
    "/vaults.json",
    "/api/registry.v1.json",
    "/api/registry.v1.schema.json",
    "/api/registry.v1.openapi.json",
    "/api/registry.v1.changes.json",
    "/api/registry.v1.changes.atom",
  ]);
  const staged = await prepareBuild(source.source, { ...GOLDEN_OPTIONS, baseUrl: "https://api.example.org/prod" });
  const paths = createApp(staged).routes.map((r) => r.path);
  assert.equal(paths, [...addressesOf(build), ...addressesOf(build).map((p) => `/prod${p}`)]);
  // A deferred build routes the addresses it is given, and builds on the first request.
  let made = 0;
  const deferred = createApp(async () => (made++, build), ["/vaults.json"]);
  assert.equal(deferred.routes.map((r) => r.path), ["/vaults.json"]);
  assert.is(made, 0);
  assert.is((await deferred.request("/api/registry.v1.json")).status, 404, "a path it was not given is not routed");
  assert.is(made, 0, "and a 404 builds nothing");
  assert.is((await deferred.request("/vaults.json")).status, 200);
  assert.is((await deferred.request("/vaults.json/")).status, 404, "a trailing slash is another path");
  assert.is(made, 1);
});
const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

test("GET both paths: 200, the golden bytes, identical headers", async () => {
  const [a, b] = await Promise.all(DOCS.map((p) => get(p)));
  for (const res of [a!, b!]) {
    assert.is(res.status, 200);
    assert.ok((await bytes(res)).equals(golden), "body is golden/registry.json");
  }
  // The same headers, but /vaults.json also names (and lets browsers read) the versioned path whose bytes it serves.
  const { "content-location": location, "access-control-expose-headers": exposed, ...canonical } = Object.fromEntries(
    a!.headers,
  );
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
  assert.is(
    h.get("link"),
    `<${GOLDEN_OPTIONS.baseUrl}/api/registry.v1.schema.json>; rel="describedby", <${GOLDEN_OPTIONS.baseUrl}/api/registry.v1.openapi.json>; rel="service-desc", <${GOLDEN_OPTIONS.baseUrl}/api/registry.v1.changes.json>; rel="alternate"; type="application/feed+json", <${GOLDEN_OPTIONS.baseUrl}/api/registry.v1.changes.atom>; rel="alternate"; type="application/atom+xml"`,
  );
  assert.is(h.get("set-cookie"), null);
  assert.is(h.get("x-powered-by"), null);
});

test("security headers on every answer, errors included; no cookies, no X-Powered-By or Server version", async () => {
  const answers = [
    await get("/vaults.json"),
    await get("/vaults.json", { method: "HEAD" }),
    await get("/nope"),
    await get("/vaults.json", { method: "POST" }),
    await get(SCHEMA),
  ];
  for (const res of answers) {
    assert.is(res.headers.get("x-content-type-options"), "nosniff");
    assert.is(res.headers.get("content-security-policy"), "default-src 'none'; frame-ancestors 'none'");
    assert.is(res.headers.get("cross-origin-resource-policy"), "cross-origin");
    assert.is(res.headers.get("referrer-policy"), "no-referrer");
    assert.is(res.headers.get("access-control-allow-origin"), "*");
    for (const leak of ["set-cookie", "x-powered-by", "server", "access-control-allow-credentials"]) {
      assert.is(res.headers.get(leak), null, leak);
    }
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
  // The answer itself, under any framework: Hono drops a HEAD body on its own, so look beneath it.
  const answer = answerer(build);
  for (const path of [...DOCS, SCHEMA, "/nope"]) {
    const [g, h] = [answer("GET", path, () => undefined), answer("HEAD", path, () => undefined)];
    assert.is(h.body, null, `HEAD ${path}: no body`);
    assert.ok(g.body !== null && g.body.byteLength > 0);
    assert.equal(h.headers, g.headers, `HEAD ${path}: the GET headers, Content-Length included`);
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
  for (
    const form of ["Sat, 21 Nov 2026 12:00:00 GMT", "Saturday, 21-Nov-26 12:00:00 GMT", "Sat Nov 21 12:00:00 2026"]
  ) {
    assert.is((await get("/vaults.json", { headers: { "if-modified-since": form } })).status, 304, form);
  }
  for (
    const loose of [
      "3000",
      "foo 2099",
      "2099-01-01",
      "Sat, 31 Feb 2099 12:00:00 GMT",
      "sat, 21 nov 2099 12:00:00 gmt",
      "Sat, 21 Nov 2099 12:00:00 UTC",
    ]
  ) {
    assert.is((await get("/vaults.json", { headers: { "if-modified-since": loose } })).status, 200, loose);
  }
  const both = { "if-none-match": '"other"', "if-modified-since": at("2027-01-01T00:00:00Z") };
  assert.is((await get("/vaults.json", { headers: both })).status, 200, "If-None-Match takes precedence");
});

test("OPTIONS: a CORS preflight answered 204", async () => {
  const res = await get("/vaults.json", {
    method: "OPTIONS",
    headers: {
      origin: "https://app.example",
      "access-control-request-method": "GET",
      "access-control-request-headers": "if-none-match",
    },
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
  const broken = {
    ...document,
    select: () => {
      throw new Error("secret internal detail");
    },
  };
  const res = await createApp({ ...build, routes: new Map([["/vaults.json", broken]]) }).request("/vaults.json");
  assert.is(res.status, 500);
  assert.is(res.headers.get("content-type"), "application/problem+json");
  assert.equal(JSON.parse((await bytes(res)).toString()), {
    type: "about:blank",
    title: "Internal Server Error",
    status: 500,
  });
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
      assert.equal(JSON.parse((await bytes(res)).toString()), {
        type: "about:blank",
        title: "Method Not Allowed",
        status: 405,
      });
    }
  }
});

test("any other path, v2 included: 404 problem+json with CORS, no internal detail", async () => {
  for (
    const path of [
      "/",
      "/api/registry.v2.json",
      "/vaults.json/",
      "/VAULTS.JSON",
      "/vaults",
      "/api/registry.v1.json.bak",
      "/vaults/harbour-ledger/",
    ]
  ) {
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
    // A first segment starting with _ is refused (static hosts read such names at the root).
    fc.asyncProperty(
      fc.array(segment, { minLength: 1, maxLength: 3 }).map((
        [first, ...rest],
      ) => [(first as string).startsWith("_") ? `r${first}` : (first as string), ...rest]),
      fc.constantFrom(...tablePaths(VERSIONS), "/api/registry.v2.json", "/"),
      fc.constantFrom("GET", "HEAD", "POST", "OPTIONS"),
      fc.boolean(),
      async (segments, path, method, slash) => {
        const prefix = `/${segments.join("/")}`;
        const base = await prepareBuild(source.source, {
          ...GOLDEN_OPTIONS,
          baseUrl: `https://registry.example.org${prefix}${slash ? "/" : ""}`,
        });
        const answer = answerer(base);
        const header = () => undefined;
        const plain = answer(method, path, header);
        const prefixed = answer(method, `${prefix}${path}`, header);
        assert.equal(
          [prefixed.status, prefixed.headers, prefixed.body],
          [plain.status, plain.headers, plain.body],
          `${prefix}${path}`,
        );
        assert.is(basePathOf(base.meta.baseUrl), prefix);
        // /vaults.json points at its versioned path inside the deployment, never outside it.
        if (path === "/vaults.json" && (method === "GET" || method === "HEAD")) {
          assert.is(
            plain.headers["content-location"],
            `${prefix}/api/registry.v1.json`,
          );
        }
        // Only the base's own path: another prefix, or the prefix twice, is not an address.
        assert.is(answer(method, `/other${path}`, header).status, 404);
        if (path !== "/") assert.is(answer(method, `${prefix}${prefix}${path}`, header).status, 404);
      },
    ),
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
  assert.is(
    answer("GET", "/registry.v1.json", header).status,
    404,
    "the base path is not removed from an address that has it",
  );
});

test("Content-Location under a base path: the answers, the static export's _headers and the OpenAPI description name /reg/api/registry.v1.json", async () => {
  const based = await prepareBuild(source.source, { ...GOLDEN_OPTIONS, baseUrl: "https://registry.example.org/reg" });
  const answer = answerer(based);
  for (const path of ["/vaults.json", "/reg/vaults.json"]) {
    assert.is(answer("GET", path, () => undefined).headers["content-location"], "/reg/api/registry.v1.json", path);
  }
  assert.match(
    staticHeaders(based),
    /^\/reg\/vaults\.json\n(?: {2}.*\n)*? {2}content-location: \/reg\/api\/registry\.v1\.json\n/,
  );
  const openapi = JSON.parse(
    new TextDecoder().decode(
      answer("GET", "/reg/api/registry.v1.openapi.json", () => undefined).body ?? new Uint8Array(),
    ),
  ) as {
    paths: Record<string, { get: { responses: Record<string, { headers: Record<string, { schema: unknown }> }> } }>;
  };
  assert.equal(openapi.paths["/vaults.json"]?.get.responses["200"]?.headers["Content-Location"]?.schema, {
    const: "/reg/api/registry.v1.json",
  });
  // A bare origin keeps the versioned path as it is (the goldens).
  assert.is(
    answerer(build)("GET", "/vaults.json", () => undefined).headers["content-location"],
    "/api/registry.v1.json",
  );
});

/** Request targets and the path each names (http/request-path.ts): origin-form, absolute-form, full URLs. */
const TARGETS: readonly (readonly [string, string | null])[] = [
  ["/vaults.json", "/vaults.json"],
  ["/vaults.json?x=/y", "/vaults.json"],
  ["/vaults.json#frag", "/vaults.json"],
  ["/vaults.json#/api/../x?y", "/vaults.json"],
  ["/#/vaults.json", "/"],
  ["/?#/vaults.json", "/"],
  ["/a/../vaults.json#x", "/vaults.json"],
  ["http://h/vaults.json?x", "/vaults.json"],
  ["http://h/vaults.json#x", "/vaults.json"],
  ["http://h:8080/vaults.json", "/vaults.json"],
  ["https://user:pw@h/vaults.json", "/vaults.json"],
  // Text after the authority that is not a path never becomes one.
  ["http://h?/vaults.json", "/"],
  ["http://h#/vaults.json", "/"],
  ["http://h?q#/vaults.json", "/"],
  ["http://h", "/"],
  ["http://u@h?/vaults.json", "/"],
  ["http://h\\vaults.json", "/vaults.json"],
  // A target the URL parser refuses has no path.
  ["http://h:99999/vaults.json", null],
  ["http://h:65536/vaults.json", null],
  ["http://h:8x/vaults.json", null],
  ["http://h.2/vaults.json", null],
  ["http://256.0.0.1/vaults.json", null],
  ["http://[::1/vaults.json", null],
  ["*", null],
  ["ftp://h/vaults.json", null],
  ["vaults.json", null],
];

test("pathOf: each request form names the path the URL parser gives it; query and fragment never reach it", () => {
  for (const [target, path] of TARGETS) assert.is(pathOf(target), path, target);
});

test("law: asked in any order, each target again and again, pathOf gives each its own path (the last one read is kept)", () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...TARGETS), { maxLength: 30 }), (asked) => {
      for (const [target, path] of asked) assert.is(pathOf(target), path, target);
    }),
    fcParams,
  );
});

test("law: an absolute http(s) target's path is exactly the WHATWG pathname, or null where the parser refuses it", () => {
  const authority = fc.oneof(
    fc.constantFrom(
      "h",
      "h.example",
      "127.0.0.1",
      "[::1]",
      "user:pw@h",
      "@h",
      "h:",
      "h:0",
      "h:80",
      "h:65535",
      "h:65536",
      "h:99999",
      "h:-1",
      "h:8x",
      "H.EXAMPLE",
      "[::1",
      "h%41",
      "h.2",
      "1.2.3",
      "256.1.1.1",
      "h.0x1",
      "xn--a",
      "h.",
      "a--b",
    ),
    fc.stringMatching(/^[a-z0-9.:@x-]{0,12}$/),
  );
  const rest = fc.stringMatching(/^[a-z/?#.%\\:@2e]{0,16}$/);
  fc.assert(
    fc.property(fc.constantFrom("http://", "https://"), authority, rest, (scheme, auth, tail) => {
      const target = `${scheme}${auth}${tail}`;
      let expected: string | null;
      try {
        expected = new URL(target).pathname;
      } catch {
        expected = null;
      }
      assert.is(pathOf(target), expected, target);
    }),
    fcParams,
  );
});

test("law: an origin-form target's path is the WHATWG pathname of it under any host", () => {
  fc.assert(
    fc.property(fc.stringMatching(/^[a-z/?#.%\\2e]{0,20}$/), (tail) => {
      const target = `/${tail}`;
      assert.is(pathOf(target), new URL(`http://h${target}`).pathname, target);
    }),
    fcParams,
  );
});

test("app: a full URL with no path (never sent by a runtime, but not trusted) is a 400 problem", async () => {
  const res = await app.fetch(new Request("http://h/vaults.json"), {} as never);
  assert.is(res.status, 200);
  const refused = await createApp(build).fetch(
    { url: "http://h:99999/vaults.json", method: "GET", headers: new Headers() } as unknown as Request,
  );
  assert.is(refused.status, 400);
  assert.is(refused.headers.get("content-type"), "application/problem+json");
  assert.equal(await refused.json(), { type: "about:blank", title: "Bad Request", status: 400 });
});

test("httpDate: RFC 9110's three forms in every month, exactly and nothing around them; an impossible time or day is NaN", () => {
  const year = new Date().getUTCFullYear();
  const names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  names.forEach((month, i) => {
    const want = Date.UTC(2026, i, 1, 8, 49, 37);
    const weekday = new Date(want).toUTCString().slice(0, 3);
    const long =
      ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][new Date(want).getUTCDay()];
    for (
      const form of [
        `${weekday}, 01 ${month} 2026 08:49:37 GMT`,
        `${long}, 01-${month}-${String(2026 % 100).padStart(2, "0")} 08:49:37 GMT`,
        `${weekday} ${month}  1 08:49:37 2026`,
      ]
    ) {
      if (form.includes("-") && 2026 > year + 50) continue; // a two-digit year is read within 50 years of now
      assert.is(httpDate(form), want, form);
      for (const loose of [` ${form}`, `${form} `, `x${form}`, `${form}x`]) {
        assert.ok(Number.isNaN(httpDate(loose)), JSON.stringify(loose));
      }
    }
  });
  assert.is(httpDate("Sun Nov  6 08:49:37 1994"), Date.UTC(1994, 10, 6, 8, 49, 37), "asctime's space-padded day");
  assert.is(httpDate("Sun, 06 Nov 1994 23:59:59 GMT"), Date.UTC(1994, 10, 6, 23, 59, 59), "the last second of a day");
  assert.is(
    httpDate("Sun, 06 Nov 1994 23:59:60 GMT"),
    Date.UTC(1994, 10, 6, 23, 59, 59),
    "a leap second is read as :59",
  );
  for (
    const bad of [
      "Sun, 06 Nov 1994 24:00:00 GMT",
      "Sun, 06 Nov 1994 08:60:00 GMT",
      "Sun, 06 Nov 1994 99:00:00 GMT",
      "Sun, 06 Nov 1994 23:59:61 GMT",
      "Sun, 06 Noo 1994 08:49:37 GMT",
      "Sat, 31 Feb 2026 08:49:37 GMT",
      "",
      "3000",
    ]
  ) {
    assert.ok(Number.isNaN(httpDate(bad)), bad);
  }
  // RFC 850's two-digit year: up to 50 years ahead is this century's, further ahead the last one's.
  const ahead = year + 50;
  const at = (yy: number) => httpDate(`Sunday, 06-Nov-${String(yy % 100).padStart(2, "0")} 08:49:37 GMT`);
  assert.is(new Date(at(ahead)).getUTCFullYear(), ahead);
  assert.is(new Date(at(ahead + 1)).getUTCFullYear(), ahead + 1 - 100);
});

test("app: a ready build answers at once, its failure too; a deferred one is built once, on the first requests, then answers at once", async () => {
  const now = createApp(build).fetch(new Request("http://h/vaults.json"));
  assert.ok(now instanceof Response, "a ready build answers without a promise");
  assert.ok(Buffer.from(await now.arrayBuffer()).equals(golden));
  const document = build.routes.get("/vaults.json")!;
  const broken = createApp({
    ...build,
    routes: new Map([["/vaults.json", {
      ...document,
      select: () => {
        throw new Error("secret internal detail");
      },
    }]]),
  }).fetch(new Request("http://h/vaults.json"));
  assert.ok(broken instanceof Response, "a failure of a ready build answers without a promise");
  assert.equal([broken.status, await broken.json()], [500, {
    type: "about:blank",
    title: "Internal Server Error",
    status: 500,
  }]);
  let builds = 0;
  const deferred = createApp(async () => {
    builds++;
    return build;
  }, addressesOf(build)).fetch;
  const first = [
    deferred(new Request("http://h/vaults.json")),
    deferred(new Request("http://h/api/registry.v1.json", { method: "HEAD" })),
  ];
  assert.ok(first.every((r) => r instanceof Promise), "the first requests wait for the build");
  const [get, head] = await Promise.all(first);
  assert.equal([get!.status, head!.status, builds], [200, 200, 1]);
  assert.ok(Buffer.from(await get!.arrayBuffer()).equals(golden));
  assert.is(await head!.text(), "");
  const later = deferred(new Request("http://h/vaults.json"));
  assert.ok(later instanceof Response, "once built, it answers without a promise");
  assert.is(builds, 1);
  const failing = createApp(async () => {
    throw new Error("secret internal detail");
  }, ["/vaults.json"]).fetch;
  const failed = await failing(new Request("http://h/vaults.json"));
  assert.equal([failed.status, await failed.json()], [500, {
    type: "about:blank",
    title: "Internal Server Error",
    status: 500,
  }]);
  const failedHead = await failing(new Request("http://h/vaults.json", { method: "HEAD" }));
  assert.equal([failedHead.status, await failedHead.text()], [500, ""], "HEAD: no body, failure or not");
  const throwing = await createApp(
    (() => {
      throw "secret internal detail";
    }) as () => Promise<typeof build>,
    ["/vaults.json"],
  ).fetch(new Request("http://h/vaults.json"));
  assert.is(throwing.status, 500, "a build function that throws at once, even a non-Error: a 500, not an exception");
  const raw = new Request("http://h/vaults.json", { method: "HEAD" });
  Object.defineProperty(raw, "cf", {
    get: () => {
      throw new Error("secret internal detail");
    },
  });
  const cf = await createApp(build).fetch(raw);
  assert.ok(cf instanceof Response, "a runtime request object that throws: a 500, not an exception");
  assert.equal([cf.status, await cf.text()], [500, ""]);
});

test("answersOf: a ready build's answers now and when asked; a deferred one's only once ready, from one build however many ask", async () => {
  const ready = answersOf(build, answerer);
  assert.is(ready.current()?.("GET", "/vaults.json", () => undefined).status, 200);
  assert.is((await ready.ready())("GET", "/vaults.json", () => undefined).status, 200);
  let builds = 0;
  const deferred = answersOf(async () => {
    builds++;
    return build;
  }, answerer);
  assert.is(deferred.current(), undefined);
  const [a, b] = await Promise.all([deferred.ready(), deferred.ready()]);
  assert.is(a, b);
  assert.is(deferred.current(), a);
  assert.is(builds, 1);
  assert.is(a("GET", "/api/registry.v1.json", () => undefined).status, 200);
});

test("app: a failure outside the answer (a runtime's request object that throws) is a bare 500 problem there too", async () => {
  const raw = new Request("http://h/vaults.json");
  Object.defineProperty(raw, "cf", {
    get: () => {
      throw new Error("secret internal detail");
    },
  });
  const res = await createApp(build).fetch(raw);
  assert.equal([res.status, res.headers.get("content-type"), await res.json()], [500, "application/problem+json", {
    type: "about:blank",
    title: "Internal Server Error",
    status: 500,
  }]);
});

test("law: pathOf gives the path of every plain target, origin- or absolute-form, and of any other the path the URL parser gives", () => {
  const segment = fc.string({ unit: fc.constantFrom(..."az09_~-"), minLength: 1, maxLength: 5 });
  const path = fc.array(segment, { maxLength: 4 }).map((segments) => `/${segments.join("/")}`);
  const after = fc.constantFrom("", "?", "?q=1", "#f", "?a#b", "?/..%2e\\", "#/x/../y");
  const authority = fc.constantFrom("h", "registry.example.org", "h:8080", "10.0.0.1", "a-b.c:1");
  const plainTarget = fc.oneof(
    fc.tuple(path, after).map(([p, a]) => ({ target: p + a, path: p })),
    fc.tuple(fc.constantFrom("http://", "https://"), authority, path, after).map(([scheme, host, p, a]) => ({
      target: scheme + host + p + a,
      path: p,
    })),
  );
  fc.assert(
    fc.property(plainTarget, ({ target, path: want }) => assert.is(pathOf(target), want, target)),
    fcParams,
  );
  // Anything else: exactly the parser's path, of an origin-form or http(s) target; no path for any other.
  const parser = (target: string): string | null => {
    if (!target.startsWith("/") && !target.startsWith("http://") && !target.startsWith("https://")) return null;
    try {
      return new URL(target.startsWith("/") ? `http://x${target}` : target).pathname;
    } catch {
      return null;
    }
  };
  const odd = fc.string({ unit: fc.constantFrom(..."/\\.%2e?#:@hH0a-[]"), maxLength: 12 });
  const target = fc.oneof(
    odd,
    odd.map((t) => `/${t}`),
    fc.tuple(fc.constantFrom("http://", "https://", "http:/", "HTTP://"), odd).map(([a, b]) => a + b),
  );
  fc.assert(
    fc.property(target, (t) => assert.is(pathOf(t), parser(t), t)),
    { ...fcParams, numRuns: (fcParams.numRuns ?? 100) * 5 },
  );
  for (
    const t of [
      "/a/./b",
      "/a/../b",
      "/%2e",
      "/a\\b",
      "http://h//x",
      "http://h:99999/",
      "http://H/x",
      "http://h?/x",
      "http://h\\x",
      "http://h#/x",
      "*",
      "ftp://h/x",
      "ftp://registry.example.org/x",
    ]
  ) assert.is(pathOf(t), parser(t), t);
  assert.is(pathOf("ftp://registry.example.org/x"), null, "another scheme has no path");
});

test("restoreBuild: a stamp's bodies, text and base64, each decoded once and kept; its gone paths; a missing body an error naming its ETag", async () => {
  const compressed = await prepareBuild(source.source, GOLDEN_OPTIONS, { compress: zlibCompress });
  const stamp = JSON.parse(JSON.stringify(stampBuild(compressed, ["gzip", "br"])));
  const restored = restoreBuild(stamp);
  let encodings = 0;
  for (const [path, resource] of compressed.routes) {
    const again = restored.routes.get(path)!;
    assert.ok(Buffer.from(again.identity.body).equals(Buffer.from(resource.identity.body)), path);
    assert.is(again.identity.body, again.identity.body, "decoded once, then the same bytes");
    for (const [coding, variant] of Object.entries(resource.encoded)) {
      assert.ok(
        Buffer.from(again.encoded[coding as "gzip"]!.body).equals(Buffer.from(variant.body)),
        `${path} ${coding}`,
      );
      encodings++;
    }
  }
  assert.ok(encodings >= 2, "gzip and br bodies travel as base64");
  const problemText = '{"type":"about:blank","title":"Gone","status":410}\n';
  const withGone = restoreBuild({
    ...stamp,
    gone: {
      "/api/registry.v0.json": {
        status: 410,
        headers: { "content-type": "application/problem+json" },
        text: problemText,
      },
    },
  });
  const gone = withGone.gone.get("/api/registry.v0.json")!;
  assert.equal([gone.status, gone.headers, new TextDecoder().decode(gone.body)], [410, {
    "content-type": "application/problem+json",
  }, problemText]);
  const broken = restoreBuild({ ...stamp, bodies: {} });
  const etag = stamp.routes["/vaults.json"].identity.etag as string;
  assert.throws(
    () => broken.routes.get("/vaults.json")!.identity.body,
    (error: Error) => error.message === `the stamp has no body for ETag ${etag}`,
  );
});

test("plainAuthority: every plain host name, dotted quad and port up to 65535 is; the URL parser takes every one it says is as it is", () => {
  const plain = [
    "a",
    "h",
    "registry.example.org",
    "a-b.c-d",
    "a-b-c.d-e-f",
    "x1.y2z",
    "a1.b",
    "0a.b",
    "h:0",
    "h:8080",
    "h:65535",
    "a.b.c.d.e.f.g",
    "0.0.0.0",
    "1.2.3.4",
    "9.10.99.100",
    "199.200.249.250",
    "255.255.255.255:65535",
    "10.0.0.1:1",
  ];
  for (const a of plain) {
    assert.ok(plainAuthority(a), a);
    assert.is(new URL(`http://${a}/`).host, a.replace(/:(80)?$/, ""), a);
  }
  for (
    const a of [
      "",
      "H",
      "a..b",
      ".a",
      "a.",
      "-a",
      "a-",
      "a--b.c-",
      "a.1",
      "1.2.3",
      "1.2.3.4.5",
      "256.1.1.1",
      "1.2.3.256",
      "01.2.3.4",
      "h:65536",
      "h:123456",
      "h:",
      ":80",
      "a b",
      "[::1]",
      "u@h",
      "a_b",
      "ü.de",
      "h:8a",
      "1.2.3.4:99999",
    ]
  ) {
    assert.not.ok(plainAuthority(a), JSON.stringify(a));
  }
  // Sound over generated authorities: whatever it calls plain, the parser reads back unchanged.
  const label = fc.string({ unit: fc.constantFrom(..."ab09-"), minLength: 1, maxLength: 4 });
  const authority = fc.oneof(
    fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join(".")),
    fc.array(fc.nat({ max: 300 }).map(String), { minLength: 3, maxLength: 5 }).map((parts) => parts.join(".")),
    fc.string({ unit: fc.constantFrom(..."a0.-:[]%@_ 9z"), maxLength: 10 }),
  );
  fc.assert(
    fc.property(authority, fc.option(fc.nat({ max: 99999 })), (host, port) => {
      const a = port === null ? host : `${host}:${port}`;
      if (plainAuthority(a)) assert.is(new URL(`http://${a}/`).host, a.replace(/:80$/, ""), a);
    }),
    { ...fcParams, numRuns: (fcParams.numRuns ?? 100) * 5 },
  );
});

test("basePathOf: the path without its trailing slashes; a bare origin has none", () => {
  assert.is(basePathOf("https://registry.example.org/reg//"), "/reg");
  assert.is(basePathOf("https://registry.example.org/a/b/"), "/a/b");
  assert.is(basePathOf("https://registry.example.org"), "");
});

test("a compressor that fails: prepareBuild rejects once with its error, and no rejection is left unhandled", async () => {
  if (!source.ok) throw new Error("fixture invalid");
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    const failing = {
      "at once": (_: Uint8Array, encoding: string) => Promise.reject(new Error(`no ${encoding}`)),
      "thrown": (_: Uint8Array, encoding: string): Promise<Uint8Array<ArrayBuffer>> => {
        throw new Error(`no ${encoding}`);
      },
      "later": (_: Uint8Array, encoding: string) =>
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no ${encoding}`)), 20)),
    };
    for (const [how, compress] of Object.entries(failing)) {
      let calls = 0;
      const counted = (bytes: Uint8Array, encoding: string) => (calls++, compress(bytes, encoding));
      const error = await prepareBuild(source.source, GOLDEN_OPTIONS, { compress: counted as typeof zlibCompress })
        .then(() => undefined, (e: unknown) => e);
      assert.instance(error, Error, how);
      assert.match((error as Error).message, /^no (br|gzip)$/, how);
      assert.ok(calls > 1, `${how}: several codings were under way`);
    }
    // Rejections left unhandled are reported after a turn of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(unhandled, []);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});

test.run();
