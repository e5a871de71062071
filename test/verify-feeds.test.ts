/**
 * `verify` on change feeds: servers of the test's own serve a real build's document with hand-made
 * feeds (test/change-feed.ts, written from the rule in docs/document.md, "Change feeds": a chain, every carried row the
 * current one, the
 * envelope on the newest item), valid or broken one way each, and every case ends in its PASS,
 * WARN or FAIL row.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runVerify } from "../node/verify/command.ts";
import { readJsonFile } from "../node/verify/document-file.ts";
import type { EdgeLike, RegistryChange } from "../feed/change.ts";
import { answerer } from "../http/answer.ts";
import { type Build, prepareBuild } from "../assembly/prepare.ts";
import type { Resource } from "../http/responses.ts";
import { type Check, verify } from "../node/verify/verify.ts";
import { strongEtag } from "../http/responses.ts";
import { validateSource } from "../registry.ts";
import {
  atomFeed,
  changeBetween,
  type Doc,
  type FeedItem,
  historyOf,
  itemsOf,
  jsonFeed,
  type Row,
  withEnvelope,
} from "./change-feed.ts";
import { cleanEnv, runCommand } from "./process.ts";

const DEPLOYED = "https://registry.example.org";
const JSON_PATH = "/api/registry.v1.changes.json";
const ATOM_PATH = "/api/registry.v1.changes.atom";
const work = mkdtempSync(join(tmpdir(), "registry-verify-feeds-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

type Source = Record<string, unknown> & { vaults: Record<string, unknown>[]; edges: Record<string, unknown>[] };
const fixture = (): Source => JSON.parse(readFileSync("fixtures/registry.json", "utf8")) as Source;

/** The next source: a changed note, a vault withheld (its edges stay in the source), a vault removed (with its edges), an edge withdrawn, a vault and an edge added. */
function changed(source: Source): Source {
  const vaults = source.vaults
    .filter((v) => v["vault_slug"] !== "salt-archive")
    .map((
      v,
    ) => (v["vault_slug"] === "tide-tables"
      ? { ...v, note: "Tide tables, now with the new gauge." }
      : v["vault_slug"] === "harbour-ledger"
      ? { ...v, suppressed: true }
      : v)
    );
  vaults.push({ vault_slug: "new-quay", display_name: "New Quay", class: "reference", status: "pending" });
  const added = { source: "new-quay", target: "tide-tables", type: "reads" };
  const touches = (e: Record<string, unknown>, slug: string) => e["source"] === slug || e["target"] === slug;
  const kept = source.edges.filter((e) => !touches(e, "salt-archive") && !touches(e, "harbour-ledger"));
  return {
    ...source,
    vaults,
    edges: [...kept.slice(1), added, ...source.edges.filter((e) => touches(e, "harbour-ledger"))],
  };
}

async function built(
  source: Source,
  builtAt: string,
): Promise<{ build: Build; doc: Doc & Record<string, unknown>; bytes: Uint8Array<ArrayBuffer> }> {
  const valid = validateSource(source);
  assert.ok(valid.ok, JSON.stringify(valid));
  const build = await prepareBuild(valid.source, { baseUrl: DEPLOYED, builtAt });
  const resource = build.routes.get("/api/registry.v1.json") as Resource;
  const bytes = resource.identity.body;
  const parsed = JSON.parse(Buffer.from(bytes).toString()) as Record<string, unknown>;
  const { vaults: _v, edges: _e, ...envelope } = parsed;
  return { build, doc: { ...(parsed as unknown as Doc), etag: resource.identity.etag, envelope }, bytes };
}

const before = await built(fixture(), "2026-11-21T12:00:00Z");
const after = await built(changed(fixture()), "2026-11-22T12:00:00Z");
const A = before.doc;
const B = after.doc;
const VALID = historyOf([A, B]);
/** An earlier document as `--previous-document` gives it: its value and the identity ETag of its bytes. */
const earlier = async (value: unknown, bytes = new TextEncoder().encode(JSON.stringify(value))) => ({
  value,
  etag: await strongEtag(bytes),
});
const EARLIER = await earlier(JSON.parse(Buffer.from(before.bytes).toString()), before.bytes);

interface Served {
  json?: string | null;
  atom?: string | null;
  /** Whether the feeds answer 304 to their own ETag (default: yes). */
  conditional?: boolean;
  /** Whether the document's answers link the feeds (default: yes). */
  link?: boolean;
  /** The build whose document is served (default: B's). */
  build?: Build;
}

/** B's answers, plus the feeds given (null: 404), linked from the document answers as the feeds' rules say. */
async function feedServer(served: Served): Promise<{ origin: string; server: Server }> {
  const answer = answerer(served.build ?? after.build);
  const alternate =
    `<${DEPLOYED}${JSON_PATH}>; rel="alternate"; type="application/feed+json", <${DEPLOYED}${ATOM_PATH}>; rel="alternate"; type="application/atom+xml"`;
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] as string;
    const feed = path === JSON_PATH
      ? [served.json, "application/feed+json"]
      : path === ATOM_PATH
      ? [served.atom, "application/atom+xml"]
      : undefined;
    // null: 404, not the feed the build itself serves.
    if (feed !== undefined && feed[0] === null) return void res.writeHead(404).end();
    if (feed !== undefined && typeof feed[0] === "string") {
      const body = Buffer.from(feed[0]);
      const etag = `"${createHash("sha256").update(body).digest("hex").slice(0, 32)}"`;
      const headers = { "content-type": feed[1] as string, etag, "access-control-allow-origin": "*" };
      if (req.headers["if-none-match"] === etag && served.conditional !== false) {
        return void res.writeHead(304, headers).end();
      }
      return void res.writeHead(200, headers).end(req.method === "HEAD" ? undefined : body);
    }
    const a = answer(req.method ?? "GET", path, (name) => req.headers[name] as string | undefined);
    const headers = { ...a.headers };
    if (a.status === 200 && (path === "/vaults.json" || path === "/api/registry.v1.json")) {
      // The build links its own feeds: they are replaced by this server's (or by none).
      const own = String(headers["link"] ?? "").split(/,\s*(?=<)/).filter((l) =>
        l !== "" && !/rel="alternate"/.test(l)
      );
      headers["link"] = [...own, ...(served.link === false ? [] : [alternate])].join(", ");
    }
    res.writeHead(a.status, headers).end(a.body ?? undefined);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** verify's rows about the feeds, against a server of `served`. */
async function feedRows(served: Served, previous?: { value: unknown; etag: string }): Promise<Check[]> {
  const { origin, server } = await feedServer(served);
  try {
    const rows = await verify(origin, {
      expectBase: DEPLOYED,
      ...(previous === undefined ? {} : { previousDocument: { name: "earlier.json", ...previous } }),
    });
    const start = rows.findIndex((c) => /feed|Link rel="alternate"/.test(c.name));
    assert.ok(start > 0, JSON.stringify(rows));
    assert.equal(rows.slice(0, start).filter((c) => c.result !== "pass"), [], "every check before the feeds passes");
    return rows.slice(start);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const both = (items: readonly FeedItem[]): Served => ({
  json: jsonFeed(DEPLOYED, items),
  atom: atomFeed(DEPLOYED, items),
});
const row = (rows: readonly Check[], name: RegExp): Check => {
  const found = rows.find((c) => name.test(c.name));
  assert.ok(found, `no row ${name}: ${JSON.stringify(rows)}`);
  return found as Check;
};
const failing = (rows: readonly Check[]) => rows.filter((c) => c.result !== "pass").map((c) => c.name);

test("a valid feed of two builds (first snapshot, then a change), and B's own earlier document: every feed row passes", async () => {
  const rows = await feedRows(both(itemsOf(DEPLOYED, VALID)), EARLIER);
  assert.equal(failing(rows), []);
  for (
    const name of [
      /link the JSON and the Atom change feed/,
      /changes\.json answers 200 as application\/feed\+json/,
      /changes\.atom answers 200 as application\/atom\+xml/,
      /changes\.json answers 304 to its own ETag/,
      /changes\.atom answers 304 to its own ETag/,
      /is a JSON Feed 1\.1/,
      /is well-formed Atom .* RFC 4287/,
      /ids are unique/,
      /Atom entries are the JSON items/,
      /items form a chain, newest first/,
      /every row an item carries is the document's row/,
      /newest item's to is the document: its built_at and the identity ETag/,
      /newest item carries the document's envelope/,
      /items since the last resync, replayed onto the document, change nothing/,
      /catching earlier\.json \(built 2026-11-21T12:00:00Z\) up by the feed gives/,
    ]
  ) {
    assert.is(row(rows, name).result, "pass", String(name));
  }
  assert.is(row(rows, /catching earlier/).detail, `${B.vaults.length} vaults, ${B.edges.length} edges`);
});

/** An ETag of the served shape (the schema's 32 hex digits) that no build here has. */
const OTHER_ETAG = '"00000000000000000000000000000000"';

const CATCH_UP =
  "catching earlier.json (built 2026-11-21T12:00:00Z) up by the feed gives the document's vaults and edges";

test("a tampered feed whose catch-up misses a change: the --previous-document catch-up FAILs, naming the vault or the edge", async () => {
  const last = VALID[1] as RegistryChange<Row, EdgeLike>;
  const tampered = [VALID[0], {
    ...last,
    vaults: { ...last.vaults, upsert: last.vaults.upsert.filter((r) => r.vault_slug !== "tide-tables") },
  }] as RegistryChange<Row, EdgeLike>[];
  const rows = await feedRows(both(itemsOf(DEPLOYED, tampered)), EARLIER);
  assert.equal(failing(rows), [CATCH_UP]);
  assert.is(row(rows, /catching earlier/).detail, "vaults[tide-tables] differs");
  const noEdge = [VALID[0], { ...last, edges: { ...last.edges, add: [] } }] as RegistryChange<Row, EdgeLike>[];
  const missing = await feedRows(both(itemsOf(DEPLOYED, noEdge)), EARLIER);
  assert.equal(failing(missing), [CATCH_UP]);
  assert.is(row(missing, /catching earlier/).detail, "edge new-quay -> tide-tables missing");
});

test("a feed that is not a chain: an item's from not the next item's to, a snapshot that is not the oldest, the envelope on an older item or on none: FAIL", async () => {
  const [first, last] = VALID as [RegistryChange<Row, EdgeLike>, RegistryChange<Row, EdgeLike>];
  const CHAIN =
    "the items form a chain, newest first: each from is the next item's to, ids and dates from each to, the envelope on the newest";
  const cases: [string, RegistryChange<Row, EdgeLike>[], RegExp][] = [
    [
      "from not the next item's to",
      [first, { ...last, from: { ...(last.from as { built_at: string; etag: string }), etag: OTHER_ETAG } }],
      /^items\[0\]\._registry\.from: expected the next item's to \(items form a chain, newest first\)$/,
    ],
    [
      "a snapshot on top",
      [first, { ...last, from: null }],
      /^items\[0\]\._registry\.from: expected the next item's to/,
    ],
    [
      "the envelope on the older item too",
      [{ ...first, envelope: B.envelope as Record<string, unknown> }, last],
      /^items\[1\]\._registry\.envelope: expected on the newest item only$/,
    ],
  ];
  for (const [name, sets, detail] of cases) {
    const rows = await feedRows(both(itemsOf(DEPLOYED, sets)));
    assert.equal(failing(rows), [CHAIN], name);
    assert.match(row(rows, /items form a chain/).detail, detail, name);
  }
  const { envelope: _e, ...bare } = last;
  const none = await feedRows(both(itemsOf(DEPLOYED, [first, bare])));
  assert.equal(failing(none), [CHAIN, "the newest item carries the document's envelope"]);
  // Items out of order: oldest first.
  const json = JSON.parse(jsonFeed(DEPLOYED, itemsOf(DEPLOYED, VALID))) as { items: unknown[] };
  json.items.reverse();
  const reversed = await feedRows({ json: JSON.stringify(json), atom: atomFeed(DEPLOYED, itemsOf(DEPLOYED, VALID)) });
  assert.ok(failing(reversed).includes(CHAIN), JSON.stringify(reversed));
});

test("a JSON feed that breaks its own rules: two items to one build, a shape its schema refuses, links elsewhere, another feed_url, over 4 MiB: FAIL", async () => {
  const items = itemsOf(DEPLOYED, VALID);
  const [first, last] = VALID as [RegistryChange<Row, EdgeLike>, RegistryChange<Row, EdgeLike>];
  const text = jsonFeed(DEPLOYED, items);
  const cases: [string, string, RegExp][] = [
    [
      "two items to one build",
      jsonFeed(DEPLOYED, [items[0] as FeedItem, {
        id: "other",
        set: { ...last, to: first.to, from: { built_at: "2026-11-20T00:00:00Z", etag: OTHER_ETAG } },
      }]),
      /^two items lead to the build of 2026-11-21T12:00:00Z$/,
    ],
    [
      "class",
      text.replace('"class": "data"', '"class": "minor"'),
      /^not a change feed: \/items\/0\/_registry\/class must be equal to one of the allowed values$/,
    ],
    [
      "version",
      text.replace("version/1.1", "version/1"),
      /^not a change feed: \/version must be equal to constant$/,
    ],
    [
      "no language",
      text.replace('"language": "en",', ""),
      /^not a change feed: \(top level\) must have required property 'language'$/,
    ],
    [
      "a row the document's schema refuses",
      text.replace('"vault_slug": "tide-tables"', '"vault_slug": "Tide Tables"'),
      /^not a change feed: \/items\/0\/_registry\/vaults\/upsert\/\d+\/vault_slug must match pattern /,
    ],
    [
      "a home_page_url elsewhere",
      text.replace('"home_page_url": "https://registry.example.org/', '"home_page_url": "https://elsewhere.example/'),
      /^home_page_url is not https:\/\/registry\.example\.org\/api\/registry\.v1\.json$/,
    ],
    [
      "an item's url elsewhere",
      text.replace('"url": "https://registry.example.org/api/registry.v1.json"', '"url": "https://elsewhere.example/"'),
      /^items\[0\]\.url is not https:\/\/registry\.example\.org\/api\/registry\.v1\.json$/,
    ],
    [
      "another feed_url",
      text.replace("https://registry.example.org/api/registry.v1.changes.json", "https://other.example/changes.json"),
      /^feed_url is not https:\/\/registry\.example\.org\/api\/registry\.v1\.changes\.json$/,
    ],
    [
      "size",
      text.replace(
        '"title": "Registry v1: changes"',
        `"title": "Registry v1: changes", "padding": "${" ".repeat(4 * 1024 * 1024)}"`,
      ),
      /^\d+ bytes, more than the 4 MiB a feed may hold$/,
    ],
  ];
  for (const [name, json, detail] of cases) {
    const rows = await feedRows({ json, atom: atomFeed(DEPLOYED, items) });
    assert.match(row(rows, /is a JSON Feed 1\.1/).detail, detail, name);
    assert.is(row(rows, /is a JSON Feed 1\.1/).result, "fail", name);
  }
});

test("a date_published that is not its to.built_at, or a resync that lists changes: the shape passes, the chain row FAILs naming it", async () => {
  const [first, last] = VALID as [RegistryChange<Row, EdgeLike>, RegistryChange<Row, EdgeLike>];
  const text = jsonFeed(DEPLOYED, itemsOf(DEPLOYED, VALID));
  const cases: [string, string, RegExp][] = [
    [
      "date_published",
      text.replace('"date_published": "2026-11-22T12:00:00Z"', '"date_published": "2026-11-22T12:00:01Z"'),
      /^items\[0\]\.date_published: expected its to\.built_at$/,
    ],
    [
      "resync with lists",
      jsonFeed(DEPLOYED, itemsOf(DEPLOYED, [first, { ...last, resync: true }])),
      /^items\[0\]\._registry: says resync but lists changes$/,
    ],
  ];
  for (const [name, json, detail] of cases) {
    const rows = await feedRows({ json, atom: atomFeed(DEPLOYED, itemsOf(DEPLOYED, VALID)) });
    assert.is(row(rows, /is a JSON Feed 1\.1/).result, "pass", name);
    assert.is(row(rows, /items form a chain/).result, "fail", name);
    assert.match(row(rows, /items form a chain/).detail, detail, name);
  }
});

/** A value a hostile or broken deployment plants in its feed, which no row of verify's may quote. */
const PLANTED = "hunter2-PRIVATE-owner@harbour.internal";
const REPLAY = "the items since the last resync, replayed onto the document, change nothing";
const ENVELOPE = "the newest item carries the document's envelope";
const named = (rows: readonly Check[], name: string): Check => row(rows, new RegExp(`^${name}$`));

test("a feed planting a private-looking value (an item id beside a stale row, a slug, an edge's end, an ETag, a built_at twice, a key's name): no detail quotes it", async () => {
  const text = jsonFeed(DEPLOYED, itemsOf(DEPLOYED, VALID));
  type Json = { items: { id: string; _registry: Record<string, any> }[] } & Record<string, unknown>;
  const edited = (edit: (feed: Json) => void) => {
    const feed = JSON.parse(text) as Json;
    edit(feed);
    return JSON.stringify(feed);
  };
  const newest = (feed: Json) => (feed.items[0] as Json["items"][number])._registry;
  const cases: [string, string, string][] = [
    [
      "an item id, beside a row that is not the document's",
      edited((feed) => {
        (feed.items[0] as { id: string }).id = PLANTED;
        const rows = newest(feed)["vaults"]["upsert"];
        rows[0] = { ...rows[0], display_name: "Not the document's" };
      }),
      ROWS,
    ],
    ["a slug", edited((feed) => void (newest(feed)["vaults"]["upsert"][0]["vault_slug"] = PLANTED)), ""],
    ["a removed slug", edited((feed) => void newest(feed)["vaults"]["remove"].push(PLANTED)), ""],
    [
      "an edge's end",
      edited((feed) => {
        newest(feed)["edges"]["add"].push({ source: PLANTED, target: "new-quay", type: "reads" });
      }),
      "",
    ],
    ["an ETag", edited((feed) => void (newest(feed)["to"]["etag"] = `"${PLANTED}"`)), ""],
    [
      "a built_at, twice",
      edited((feed) => {
        for (const item of feed.items) item._registry["to"]["built_at"] = PLANTED;
      }),
      "",
    ],
    [
      "a key's name",
      edited((feed) => {
        const row = newest(feed)["vaults"]["upsert"][0];
        row[PLANTED] = 1;
        row["tier"] = "bogus";
      }),
      "",
    ],
  ];
  for (const [name, json, failsAlso] of cases) {
    const rows = await feedRows({ json, atom: atomFeed(DEPLOYED, itemsOf(DEPLOYED, VALID)) });
    const quoting = rows.filter((c) => /hunter2|PRIVATE|harbour\.internal/.test(c.detail));
    assert.equal(quoting, [], name);
    if (failsAlso === "") {
      // The schema refuses it, in its own words.
      assert.is(row(rows, /is a JSON Feed 1\.1/).result, "fail", name);
      assert.match(row(rows, /is a JSON Feed 1\.1/).detail, /^not a change feed: \/items\/\d+\/_registry\//, name);
    } else {
      assert.is(row(rows, /is a JSON Feed 1\.1/).result, "pass", name);
      assert.match(named(rows, failsAlso).detail, /^items\[0\]: vaults\[[a-z-]+\]$/, name);
    }
  }
});

test("hostile shapes: __proto__ and constructor keys, rows with extra keys, nesting 100,000 deep, 4 MiB of rows the schema refuses: each run ends with its rows", async () => {
  const text = jsonFeed(DEPLOYED, itemsOf(DEPLOYED, VALID));
  const deep = (n: number) => `${"[".repeat(n)}1${"]".repeat(n)}`;
  const stale = "items[0]: vaults[tide-tables]";
  const cases: [string, string, string[]][] = [
    ["__proto__ at the top", text.replace('"version":', '"__proto__": { "items": [] }, "version":'), []],
    [
      "__proto__ in a row",
      text.replace('"vault_slug": "tide-tables"', '"__proto__": { "vault_slug": "x" }, "vault_slug": "tide-tables"'),
      [ROWS, REPLAY],
    ],
    [
      "constructor in _registry",
      text.replace('"resync": false', '"constructor": { "prototype": 1 }, "resync": false'),
      [],
    ],
    [
      "an extra key in a row",
      text.replace('"vault_slug": "tide-tables"', '"x_extra": "kept", "vault_slug": "tide-tables"'),
      [ROWS, REPLAY],
    ],
    ["nesting in an item", text.replace('"content_text":', `"x_deep": ${deep(100_000)}, "content_text":`), []],
    ["nesting in the envelope", text.replace('"envelope": {', `"envelope": { "x_deep": ${deep(100_000)}, `), [
      ENVELOPE,
    ]],
  ];
  for (const [name, json, expected] of cases) {
    const rows = await feedRows({ json, atom: atomFeed(DEPLOYED, itemsOf(DEPLOYED, VALID)) });
    assert.is(row(rows, /is a JSON Feed 1\.1/).result, "pass", name);
    assert.equal(failing(rows), expected, name);
    if (expected.includes(ROWS)) assert.is(named(rows, ROWS).detail, stale, name);
  }
  // 4 MiB of rows, each refused by the document's schema: the first failure is the row's, nothing after it runs.
  const feed = JSON.parse(text) as { items: { _registry: { vaults: { upsert: unknown[] } } }[] };
  const upsert = (feed.items[0] as (typeof feed.items)[number])._registry.vaults.upsert;
  const bad = { ...(upsert[0] as object), vault_slug: "Not A Slug" };
  const room = 4 * 1024 * 1024 - text.length;
  upsert.splice(
    0,
    upsert.length,
    ...Array.from({ length: Math.floor(room / (JSON.stringify(bad).length + 1)) - 10 }, () => bad),
  );
  const json = JSON.stringify(feed);
  assert.ok(json.length > 4_000_000 && json.length <= 4 * 1024 * 1024, String(json.length));
  const rows = await feedRows({ json, atom: atomFeed(DEPLOYED, itemsOf(DEPLOYED, VALID)) });
  assert.equal(failing(rows), [
    `${JSON_PATH} is a JSON Feed 1.1 (by a third-party parser) whose every item carries a valid _registry`,
  ]);
  // The first row's failures, in the schema's words: a minimal row's shape, then the pattern of its slug.
  const detail = row(rows, /is a JSON Feed 1\.1/).detail;
  assert.match(detail, /^not a change feed: \/items\/0\/_registry\/vaults\/upsert\/0 /, detail);
  assert.match(detail, /; \/items\/0\/_registry\/vaults\/upsert\/0\/vault_slug must match pattern "/, detail);
});

test("a feed naming one large row of the document 20,000 times as another row: the carried-rows and replay rows FAIL, naming the first and counting the rest", async () => {
  // Five published strings at the longest a source may give: a row of over 300 KiB.
  const long = (c: string) => c.repeat(65_536);
  const source = changed(fixture());
  source.vaults = source.vaults.map((v) =>
    v["vault_slug"] === "tide-tables"
      ? { ...v, display_name: long("d"), note: long("n"), tagline: long("t"), class: long("c"), status: long("s") }
      : v
  );
  const large = await built(source, "2026-11-22T12:00:00Z");
  const items = itemsOf(DEPLOYED, historyOf([A, large.doc]));
  const feed = JSON.parse(jsonFeed(DEPLOYED, items)) as { items: { _registry: { vaults: { upsert: Row[] } } }[] };
  // A minimal row of it, over and over: each is not the document's row.
  const minimal = { vault_slug: "tide-tables", display_name: "T", class: null, class_label: null, status: "s" };
  const copies = Array.from({ length: 20_000 }, () => ({
    ...minimal,
    status_label: "s",
    persona: null,
    listing: "minimal",
    listing_note: "n",
  }));
  (feed.items[0] as (typeof feed.items)[number])._registry.vaults.upsert = copies;
  const json = JSON.stringify(feed);
  assert.ok(json.length < 4 * 1024 * 1024, String(json.length));
  // Its cost is not asserted here (no timed tests): each document row's text is made once (960cb05), so this
  // takes about a second where it took over 30.
  const rows = await feedRows({ json, atom: atomFeed(DEPLOYED, items), build: large.build });
  assert.equal(failing(rows), [ROWS, REPLAY]);
  assert.match(named(rows, ROWS).detail, /^items\[0\]: vaults\[tide-tables\]; .*; 19997 more$/);
});

test("feeds that ignore If-None-Match: FAIL for each", async () => {
  const rows = await feedRows({ ...both(itemsOf(DEPLOYED, VALID)), conditional: false });
  assert.equal(failing(rows), [`${JSON_PATH} answers 304 to its own ETag`, `${ATOM_PATH} answers 304 to its own ETag`]);
});

test("duplicate item ids: FAIL (and the Atom entries no longer match the items one to one, nor the ids their to)", async () => {
  const items = itemsOf(DEPLOYED, VALID).map((item) => ({ ...item, id: "same-id" }));
  const rows = await feedRows(both(items));
  assert.equal(failing(rows), [
    "item ids are unique in each feed",
    "the Atom entries are the JSON items: the same ids and dates",
    "the items form a chain, newest first: each from is the next item's to, ids and dates from each to, the envelope on the newest",
  ]);
  assert.is(row(rows, /ids are unique/).detail, "same-id, same-id");
});

test("a broken Atom feed: not well-formed, or an entry without a required element: FAIL", async () => {
  const items = itemsOf(DEPLOYED, VALID);
  const good = atomFeed(DEPLOYED, items);
  const cases: [string, string, RegExp][] = [
    ["truncated", good.slice(0, good.lastIndexOf("</entry>")), /^not well-formed XML at line \d+: /],
    [
      "no updated",
      good.replace(/(<entry>\n(?:.*\n){2})    <updated>[^<]*<\/updated>\n/, "$1"),
      /^entry 1 has no updated$/,
    ],
    ["no feed id", good.replace(/  <id>[^<]*<\/id>\n/, ""), /^the feed has no id$/],
    [
      "no link to the document",
      good.replace(/    <link rel="alternate" [^>]*\/>\n/, ""),
      /^entry 1 has no link to https:\/\/registry\.example\.org\/api\/registry\.v1\.json$/,
    ],
    [
      "an RSS document",
      '<?xml version="1.0"?><rss version="2.0"><channel><title>x</title></channel></rss>',
      /^not an Atom feed \(DetectError\)$/,
    ],
  ];
  for (const [name, atom, detail] of cases) {
    const rows = await feedRows({ json: jsonFeed(DEPLOYED, items), atom });
    assert.ok(
      failing(rows).includes(
        "/api/registry.v1.changes.atom is well-formed Atom (by a third-party parser) with RFC 4287's required elements",
      ),
      `${name}: ${JSON.stringify(rows)}`,
    );
    assert.match(row(rows, /well-formed Atom/).detail, detail, name);
  }
});

const NEWEST = "the newest item's to is the document: its built_at and the identity ETag of its bytes";

test("a feed whose newest to is not the document: a later or an earlier built_at, another ETag, or another state: FAIL", async () => {
  const last = VALID[1] as RegistryChange<Row, EdgeLike>;
  for (const builtAt of ["2026-11-23T12:00:00Z", "2026-11-22T06:00:00Z"]) {
    const moved = { ...last, to: { ...last.to, built_at: builtAt } };
    const rows = await feedRows(both(itemsOf(DEPLOYED, [VALID[0], moved] as RegistryChange<Row, EdgeLike>[])));
    assert.equal(failing(rows), [NEWEST], builtAt);
  }
  const etag = await feedRows(
    both(
      itemsOf(
        DEPLOYED,
        [VALID[0], { ...last, to: { ...last.to, etag: OTHER_ETAG } }] as RegistryChange<Row, EdgeLike>[],
      ),
    ),
  );
  assert.equal(failing(etag), [NEWEST]);
  assert.is(
    row(etag, /newest item's to is the document/).detail,
    `to 2026-11-22T12:00:00Z ${OTHER_ETAG}; the document 2026-11-22T12:00:00Z ${B.etag}`,
  );
  const other = {
    ...B,
    vaults: B.vaults.map((r) => (r.vault_slug === "new-quay" ? { ...r, display_name: "Old Quay" } : r)),
  };
  const state = await feedRows(both(itemsOf(DEPLOYED, historyOf([A, other]))));
  assert.equal(failing(state), [
    "every row an item carries is the document's row, and no item carries an edge of a vault it withholds or no longer lists",
    "the items since the last resync, replayed onto the document, change nothing",
  ]);
  assert.is(row(state, /replayed onto the document/).detail, "vaults[new-quay] differs");
  const envelope = await feedRows(
    both(
      itemsOf(DEPLOYED, withEnvelope(VALID, { ...B, envelope: { ...B.envelope, built_at: "2026-11-20T00:00:00Z" } })),
    ),
  );
  assert.equal(failing(envelope), ["the newest item carries the document's envelope"]);
});

const ROWS =
  "every row an item carries is the document's row, and no item carries an edge of a vault it withholds or no longer lists";

test("a feed that still carries a withheld vault's former detail, or a row older than the document's (not rewritten for this build): FAIL naming the slug only", async () => {
  const unrewritten = withEnvelope([changeBetween(null, A), changeBetween(A, B)], B);
  const rows = await feedRows(both(itemsOf(DEPLOYED, unrewritten)));
  assert.equal(failing(rows), [ROWS]);
  const detail = row(rows, /every row an item carries/).detail;
  assert.match(detail, /: vaults\[harbour-ledger\]/);
  assert.not.match(detail, /Quartermaster|reconciliation/);
  // Only tide-tables' note changed: the snapshot still carries its former row.
  const tide = A.vaults.find((r) => r.vault_slug === "tide-tables") as Row;
  const staleRows = VALID.map((set, i) =>
    i === 0
      ? {
        ...set,
        vaults: {
          ...set.vaults,
          upsert: set.vaults.upsert.map((r) => (r.vault_slug === "tide-tables" ? tide : r)),
        },
      }
      : set
  );
  const old = await feedRows(both(itemsOf(DEPLOYED, staleRows)));
  assert.equal(failing(old), [ROWS]);
  assert.match(row(old, /every row an item carries/).detail, /: vaults\[tide-tables\]$/);
});

test("--previous-document: the ETag is of the file's bytes, a byte order mark in front included", async () => {
  const file = join(work, "with-bom.json");
  writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync("golden/registry.json")]));
  const read = await readJsonFile(file, 1 << 26);
  assert.ok("ok" in read);
  assert.is(read.etag, await strongEtag(new Uint8Array(readFileSync(file))));
});

test("--previous-document: an earlier build's document catches up; the document itself is current; one older than the window or of a fork refetches, one newer waits (warnings); one that is not a document fails", async () => {
  const items = itemsOf(DEPLOYED, VALID);
  // The window dropped the snapshot: the newest item alone, from A.
  const windowOnly = { json: jsonFeed(DEPLOYED, items.slice(1)), atom: atomFeed(DEPLOYED, items.slice(1)) };
  const applied = await feedRows(windowOnly, EARLIER);
  assert.equal(failing(applied), []);
  const parsed = (value: Record<string, unknown>) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  const document = JSON.parse(Buffer.from(after.bytes).toString()) as Record<string, unknown>;
  const warned = async (value: { value: unknown; etag: string }) =>
    (await feedRows(windowOnly, value)).filter((c) => c.result !== "pass").map((c) => [c.result, c.detail]);
  const refetch = "no item starts at it, or one on the way says resync: a consumer refetches the document";
  const older = await earlier(
    parsed({ ...EARLIER.value as Record<string, unknown>, built_at: "2026-11-21T06:00:00Z" }),
  );
  assert.equal(await warned(older), [["warn", refetch]]);
  // A fork: A's built_at, other bytes.
  const fork = await earlier(parsed({ ...EARLIER.value as Record<string, unknown>, vaults: [] }));
  assert.equal(await warned({ ...fork, value: EARLIER.value }), [["warn", refetch]]);
  const newer = await earlier(parsed({ ...document, built_at: "2026-11-23T12:00:00Z" }));
  assert.equal(await warned(newer), [["warn", "it is newer than the feed: a consumer waits and asks again"]]);
  const itself = await feedRows(windowOnly, await earlier(document, after.bytes));
  assert.equal(failing(itself), []);
  assert.is(row(itself, /^catching earlier\.json/).detail, "it is the document itself");
  const bad = await feedRows(both(items), await earlier({ schema_version: "1.0", vaults: [] }));
  assert.equal(failing(bad), ["--previous-document earlier.json is a built v1 document"]);
  // A source given by mistake: the row says where and what, never an internal key's name.
  const source = await feedRows(both(items), await earlier(fixture()));
  const detail = row(source, /--previous-document/).detail;
  assert.match(
    detail,
    /^it does not validate against v1's schema: \(top level\) must have required property 'schema_version'$/,
  );
  assert.not.match(detail, /owner_email|review_queue|node_operator|build_pipeline|harbour\.internal/);
});

test("a build that links its feeds but does not serve them, and one that serves them unlinked: FAIL; none linked and none served: one warning", async () => {
  const missing = await feedRows({ json: null, atom: null });
  assert.equal(failing(missing), [
    `${JSON_PATH} answers 200 as application/feed+json`,
    `${JSON_PATH} has a strong ETag and CORS for any origin`,
    `${ATOM_PATH} answers 200 as application/atom+xml`,
    `${ATOM_PATH} has a strong ETag and CORS for any origin`,
  ]);
  const unlinked = await feedRows({ ...both(itemsOf(DEPLOYED, VALID)), link: false });
  assert.equal(failing(unlinked), [
    `the document's answers link the JSON and the Atom change feed (Link rel="alternate", each with its type, at ${DEPLOYED})`,
  ]);
  const none = await feedRows({ json: null, atom: null, link: false });
  assert.equal(none.map((c) => [c.result, c.name]), [[
    "warn",
    "v1 serves no change feed (a build older than the change feed)",
  ]]);
});

test("through the command: --previous-document FILE replays; a missing file, bad JSON or a bad flag is one line, exit 1 or 2", async () => {
  const { origin, server } = await feedServer(both(itemsOf(DEPLOYED, VALID)));
  try {
    const file = join(work, "earlier.json");
    writeFileSync(file, before.bytes);
    const ok = await runCommand(runVerify, [origin, "--expect-base", DEPLOYED, "--previous-document", file], {
      env: cleanEnv(),
    });
    const out = ok.stdout.toString();
    assert.is(ok.code, 0, out + ok.stderr);
    assert.match(
      out,
      /^\| catching earlier\.json \(built 2026-11-21T12:00:00Z\) up by the feed gives the document's vaults and edges \| pass \| \d+ vaults, \d+ edges \|$/m,
    );
    assert.match(out, /^\d+ passed, 0 warned, 0 failed$/m);
    writeFileSync(join(work, "broken.json"), "{ nope");
    for (
      const [args, code, line] of [
        [
          ["--previous-document", join(work, "absent.json")],
          1,
          /^--previous-document \/.*\/absent\.json: cannot read the file \(ENOENT\)\n$/,
        ],
        [["--previous-document", join(work, "broken.json")], 1, /^--previous-document \/.*\/broken\.json: not JSON\n$/],
        [["--previous-document"], 2, /^.*\(usage: npm run verify -- <base-url> .*; --help for more\)\n$/],
      ] as const
    ) {
      const result = await runCommand(runVerify, [origin, ...args], { env: cleanEnv() });
      assert.is(result.code, code, args.join(" "));
      assert.match(result.stderr, line);
      assert.is(result.stdout.toString(), "");
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test.run();
