/**
 * Hostile requests: odd methods, encoded and enormous paths, malformed and enormous headers,
 * bodies on GET. Only deliberate answers come back (2xx, 304, 4xx), never a 5xx, a hang or a
 * stack trace, and the server keeps serving. Through `app.request`, raw over a socket to the Node
 * server, and as malformed Lambda events.
 */
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createApp } from "../http/app.ts";
import { lambdaHandlerFor } from "../http/lambda.ts";
import { zlibCompress } from "../node/common/compress.ts";
import { prepareBuild } from "../assembly/prepare.ts";
import { answerListener } from "../node/serve/answer-server.ts";
import { validateSource } from "../registry.ts";
import { fcParams } from "./arbitraries.ts";
import { GOLDEN_OPTIONS } from "./cases.ts";
import { cleanEnv } from "./process.ts";
import { fetchRaw, rawExchange as rawBytes, startServer } from "./servers.ts";

const rawExchange = async (port: number, bytes: string): Promise<string> =>
  (await rawBytes(port, bytes)).toString("latin1");

const source = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
if (!source.ok) throw new Error("fixture invalid");
const build = await prepareBuild(source.source, GOLDEN_OPTIONS, { compress: zlibCompress });
const app = createApp(build);
const golden = readFileSync("golden/registry.json");

const method = fc.oneof(
  fc.constantFrom("GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH", "TRACE", "PROPFIND", "get", "M-SEARCH"),
  fc.stringMatching(/^[A-Z][A-Z-]{0,11}$/),
);
const path = fc.oneof(
  fc.constantFrom(
    "/vaults.json",
    "/api/registry.v1.json",
    "/api/registry.v1.schema.json",
    "/vaults%2Ejson",
    "/vaults.json%00",
    "/%2e%2e/vaults.json",
    "//vaults.json",
    "/api%2Fregistry.v1.json",
    "/vaults.json/..",
    "/./vaults.json",
    "/vaults.json?%%%",
    "/vaults.json#frag",
    "/%",
    "/%zz",
    "/\u00e9",
    "/api/registry.v2.json",
  ),
  fc.string({ maxLength: 40 }).map((s) => `/${encodeURIComponent(s)}`),
  fc.integer({ min: 1, max: 9 }).map((k) => `/${"a".repeat(k * 1024)}`),
);
const headerValue = fc.oneof(
  fc.constantFrom(
    '"x"',
    "*",
    "W/",
    '"',
    ",,,",
    'W/""',
    "gzip;q=abc",
    "br;q=-1, *;q=2",
    "identity;q=0, *;q=0",
    "bytes=0-10",
    "Thu, 01 Jan 1970 00:00:00 GMT",
    "not a date",
  ),
  fc.string({ maxLength: 30 }).map((s) => s.replace(/[\r\n\0]/g, " ")),
  fc.integer({ min: 1, max: 9 }).map((k) => `"${"e".repeat(k * 1024)}"`),
);
const headers = fc.dictionary(
  fc.constantFrom(
    "if-none-match",
    "if-modified-since",
    "accept-encoding",
    "range",
    "if-range",
    "origin",
    "accept",
    "x-forwarded-host",
    "content-length",
  ),
  headerValue,
  { maxKeys: 4 },
);

const DELIBERATE = new Set([200, 204, 304, 400, 404, 405]);
/** A stack frame or a source location: what an answer must never show. */
const STACK_TRACE = /\n\s+at \S|\.(ts|js|mjs|cjs):\d+:\d+|node:internal/;

test("app.request: any method, path and headers get a deliberate answer, never a 5xx or a stack trace", async () => {
  await fc.assert(
    fc.asyncProperty(method, path, headers, async (m, p, h) => {
      let res: Response;
      try {
        res = await app.request(p, { method: m, headers: h });
      } catch (error: unknown) {
        // The test's own Request refused the input (a forbidden method or header): not the app's.
        if (error instanceof TypeError) return;
        throw error;
      }
      assert.ok(DELIBERATE.has(res.status), `${m} ${p} ${JSON.stringify(h)} -> ${res.status}`);
      const body = Buffer.from(await res.arrayBuffer());
      if (res.headers.get("content-encoding") === null) {
        assert.not.match(body.toString("latin1"), STACK_TRACE, "no stack trace");
      }
      if (res.status >= 400) assert.is(res.headers.get("content-type"), "application/problem+json");
      if (
        res.status === 200 && m === "GET" && res.headers.get("content-encoding") === null &&
        res.headers.get("content-type") === "application/json"
      ) {
        assert.ok(body.equals(golden), "a 200 is the whole document, Range or not");
      }
    }),
    fcParams,
  );
});

test("Netlify's convention: fetch(request, context) with any context answers as app.request does", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.anything(),
      fc.constantFrom("/vaults.json", "/api/registry.v1.schema.json", "/nope"),
      async (context, p) => {
        const res = await app.fetch(new Request(`https://registry.netlify.app${p}`), context as never);
        assert.is(res.status, p === "/nope" ? 404 : 200);
      },
    ),
    fcParams,
  );
});

test("raw socket to the Node server: hostile requests get a deliberate status line, and it keeps serving", async () => {
  const epoch = String(Date.parse(GOLDEN_OPTIONS.builtAt) / 1000);
  const server = await startServer(
    "node",
    ["--import", "tsx", "node/bin/serve.ts"],
    cleanEnv({ HOST: "127.0.0.1", PORT: "0", BASE_URL: GOLDEN_OPTIONS.baseUrl, SOURCE_DATE_EPOCH: epoch }),
  );
  const port = Number(new URL(server.origin).port);
  const rawHeader = fc.oneof(
    headers.map((h) => Object.entries(h).map(([k, v]) => `${k}: ${v}`)),
    fc.constantFrom(
      ["X: \u0001\u007f"],
      ["Bad Header: x"],
      [`X-Long: ${"v".repeat(20_000)}`],
      ["Transfer-Encoding: chunked"],
      ["Content-Length: -1"],
      ["Content-Length: 5", "Content-Length: 6"],
    ),
  );
  const body = fc.constantFrom("", "hello", "{}", "\u0000\u0001");
  const version = fc.constantFrom("HTTP/1.1", "HTTP/1.0", "HTTP/9.9", "");
  const seen = new Set<string>();
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(method, fc.constant("GET")),
        fc.oneof(path, fc.constantFrom("/vaults.json", "/api/registry.v1.json")),
        fc.oneof(rawHeader, fc.constant([])),
        body,
        fc.oneof(version, fc.constant("HTTP/1.1")),
        async (m, p, h, b, v) => {
          const request = `${m} ${p} ${v}\r\nHost: 127.0.0.1\r\nConnection: close\r\n${
            h.map((l) => `${l}\r\n`).join("")
          }${b ? `Content-Length: ${b.length}\r\n` : ""}\r\n${b}`;
          const answer = await rawExchange(port, request);
          const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1];
          seen.add(status ?? "closed");
          // Node itself closes some malformed requests without a status line (or answers 400/431/505).
          if (status !== undefined) {
            assert.ok(
              Number(status) < 500 || status === "505",
              `${JSON.stringify(request.slice(0, 120))} -> ${status}`,
            );
          }
          assert.not.match(answer, STACK_TRACE, "no stack trace");
        },
      ),
      { ...fcParams, numRuns: Math.min(fcParams.numRuns, 120) },
    );
    for (const expected of ["200", "404", "400"]) assert.ok(seen.has(expected), `saw ${[...seen].join(", ")}`);
    const after = await fetchRaw(`${server.origin}/vaults.json`);
    assert.is(after.status, 200, "still serving");
    assert.ok(after.body.equals(golden));
  } finally {
    await server.stop();
  }
});

test("a header sent twice: the Node listener sees every line, as app.request does (two If-Modified-Since: no 304)", async () => {
  const server = createServer(answerListener(build));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    const late = "Fri, 01 Jan 2100 00:00:00 GMT";
    const early = "Thu, 01 Jan 1970 00:00:00 GMT";
    const etag = (await app.request("/vaults.json")).headers.get("etag") as string;
    for (
      const [lines, joined] of [
        [[`If-Modified-Since: ${late}`, `If-Modified-Since: ${early}`], { "if-modified-since": `${late}, ${early}` }],
        [[`If-Modified-Since: ${late}`], { "if-modified-since": late }],
        [['If-None-Match: "other"', `If-None-Match: ${etag}`], { "if-none-match": `"other", ${etag}` }],
      ] as const
    ) {
      const raw = await rawExchange(
        port,
        `GET /vaults.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${
          lines.map((l) => `${l}\r\n`).join("")
        }\r\n`,
      );
      const viaApp = await app.request("/vaults.json", { headers: joined });
      assert.is(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1], String(viaApp.status), lines.join(" | "));
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test("Lambda: any event, however malformed, gets a 4xx or a deliberate answer, never an exception", async () => {
  const logged: string[] = [];
  const lambda = lambdaHandlerFor(build, (line) => logged.push(line));
  const event = fc.oneof(
    fc.anything(),
    fc.record({
      httpMethod: fc.oneof(method, fc.anything()),
      path: fc.oneof(path, fc.anything()),
      headers: fc.oneof(fc.anything(), fc.dictionary(fc.string(), fc.string())),
      multiValueHeaders: fc.anything(),
      body: fc.anything(),
      isBase64Encoded: fc.anything(),
      requestContext: fc.anything(),
    }, { requiredKeys: [] }),
    fc.record({
      version: fc.constant("2.0"),
      rawPath: fc.oneof(path, fc.anything()),
      rawQueryString: fc.anything(),
      headers: fc.anything(),
      cookies: fc.anything(),
      requestContext: fc.record({
        domainName: fc.oneof(fc.string(), fc.constant("<url-id>.lambda-url.on.aws")),
        http: fc.record({ method: fc.oneof(method, fc.anything()) }),
      }),
    }, { requiredKeys: [] }),
  );
  await fc.assert(
    fc.asyncProperty(event, async (e) => {
      const result = await lambda(e as never);
      assert.ok(DELIBERATE.has(result.statusCode), `${JSON.stringify(e)?.slice(0, 200)} -> ${result.statusCode}`);
      if (!result.isBase64Encoded) assert.not.match(String(result.body), STACK_TRACE);
    }),
    fcParams,
  );
  for (const line of logged) {
    assert.is(line.split("\n").length, 1, "one line per malformed event");
    assert.not.match(line, STACK_TRACE);
  }
});

test("Lambda: a malformed event's log line is one line of at most 1 KB, whatever its keys hold", async () => {
  const logged: string[] = [];
  const lambda = lambdaHandlerFor(build, (line) => logged.push(line));
  await lambda({ ["k".repeat(2_000_000)]: 1 } as never);
  await lambda({ "a\nregistry: forged second line": 1, "\u2028b\r": 2 } as never);
  await lambda(Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`key-${i}-${"x".repeat(100)}`, i])) as never);
  assert.is(logged.length, 3);
  for (const line of logged) {
    assert.ok(new TextEncoder().encode(line).length <= 1024, `${line.length} bytes`);
    assert.not.match(line, /[\n\r\u2028\u2029]/, "no line break of any kind");
  }
  assert.match(logged[1] as string, /"a\\nregistry: forged second line"/);
});

test("LOG_REQUESTS=1 logs the path of an absolute-form target: never its userinfo, host or query", async () => {
  const server = await startServer(
    "node",
    ["--import", "tsx", "node/bin/serve.ts"],
    cleanEnv({ HOST: "127.0.0.1", PORT: "0", LOG_REQUESTS: "1" }),
  );
  const port = Number(new URL(server.origin).port);
  try {
    const answer = await rawExchange(
      port,
      "GET http://user:pw@elsewhere.example/vaults.json?token=x HTTP/1.1\r\nHost: elsewhere.example\r\nConnection: close\r\n\r\n",
    );
    assert.match(answer, /^HTTP\/1\.1 200 /);
    // Text in the query of an absolute-form target is not its path: the path is /, a 404.
    assert.match(
      await rawExchange(
        port,
        "GET http://elsewhere.example?/vaults.json?token=x HTTP/1.1\r\nHost: elsewhere.example\r\nConnection: close\r\n\r\n",
      ),
      /^HTTP\/1\.1 404 /,
    );
    assert.match(
      await rawExchange(
        port,
        "GET http://elsewhere.example:99999/vaults.json HTTP/1.1\r\nHost: elsewhere.example\r\nConnection: close\r\n\r\n",
      ),
      /^HTTP\/1\.1 400 /,
    );
    await rawExchange(port, "GET * HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
    await new Promise((r) => setTimeout(r, 100));
  } finally {
    await server.stop();
  }
  const lines = server.output().split("\n").filter((l) => l.startsWith("{")).map((l) =>
    JSON.parse(l) as { path: string; status: number }
  );
  assert.equal(lines.map((l) => [l.path, l.status]), [["/vaults.json", 200], ["/", 404], ["(not a path)", 400], [
    "(not a path)",
    400,
  ]]);
  assert.not.match(server.output(), /user|pw@|elsewhere|token/);
});

test.run();
