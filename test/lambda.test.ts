/**
 * The Lambda adapter in process: the one log line of an event that is not an HTTP request names
 * at most its first ten top-level keys, each cut to 64 characters, and says "none" or the type
 * where there are none. Exact, so that the mutation run (which runs only in-process tests) sees
 * every cap; the hostile-event laws are in hostile-requests.test.ts. The streaming handler, under
 * a stand-in for the runtime's `awslambda` global: the same answers as the buffered one, as an
 * HTTP prelude and a body written in pieces that wait for the stream (the real runtime client:
 * test/recipes.test.ts).
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { lambdaHandlerFor, lambdaStreamHandlerFor, type ResponseStream } from "../http/lambda.ts";
import { problem } from "../http/responses.ts";
import { zlibCompress } from "../node/common/compress.ts";
import { type Event, event, EVENTS, retarget, usesMultiValueHeaders } from "./aws-events.ts";
import { prepareBuild } from "../assembly/prepare.ts";
import { validateSource } from "../registry.ts";
import { GOLDEN_OPTIONS } from "./cases.ts";
import { generateSource } from "../bench/generate.ts";

const source = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
if (!source.ok) throw new Error("fixture invalid");
const build = await prepareBuild(source.source, GOLDEN_OPTIONS);

/** The log line of one event, and its answer's status. */
async function logOf(event: unknown): Promise<{ line: string; status: number }> {
  const logged: string[] = [];
  const result = await lambdaHandlerFor(build, (line) => logged.push(line))(event as never);
  assert.is(logged.length, 1, "one line per malformed event");
  return { line: logged[0] as string, status: result.statusCode };
}

test("Lambda log: names the first ten top-level keys, in order, and no more", async () => {
  const keys = Array.from({ length: 25 }, (_, i) => `key${String(i).padStart(2, "0")}`);
  const { line, status } = await logOf(Object.fromEntries(keys.map((k) => [k, 1])));
  assert.is(status, 400);
  const named = /\(top-level keys: (.*)\)$/.exec(line)?.[1];
  assert.is(named, keys.slice(0, 10).map((k) => `"${k}"`).join(", "));
});

test("Lambda log: each key is cut to 64 characters", async () => {
  const { line } = await logOf({ ["k".repeat(64) + "TAIL"]: 1 });
  assert.ok(line.includes(`"${"k".repeat(64)}"`), line);
  assert.not.ok(line.includes("TAIL"), line);
});

test("Lambda log: an empty object says none; a non-object says its type", async () => {
  assert.match((await logOf({})).line, /\(top-level keys: none\)$/);
  assert.match((await logOf("a string")).line, /\(top-level keys: string\)$/);
  assert.match((await logOf(null)).line, /\(top-level keys: object\)$/);
});

const golden = readFileSync("golden/registry.json", "utf8");
const handler = lambdaHandlerFor(build, () => assert.unreachable("a recorded event is logged"));
const etag = build.routes.get("/vaults.json")!.identity.etag;

/** The answer to `e` aimed at `method` and `path`, with `headers` added in the event's own shape. */
const ask = (e: Event, method: string, path: string, headers: Record<string, string> = {}) =>
  handler(retarget(e, method, path, headers));
/** A header of a result, in whichever shape it came. */
const headerOf = (result: Awaited<ReturnType<typeof handler>>, name: string): string | undefined =>
  result.headers?.[name] ?? result.multiValueHeaders?.[name]?.[0];

test("Lambda, every recorded event kind: the document, its headers in the event's own shape, and ALB's status line", async () => {
  for (const name of EVENTS) {
    const e = event(name);
    const elb = e["requestContext"]?.elb !== undefined;
    const line = (status: string) => (elb ? status : undefined);
    const ok = await ask(e, "GET", "/vaults.json");
    assert.equal([ok.statusCode, ok.body, ok.isBase64Encoded, ok.statusDescription], [
      200,
      golden,
      false,
      line("200 OK"),
    ], name);
    assert.is(headerOf(ok, "etag"), etag, name);
    if (usesMultiValueHeaders(e)) {
      assert.is(ok.headers, undefined, name);
      assert.ok(Object.values(ok.multiValueHeaders ?? {}).every((v) => Array.isArray(v) && v.length === 1), name);
    } else {
      assert.is(ok.multiValueHeaders, undefined, name);
      assert.is(ok.headers?.["content-type"], "application/json", name);
    }
    const head = await ask(e, "HEAD", "/api/registry.v1.json");
    assert.equal([head.statusCode, head.body, head.statusDescription], [200, "", line("200 OK")], name);
    assert.equal([(await ask(e, "get", "/vaults.json")).statusCode], [200], `${name}: a method in lower case`);
    const statuses: [string, string, Record<string, string>, number, string][] = [
      ["GET", "/nope", {}, 404, "404 Not Found"],
      ["POST", "/vaults.json", {}, 405, "405 Method Not Allowed"],
      ["OPTIONS", "/vaults.json", {}, 204, "204 No Content"],
      ["GET", "/vaults.json", { "If-None-Match": etag }, 304, "304 Not Modified"],
    ];
    for (const [method, path, headers, status, text] of statuses) {
      const result = await ask(e, method, path, headers);
      assert.equal([result.statusCode, result.statusDescription], [status, line(text)], `${name} ${method} ${path}`);
      if (status === 304 || status === 204) assert.is(result.body, "", `${name}: no body`);
    }
    const bad = await lambdaHandlerFor(build, () => {})({
      ...retarget(e, "GET", "/vaults.json"),
      ...(e["version"] === "2.0" ? { rawPath: "vaults.json" } : { path: "vaults.json" }),
    });
    assert.equal(
      [bad.statusCode, bad.statusDescription],
      [400, line("400 Bad Request")],
      `${name}: a path not starting with /`,
    );
  }
});

test("Lambda: header names in any case, multi-value lists joined (non-strings dropped), Accept-Encoding never read", async () => {
  const rest = event("apigw-rest-v1");
  const multi = (values: unknown[]) =>
    handler({ ...retarget(rest, "GET", "/vaults.json"), multiValueHeaders: { "IF-NONE-MATCH": values } });
  assert.is((await multi(['"other"', etag])).statusCode, 304, "a list holding the ETag");
  assert.is((await multi([7, etag])).statusCode, 304, "a non-string entry dropped");
  assert.is((await multi(['"other"'])).statusCode, 200);
  assert.is(
    (await handler({ ...retarget(event("apigw-http-v2"), "GET", "/vaults.json"), headers: { "If-None-Match": 7 } }))
      .statusCode,
    200,
    "a header that is no string is none",
  );
  const compressed = lambdaHandlerFor(await prepareBuild(source.source, GOLDEN_OPTIONS, { compress: zlibCompress }));
  const identity = await compressed(
    retarget(event("apigw-http-v2"), "GET", "/vaults.json", { "accept-encoding": "gzip, br" }),
  );
  assert.equal(
    [identity.body, identity.headers?.["content-encoding"]],
    [golden, undefined],
    "identity, whatever the client accepts",
  );
  const deferred = lambdaHandlerFor(async () => build);
  assert.equal(
    [(await deferred(retarget(event("apigw-http-v2"), "GET", "/vaults.json"))).body],
    [golden],
    "a deferred build answers once made",
  );
});

test("Lambda: an event with no method, an empty one, or no path is a 400, and one log line", async () => {
  const v2 = event("apigw-http-v2");
  const rest = event("apigw-rest-v1");
  const cases: unknown[] = [
    { ...v2, requestContext: { ...v2["requestContext"], http: { ...v2["requestContext"].http, method: "" } } },
    { ...v2, requestContext: { ...v2["requestContext"], http: { path: "/vaults.json" } } },
    { ...v2, rawPath: undefined },
    { ...rest, httpMethod: undefined },
    { ...rest, path: 7 },
    { ...rest, requestContext: "x", httpMethod: "GET", path: "/vaults.json", headers: "x", multiValueHeaders: "x" },
  ];
  for (const e of cases) {
    const logged: string[] = [];
    const result = await lambdaHandlerFor(build, (line) => logged.push(line))(e as never);
    assert.equal([result.statusCode, logged.length], [
      (e as Event)["requestContext"] === "x" ? 200 : 400,
      (e as Event)["requestContext"] === "x" ? 0 : 1,
    ], JSON.stringify(e).slice(0, 80));
  }
});

test("Lambda never throws: a failed build or a failing answer is a 500 problem (HEAD without its body); a gone path ALB's 410 Gone", async () => {
  const alb = event("alb-multivalue-headers");
  const failed = lambdaHandlerFor(async () => {
    throw new Error("secret internal detail");
  });
  const get = await failed(retarget(alb, "GET", "/vaults.json"));
  assert.equal([get.statusCode, get.statusDescription, JSON.parse(get.body)], [500, "500 Internal Server Error", {
    type: "about:blank",
    title: "Internal Server Error",
    status: 500,
  }]);
  assert.equal([(await failed(retarget(alb, "HEAD", "/vaults.json"))).body], [""]);
  assert.is((await failed({ not: "an HTTP event" })).statusCode, 500, "a failed build answers a malformed event too");
  const document = build.routes.get("/vaults.json")!;
  const broken = lambdaHandlerFor({
    ...build,
    routes: new Map([["/vaults.json", {
      ...document,
      select: () => {
        throw new Error("secret internal detail");
      },
    }]]),
  });
  const answer = await broken(retarget(event("apigw-http-v2"), "GET", "/vaults.json"));
  assert.equal([answer.statusCode, answer.body.includes("secret")], [500, false]);
  const gone = lambdaHandlerFor({ ...build, gone: new Map([["/api/registry.v0.json", problem(410, "Gone")]]) });
  const old = await gone(retarget(alb, "GET", "/api/registry.v0.json"));
  assert.equal([old.statusCode, old.statusDescription], [410, "410 Gone"]);
  // A path that is a whole URL is no event path; a header list nested in a list is no header.
  const absolute = await lambdaHandlerFor(build, () => {})({
    ...retarget(event("apigw-http-v2"), "GET", "/vaults.json"),
    rawPath: "http://h/vaults.json",
  });
  assert.is(absolute.statusCode, 400);
  const nested = await handler({
    ...retarget(event("apigw-rest-v1"), "GET", "/vaults.json"),
    multiValueHeaders: { "if-none-match": [["*"]] },
  });
  assert.is(nested.statusCode, 200);
});

/** What a stand-in for the runtime's stream saw: the prelude, each write, whether it ended. */
interface Streamed {
  prelude?: { statusCode: number; headers: Record<string, string> };
  writes: Uint8Array[];
  ended: boolean;
  /** Writes made while the stream had said to wait for "drain". */
  early: number;
}

/**
 * Runs `make`'s streaming handler under a stand-in `awslambda` global: streamifyResponse marks
 * the handler; the stream says to wait for "drain" after every second write.
 */
async function streamedBy(
  make: () => ReturnType<typeof lambdaStreamHandlerFor>,
  events: unknown[],
): Promise<{ wrapped: boolean; runs: Streamed[] }> {
  const marked = new WeakSet<object>();
  const global = globalThis as { awslambda?: unknown };
  global.awslambda = {
    streamifyResponse: (h: object) => (marked.add(h), h),
    HttpResponseStream: {
      from(stream: ResponseStream, prelude: NonNullable<Streamed["prelude"]>) {
        (stream as unknown as { seen: Streamed }).seen.prelude = prelude;
        return stream;
      },
    },
  };
  try {
    const handler = make();
    const runs: Streamed[] = [];
    for (const e of events) {
      const seen: Streamed = { writes: [], ended: false, early: 0 };
      let full = false;
      const stream = {
        seen,
        write(chunk: Uint8Array) {
          if (full) seen.early++;
          seen.writes.push(chunk.slice());
          full = seen.writes.length % 2 === 0;
          return !full;
        },
        once(_event: "drain", listener: () => void) {
          setImmediate(() => ((full = false), listener()));
        },
        end(callback: () => void) {
          seen.ended = true;
          setImmediate(callback);
        },
      };
      await handler(e, stream);
      runs.push(seen);
    }
    return { wrapped: marked.has(handler), runs };
  } finally {
    delete global.awslambda;
  }
}

test("Lambda streaming: wrapped by streamifyResponse; the buffered answer's status, headers and bytes, in 64 KiB writes that wait for drain", async () => {
  // A document of several 64 KiB pieces.
  const large = validateSource(generateSource(600));
  if (!large.ok) throw new Error(large.problems.join("; "));
  const big = await prepareBuild(large.source, GOLDEN_OPTIONS);
  const bytes = big.routes.get("/vaults.json")!.identity.body;
  assert.ok(bytes.byteLength > 3 * 64 * 1024, String(bytes.byteLength));
  const url = event("lambda-function-url");
  const bigEtag = big.routes.get("/vaults.json")!.identity.etag;
  const events = [
    retarget(url, "GET", "/vaults.json"),
    retarget(url, "HEAD", "/vaults.json"),
    retarget(url, "GET", "/vaults.json", { "if-none-match": bigEtag }),
    retarget(url, "POST", "/vaults.json"),
    retarget(url, "GET", "/nope"),
    { not: "an HTTP event" },
  ];
  const logged: string[] = [];
  const { wrapped, runs } = await streamedBy(() => lambdaStreamHandlerFor(big, (line) => logged.push(line)), events);
  assert.ok(wrapped, "streamifyResponse marked the handler");
  const buffered = lambdaHandlerFor(big, () => {});
  for (const [i, e] of events.entries()) {
    const run = runs[i]!;
    const expected = await buffered(e);
    assert.equal(
      run.prelude,
      { statusCode: expected.statusCode, headers: expected.headers },
      `event ${i}: the prelude`,
    );
    assert.ok(run.ended, `event ${i}: the stream ended`);
    assert.is(run.early, 0, `event ${i}: no write before drain`);
    assert.ok(run.writes.length >= 1, `event ${i}: at least one write, which sends the prelude`);
    assert.ok(run.writes.every((w) => w.byteLength <= 64 * 1024), `event ${i}: pieces of 64 KiB at most`);
    assert.is(Buffer.concat(run.writes).toString(), expected.body, `event ${i}: the body's bytes`);
  }
  assert.ok(Buffer.concat(runs[0]!.writes).equals(bytes));
  assert.ok(runs[0]!.writes.length > 3, "the document in pieces");
  assert.equal(
    runs.slice(1, 3).map((r) => r.writes.map((w) => w.byteLength)),
    [[0], [0]],
    "HEAD, 304: one empty write",
  );
  assert.is(logged.length, 1, "the non-HTTP event's one line");
});

test("Lambda streaming outside Lambda: not wrapped, and a call says awslambda is missing", async () => {
  const handler = lambdaStreamHandlerFor(build);
  try {
    await handler(retarget(event("lambda-function-url"), "GET", "/vaults.json"), {} as ResponseStream);
    assert.unreachable("it ran without the runtime's global");
  } catch (error) {
    assert.match(String(error), /awslambda\.HttpResponseStream is not defined: not in AWS Lambda/);
  }
});

test("a log line: every character outside printable ASCII as \\uXXXX, cut to 1024 characters with an ellipsis", async () => {
  const MAX_LOG_LINE = 1024;
  const logOf = async (e: object) => {
    const logged: string[] = [];
    await lambdaHandlerFor(build, (line) => logged.push(line))(e);
    assert.is(logged.length, 1);
    return logged[0] as string;
  };
  const said = (keys: readonly string[]) =>
    `registry: 400 for a Lambda event that is not an HTTP request (top-level keys: ${
      keys.map((k) => JSON.stringify(k)).join(", ")
    })`;
  // DEL, é and U+2028 pass JSON.stringify as they are: the line escapes them.
  assert.is(
    await logOf({ "a\u007fb\u00e9\u2028~": 1 }),
    'registry: 400 for a Lambda event that is not an HTTP request (top-level keys: "a\\u007fb\\u00e9\\u2028~")',
  );
  /** Keys of a letter, then é (6 characters escaped) and x, that make a line of exactly `length` characters. */
  const keysFor = (length: number) => {
    const keys: string[] = [];
    let left = length - said([]).length;
    for (const letter of "abcdefghij") {
      const room = left - (keys.length > 0 ? 2 : 0) - 3;
      const e = Math.min(40, Math.floor(room / 6));
      keys.push(`${letter}${"é".repeat(e)}${"x".repeat(room > 240 ? 0 : room % 6)}`);
      left -= (keys.length > 1 ? 2 : 0) + 3 + 6 * e + (room > 240 ? 0 : room % 6);
      if (left === 0) break;
    }
    const escaped = said(keys).replaceAll("é", "\\u00e9");
    assert.is(escaped.length, length);
    return { event: Object.fromEntries(keys.map((k) => [k, 1])), escaped };
  };
  const at = keysFor(MAX_LOG_LINE);
  assert.is(await logOf(at.event), at.escaped);
  const over = keysFor(MAX_LOG_LINE + 1);
  assert.is(await logOf(over.event), `${over.escaped.slice(0, MAX_LOG_LINE - 3)}...`);
  const separators = Object.fromEntries([..."abcdefghij"].map((c) => [c + "\u2028".repeat(63), 1]));
  assert.is((await logOf(separators)).length, MAX_LOG_LINE);
});

test.run();
