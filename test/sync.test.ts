/**
 * The consumer kit's `catchUp` and `sync` (client/client.ts) in this process, fast (the catch-up
 * mutation group runs this file first): the history sequence (`fixtures/history/`) built in memory
 * and served by a small server of this process, which answers the feed conditionally and counts
 * requests; every kind a run can give, with its request count and the copy's exact bytes; then
 * `sync`'s bounds and every message it says, in one line, naming the request by host and path.
 * The same kit on Deno, Bun and workerd against real builds is client.test.ts.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { catchUp, type ChangeFeed, sync, SyncError, type SyncResult } from "../client/client.ts";
import { strongEtag } from "../http/responses.ts";
import { historySteps } from "./cases.ts";
import { buildStep, type Built } from "./feed-history.ts";
type JsonObject = Record<string, unknown>;

const FEED = "/api/registry.v1.changes.json";
const DOCUMENT = "/api/registry.v1.json";

/** The history, each step built on the one before, in memory. */
const history: Built[] = [];
for (const step of historySteps) {
  const raw = JSON.parse(readFileSync(step.fixture, "utf8")) as JsonObject;
  history.push(await buildStep(raw, step.builtAt, history.at(-1) ?? null));
}

const servers: Server[] = [];
test.after(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

/** A server of this process answering every request with `answer`, at a free port on 127.0.0.1. */
async function localServer(answer: RequestListener): Promise<{ origin: string; host: string }> {
  const server = createServer(answer);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, host: new URL(origin).host };
}

/**
 * A deployment serving `state.built`: the feed with its ETag, 304 when If-None-Match names it, and
 * the document; 404 for anything else. `state.asked` counts its requests.
 */
async function deployment(state: { built: Built; asked: string[]; accepted?: string[] }): Promise<string> {
  const { origin } = await localServer(async (req, res) => {
    state.asked.push(`${req.url}${req.headers["if-none-match"] === undefined ? "" : " conditional"}`);
    state.accepted?.push(`${req.url} ${req.headers["accept"]}`);
    const { feedBytes, documentBytes } = state.built;
    if (req.url === FEED) {
      const etag = await strongEtag(feedBytes);
      if (req.headers["if-none-match"] === etag) res.writeHead(304, { etag }).end();
      else res.writeHead(200, { etag, "content-type": "application/feed+json" }).end(feedBytes);
    } else if (req.url === DOCUMENT) res.writeHead(200, { "content-type": "application/json" }).end(documentBytes);
    else res.writeHead(404).end();
  });
  return origin;
}

/** A run's kind, why, request count and feed ETag, and whether its bytes are `expected` exactly. */
function shape(result: SyncResult, expected: Uint8Array) {
  const bytes = "bytes" in result ? result.bytes : undefined;
  return {
    kind: result.kind,
    why: "why" in result ? result.why : undefined,
    requests: result.requests,
    same: bytes === undefined ? undefined : Buffer.from(bytes).equals(Buffer.from(expected)),
  };
}

test("across the history: no copy fetches; each later build is caught up from the feed alone, to the served bytes; a second run is one 304", async () => {
  const state = { built: history[0] as Built, asked: [] as string[], accepted: [] as string[] };
  const origin = await deployment(state);
  let copy: Uint8Array | undefined;
  let feedEtag: string | null = null;
  for (const [i, built] of history.entries()) {
    state.built = built;
    state.asked.length = 0;
    const got = await sync(`${origin}/`, copy, feedEtag === null ? {} : { feedEtag });
    const expected = i === 0
      ? { kind: "fetched", why: "no copy", requests: 2, same: true }
      : { kind: "updated", why: undefined, requests: 1, same: true };
    assert.equal(shape(got, built.documentBytes), expected, historySteps[i]!.name);
    assert.equal(state.asked, i === 0 ? [FEED, DOCUMENT] : [`${FEED} conditional`]);
    if (i === 0) {
      assert.equal(
        state.accepted,
        [`${FEED} application/feed+json`, `${DOCUMENT} application/json`],
        "what each asks for",
      );
    }
    assert.is(got.feedEtag, await strongEtag(built.feedBytes));
    if (got.kind === "updated" || got.kind === "fetched") {
      assert.equal(got.document, JSON.parse(new TextDecoder().decode(built.documentBytes)));
      copy = got.bytes;
    }
    feedEtag = got.feedEtag;
    // Slashes at the end of the base are one.
    const again = await sync(`${origin}//`, copy, { feedEtag: feedEtag as string });
    assert.equal(again, { kind: "unchanged", feedEtag, requests: 1 }, `${historySteps[i]!.name}, again`);
  }
  // The first build's copy, as text, catches up across every item at once.
  const first = new TextDecoder().decode(history[0]!.documentBytes);
  assert.equal(shape(await sync(origin, first), history.at(-1)!.documentBytes), {
    kind: "updated",
    why: undefined,
    requests: 1,
    same: true,
  });
  // The feed's ETag without a copy is not a condition: the document is fetched.
  assert.equal(shape(await sync(origin, undefined, { feedEtag: feedEtag as string }), history.at(-1)!.documentBytes), {
    kind: "fetched",
    why: "no copy",
    requests: 2,
    same: true,
  });
});

test("a copy newer than the feed waits; a copy the feed does not lead from, or no document, is fetched again", async () => {
  const state = { built: history[1] as Built, asked: [] as string[] };
  const origin = await deployment(state);
  const newer = history.at(-1)!.documentBytes;
  const waited = await sync(origin, newer);
  assert.equal(waited, { kind: "wait", feedEtag: await strongEtag(history[1]!.feedBytes), requests: 1 });
  assert.equal(state.asked, [FEED], "a copy without the feed's ETag asks unconditionally");
  for (
    const [copy, why] of [["{ not a document", "unknown"], [JSON.stringify({ built_at: "2026-01-01" }), "unknown"]]
  ) {
    assert.equal(shape(await sync(origin, copy), history[1]!.documentBytes), {
      kind: "fetched",
      why,
      requests: 2,
      same: true,
    });
  }
  // A restarted history: the same bytes as a copy of another chain lead from no item.
  const raw = JSON.parse(readFileSync(historySteps[1]!.fixture, "utf8")) as JsonObject;
  const restarted = await buildStep(raw, "2026-12-28T12:00:00Z", null);
  state.built = restarted;
  assert.equal(shape(await sync(origin, history[1]!.documentBytes), restarted.documentBytes), {
    kind: "fetched",
    why: "unknown",
    requests: 2,
    same: true,
  });
});

test("catchUp: a copy that is no document refetches; a feed that is none throws; an item that does not lead to its document refetches", async () => {
  const copy = history[0]!.documentBytes;
  const feed = JSON.parse(new TextDecoder().decode(history[1]!.feedBytes)) as ChangeFeed;
  const next = await catchUp(copy, feed);
  assert.is(next.kind, "updated");
  assert.ok(next.kind === "updated" && Buffer.from(next.bytes).equals(Buffer.from(history[1]!.documentBytes)));
  assert.equal(await catchUp(new TextDecoder().decode(copy), feed), next, "the copy as text or as bytes");
  assert.equal(await catchUp(history[1]!.documentBytes, feed), { kind: "current" });
  assert.equal(await catchUp("{ not json", feed), { kind: "refetch", why: "unknown" });
  assert.equal(await catchUp(new Uint8Array([0xff, 0xfe]), feed), { kind: "refetch", why: "unknown" });
  for (
    const document of [[], { built_at: 1, vaults: [], edges: [] }, { built_at: "x", vaults: [{}], edges: [] }, {
      built_at: "x",
      vaults: [],
      edges: [{ source: "a", target: "b" }],
    }, { built_at: "x", vaults: {}, edges: [] }]
  ) assert.equal(await catchUp(JSON.stringify(document), feed), { kind: "refetch", why: "unknown" });
  for (const bad of [null, {}, { items: [{}] }, { items: "x" }, { items: [{ _registry: { from: null } }] }]) {
    try {
      await catchUp(copy, bad as unknown as ChangeFeed);
      assert.unreachable("a feed that is none");
    } catch (error: unknown) {
      assert.instance(error, TypeError);
      assert.match((error as Error).message, /^catchUp: the feed is not a registry change feed/);
    }
  }
  // A copy with a byte that is not UTF-8 inside a string is no document, whatever a lenient decoder makes of it.
  const text = new TextDecoder().decode(copy);
  const at = text.indexOf('"built_at": "') + 13;
  const invalid = new Uint8Array([
    ...new TextEncoder().encode(text.slice(0, at)),
    0xff,
    ...new TextEncoder().encode(text.slice(at)),
  ]);
  assert.equal(await catchUp(invalid, feed), { kind: "refetch", why: "unknown" });
  assert.equal(await catchUp("null", feed), { kind: "refetch", why: "unknown" });
  // Each member of an item the rule reads has its shape; one item out of shape makes the feed none.
  const item = feed.items[0]!._registry as unknown as Record<string, unknown>;
  const withChange = (change: Record<string, unknown>) => ({
    ...feed,
    items: [{ ...feed.items[0], _registry: change }, ...feed.items.slice(1)],
  });
  const misshapen: Record<string, unknown>[] = [
    { ...item, from: "x" },
    { ...item, from: { built_at: 1, etag: "e" } },
    { ...item, to: null },
    { ...item, to: { built_at: "b" } },
    { ...item, resync: "no" },
    { ...item, vaults: [] },
    { ...item, vaults: { upsert: [{}], remove: [] } },
    { ...item, vaults: { upsert: [], remove: [1] } },
    { ...item, vaults: { upsert: [] } },
    { ...item, edges: null },
    { ...item, edges: { add: [{ source: "a", target: "b" }], remove: [], remove_touching: [] } },
    { ...item, edges: { add: [{ source: "a", type: "t" }], remove: [], remove_touching: [] } },
    { ...item, edges: { add: [{ target: "b", type: "t" }], remove: [], remove_touching: [] } },
    { ...item, edges: { add: [], remove: [{ source: "a" }], remove_touching: [] } },
    { ...item, edges: { add: [], remove: [], remove_touching: [7] } },
    { ...item, envelope: [] },
  ];
  for (const change of misshapen) {
    try {
      await catchUp(copy, withChange(change) as unknown as ChangeFeed);
      assert.unreachable(JSON.stringify(change).slice(0, 200));
    } catch (error: unknown) {
      assert.instance(error, TypeError, JSON.stringify(change).slice(0, 200));
      assert.match((error as Error).message, /^catchUp: the feed is not a registry change feed/);
    }
  }
  const { envelope: _envelope, ...withoutEnvelope } = item;
  assert.is(
    (await catchUp(copy, withChange(withoutEnvelope) as unknown as ChangeFeed)).kind,
    "refetch",
    "no envelope is a shape",
  );
  // An envelope nested past the stack is no document a build wrote: refetch, never a RangeError.
  let deep: Record<string, unknown> = {};
  for (let i = 0; i < 200_000; i++) deep = { d: deep };
  assert.equal(await catchUp(copy, withChange({ ...item, envelope: deep }) as unknown as ChangeFeed), {
    kind: "refetch",
    why: "broken",
  });
  // An item whose rows were altered leads elsewhere than the document it names: refetch.
  const tampered = structuredClone(feed) as unknown as { items: { _registry: { vaults: { upsert: JsonObject[] } } }[] };
  tampered.items[0]!._registry.vaults.upsert[0]!["display_name"] += " (altered)";
  assert.equal(await catchUp(copy, tampered as unknown as ChangeFeed), { kind: "refetch", why: "broken" });
});

/** The one-line SyncError `run` throws. */
async function failure(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error: unknown) {
    assert.instance(error, SyncError);
    const message = (error as Error).message;
    assert.not.match(message, /\n/, "one line");
    return message;
  }
  return assert.unreachable("expected a SyncError") as never;
}

test("sync's bounds: redirects within the origin only, at most a few; nothing a server sent quoted with its user, query or fragment; a timeout; a body cap; every status", async () => {
  let loops = 0;
  let hanging = 0;
  const { origin, host } = await localServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const [, kind] = /^\/([a-z0-9-]+)\//.exec(path) ?? [];
    if (kind === "away") {
      res.writeHead(302, { location: "http://user:secret@other.example/feed.json?token=abc#frag" }).end();
    } else if (kind === "hop") res.writeHead(307, { location: `/away${FEED}?q=1` }).end();
    else if (kind === "loop") {
      loops++;
      res.writeHead(301, { location: `/loop${FEED}#x` }).end();
    } else if (kind === "nowhere") res.writeHead(303).end();
    else if (kind === "slow") res.writeHead(200).write("{");
    else if (kind === "big") {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      for (let i = 0; i < 65; i++) res.write(chunk);
      res.end();
    } else if (kind === "declared") res.writeHead(200, { "content-length": String(5 * 1024 * 1024) }).end();
    else if (kind === "identity") {
      res.writeHead(200, { "content-encoding": "identity", "content-length": String(5 * 1024 * 1024) }).write("{");
    } else if (kind === "down") res.writeHead(503).end();
    else if (kind === "stale") res.writeHead(304).end();
    else if (kind === "renamed") res.writeHead(304, { etag: '"renamed"' }).end();
    else if (kind === "doc304" && path.endsWith(FEED)) res.writeHead(200).end(history[0]!.feedBytes);
    else if (kind === "doc304") res.writeHead(304).end();
    else if (kind === "encoded") {
      // gzip of bytes that do not compress: the coded body is over the cap, the decoded one is not.
      const body = gzipSync(randomBytes(4 * 1024 * 1024 - 100), { level: 1 });
      res.writeHead(200, { "content-encoding": "gzip", "content-length": String(body.length) }).end(body);
    } else if (kind === "hang") {
      hanging++;
      res.writeHead(200).write("{");
    } else if (kind === "moved" && path.endsWith(FEED)) res.writeHead(200).end(history[0]!.feedBytes);
    else if (kind === "moved") res.writeHead(200).end('{"built_at": 1}');
    else if (kind === "exact") {
      res.writeHead(200, { "content-length": String(4 * 1024 * 1024) }).end(" ".repeat(4 * 1024 * 1024));
    } else res.writeHead(200).end('{"items": "none"}');
  });
  const at = (kind: string, path = FEED) => `GET ${host}/${kind}${path}`;
  const away = await failure(() => sync(`${origin}/away`));
  assert.is(away, `${at("away")}: HTTP 302, a redirect to another origin (other.example/feed.json): not followed`);
  assert.is(await failure(() => sync(`${origin}/hop`)), away, "followed within the origin, then refused");
  assert.is(await failure(() => sync(`${origin}/loop`)), `${at("loop")}: more than 5 redirects`);
  assert.is(loops, 6, "the first request and five redirects followed");
  assert.is(
    await failure(() => sync(`${origin}/nowhere`)),
    `${at("nowhere")}: HTTP 303, a redirect to an address it does not show: not followed`,
  );
  assert.is(
    await failure(() => sync(`${origin}/slow`, undefined, { timeoutMs: 300 })),
    `${at("slow")}: no complete answer within 0.3 s`,
  );
  const controller = new AbortController();
  controller.abort();
  assert.is(
    await failure(() => sync(`${origin}/hang`, undefined, { signal: controller.signal })),
    `${at("hang")}: aborted`,
  );
  assert.is(hanging, 0, "an aborted signal sends nothing");
  // The caller's reason, whatever it is, is not passed off as the client's error.
  const ownReason = new AbortController();
  ownReason.abort(new SyncError("the caller's own reason"));
  assert.is(
    await failure(() => sync(`${origin}/hang`, undefined, { signal: ownReason.signal })),
    `${at("hang")}: aborted`,
  );
  // Aborted mid-answer: it ends at once (five seconds is the bound of this wait, not a measure).
  const midway = new AbortController();
  const run = failure(() => sync(`${origin}/hang`, undefined, { signal: midway.signal, timeoutMs: 60_000 }));
  for (let waited = 0; hanging === 0 && waited < 5_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
  midway.abort();
  const ended = await Promise.race([run, new Promise((r) => setTimeout(() => r("still waiting"), 5_000))]);
  assert.is(ended, `${at("hang")}: aborted`);
  // A 304 the run did not ask for is not an answer; one it asked for keeps the feed's ETag, or the one sent.
  assert.is(await failure(() => sync(`${origin}/stale`)), `${at("stale")}: HTTP 304, expected 200`);
  assert.is(await failure(() => sync(`${origin}/doc304`)), `${at("doc304", DOCUMENT)}: HTTP 304, expected 200`);
  assert.equal(await sync(`${origin}/stale`, "{}", { feedEtag: '"kept"' }), {
    kind: "unchanged",
    feedEtag: '"kept"',
    requests: 1,
  });
  assert.equal(await sync(`${origin}/renamed`, "{}", { feedEtag: '"kept"' }), {
    kind: "unchanged",
    feedEtag: '"renamed"',
    requests: 1,
  });
  assert.is(
    await failure(() => sync(`${origin}/encoded`)),
    `${at("encoded")}: not a registry change feed (JSON Feed 1.1 with _registry items)`,
    "a coded body is capped as decoded",
  );
  // A request fetch refuses to send: its own message, first line only, any URL in it not quoted.
  assert.is(
    await failure(() => sync(`${origin}/other`, "{}", { feedEtag: "a\u0000http://user:secret@x.example/?t=1" })),
    `${at("other")}: no answer (Headers.append: "a\u0000a URL is an invalid header value.)`,
  );
  assert.is(
    await failure(() => sync(`${origin}/big`)),
    `${at("big")}: the body is over 4 MiB; the client reads at most 4 MiB`,
  );
  assert.is(
    await failure(() => sync(`${origin}/declared`)),
    `${at("declared")}: the body is 5 MiB; the client reads at most 4 MiB`,
  );
  // `identity` is no coding: its length is the body's, refused at once (the server sends one byte, then waits).
  assert.is(
    await failure(() => sync(`${origin}/identity`, undefined, { timeoutMs: 5_000 })),
    `${at("identity")}: the body is 5 MiB; the client reads at most 4 MiB`,
  );
  assert.is(
    await failure(() => sync(`${origin}/exact`)),
    `${at("exact")}: not a registry change feed (JSON Feed 1.1 with _registry items)`,
  );
  assert.is(await failure(() => sync(`${origin}/down`)), `${at("down")}: HTTP 503, expected 200`);
  assert.is(
    await failure(() => sync(`${origin}/down`, "{}", { feedEtag: '"x"' })),
    `${at("down")}: HTTP 503, expected 200 or 304`,
  );
  assert.is(
    await failure(() => sync(`${origin}/other`)),
    `${at("other")}: not a registry change feed (JSON Feed 1.1 with _registry items)`,
  );
  assert.is(
    await failure(() => sync(`${origin}/moved`)),
    `${at("moved", DOCUMENT)}: not a registry document (a JSON object with built_at, vaults and edges)`,
  );
  const closed = await localServer(() => {});
  servers.pop()!.close();
  assert.match(
    await failure(() => sync(closed.origin)),
    new RegExp(`^GET ${closed.host}${FEED}: no answer \\(ECONNREFUSED\\)$`),
  );
  // https is a scheme sync takes.
  assert.is(await failure(() => sync(`https://${closed.host}`)), `GET ${closed.host}${FEED}: no answer (ECONNREFUSED)`);
  for (
    const base of [
      "http://user@registry.example",
      "http://:secret@registry.example",
      `${origin}/?token=abc`,
      `${origin}/#frag`,
      `${origin}/?`,
      "ftp://registry.example",
      "x",
    ]
  ) {
    assert.is(
      await failure(() => sync(base)),
      "sync: the base URL must be an http: or https: URL without a user name, password, query or fragment",
      base,
    );
  }
});

test.run();
