/**
 * `verify` on change feeds: servers of the test's own serve a real build's document with hand-made
 * feeds (test/change-feed.ts), valid or broken one way each, and every case ends in its PASS or
 * FAIL row.
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
import type { EdgeLike, RegistryChange } from "../feed/change.ts";
import { answerer } from "../http/answer.ts";
import { type Build, prepareBuild } from "../assembly/prepare.ts";
import type { Resource } from "../http/responses.ts";
import { type Check, verify } from "../node/verify/verify.ts";
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
): Promise<{ build: Build; doc: Doc & Record<string, unknown>; bytes: Uint8Array }> {
  const valid = validateSource(source);
  assert.ok(valid.ok, JSON.stringify(valid));
  const build = await prepareBuild(valid.source, { baseUrl: DEPLOYED, builtAt });
  const resource = build.routes.get("/api/registry.v1.json") as Resource;
  const bytes = resource.identity.body;
  return { build, doc: { ...JSON.parse(Buffer.from(bytes).toString()), etag: resource.identity.etag }, bytes };
}

const before = await built(fixture(), "2026-11-21T12:00:00Z");
const after = await built(changed(fixture()), "2026-11-22T12:00:00Z");
const A = before.doc;
const B = after.doc;
const VALID = historyOf([A, B]);

interface Served {
  json?: string | null;
  atom?: string | null;
  /** Whether the feeds answer 304 to their own ETag (default: yes). */
  conditional?: boolean;
  /** Whether the document's answers link the feeds (default: yes). */
  link?: boolean;
}

/** B's answers, plus the feeds given (null: 404), linked from the document answers as the feeds' rules say. */
async function feedServer(served: Served): Promise<{ origin: string; server: Server }> {
  const answer = answerer(after.build);
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
async function feedRows(served: Served, previous?: unknown): Promise<Check[]> {
  const { origin, server } = await feedServer(served);
  try {
    const rows = await verify(origin, {
      expectBase: DEPLOYED,
      ...(previous === undefined ? {} : { previousDocument: { name: "earlier.json", value: previous } }),
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
  const rows = await feedRows(both(itemsOf(DEPLOYED, VALID)), A);
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
      /no item carries detail/,
      /newest item's to is no later/,
      /newest item's to state is the document's/,
      /whole feed, replayed from nothing/,
      /items newer than earlier\.json .*, replayed onto it/,
    ]
  ) {
    assert.is(row(rows, name).result, "pass", String(name));
  }
  assert.is(row(rows, /replayed onto it, give/).detail, `${B.vaults.length} vaults, ${B.edges.length} edges`);
});

test("a tampered feed whose replay misses a change: the whole-history replay and the --previous-document replay FAIL, naming the vault", async () => {
  const last = VALID[1] as RegistryChange<Row, EdgeLike>;
  const tampered = [VALID[0], {
    ...last,
    vaults: { ...last.vaults, upsert: last.vaults.upsert.filter((r) => r.vault_slug !== "tide-tables") },
  }] as RegistryChange<Row, EdgeLike>[];
  const rows = await feedRows(both(itemsOf(DEPLOYED, tampered)), A);
  assert.equal(failing(rows), [
    "the whole feed, replayed from nothing, gives the document's vaults and edges",
    "the items newer than earlier.json (built 2026-11-21T12:00:00Z), replayed onto it, give the document's vaults and edges",
  ]);
  assert.is(row(rows, /replayed from nothing/).detail, "vaults[tide-tables] differs");
  const noEdge = [VALID[0], { ...last, edges: { ...last.edges, add: [] } }] as RegistryChange<Row, EdgeLike>[];
  const missing = await feedRows(both(itemsOf(DEPLOYED, noEdge)), A);
  assert.is(row(missing, /replayed onto it, give/).detail, "edge new-quay -> tide-tables missing");
});

test("a JSON feed that breaks its own rules: two items to one build, a date_published that is not to.built_at, a resync with lists, a bad class, over 4 MiB: FAIL", async () => {
  const items = itemsOf(DEPLOYED, VALID);
  const [first, last] = VALID as [RegistryChange<Row, EdgeLike>, RegistryChange<Row, EdgeLike>];
  const text = jsonFeed(DEPLOYED, items);
  const cases: [string, string, RegExp][] = [
    [
      "two items to one build",
      jsonFeed(DEPLOYED, [items[0] as FeedItem, {
        id: "other",
        set: { ...last, to: first.to, from: { built_at: "2026-11-20T00:00:00Z", etag: '"x"' } },
      }]),
      /^two items lead to the build of 2026-11-21T12:00:00Z$/,
    ],
    [
      "date_published",
      text.replace('"date_published": "2026-11-22T12:00:00Z"', '"date_published": "2026-11-22T12:00:01Z"'),
      /^items\[0\]: date_published is not _registry\.to\.built_at$/,
    ],
    [
      "resync with lists",
      jsonFeed(DEPLOYED, itemsOf(DEPLOYED, [first, { ...last, resync: true }])),
      /^items\[0\]: _registry\.resync is true but its lists are not empty$/,
    ],
    [
      "class",
      text.replace('"class": "data"', '"class": "minor"'),
      /^items\[0\]: _registry\.class is not one of data, additive, dangerous, breaking$/,
    ],
    ["version", text.replace("version/1.1", "version/1"), /^version is not https:\/\/jsonfeed\.org\/version\/1\.1$/],
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

test("feeds that ignore If-None-Match: FAIL for each", async () => {
  const rows = await feedRows({ ...both(itemsOf(DEPLOYED, VALID)), conditional: false });
  assert.equal(failing(rows), [`${JSON_PATH} answers 304 to its own ETag`, `${ATOM_PATH} answers 304 to its own ETag`]);
});

test("duplicate item ids: FAIL (and the Atom entries no longer match the items one to one)", async () => {
  const items = itemsOf(DEPLOYED, VALID).map((item) => ({ ...item, id: "same-id" }));
  const rows = await feedRows(both(items));
  assert.equal(failing(rows), [
    "item ids are unique in each feed",
    "the Atom entries are the JSON items: the same ids and dates",
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

test("a feed whose newest to is not the document: a later built_at, another ETag, or another state: FAIL", async () => {
  const last = VALID[1] as RegistryChange<Row, EdgeLike>;
  const later = { ...last, to: { ...last.to, built_at: "2026-11-23T12:00:00Z" } };
  const rows = await feedRows(both(itemsOf(DEPLOYED, [VALID[0], later] as RegistryChange<Row, EdgeLike>[])));
  assert.ok(
    failing(rows).includes(
      "the newest item's to is no later than the document, and names its identity ETag when it is this build",
    ),
    JSON.stringify(rows),
  );
  const etag = await feedRows(
    both(
      itemsOf(DEPLOYED, [VALID[0], { ...last, to: { ...last.to, etag: '"0000"' } }] as RegistryChange<Row, EdgeLike>[]),
    ),
  );
  assert.equal(failing(etag), [
    "the newest item's to is no later than the document, and names its identity ETag when it is this build",
  ]);
  assert.match(
    row(etag, /newest item's to is no later/).detail,
    new RegExp(`to\\.etag "0000", identity ETag ${B.etag}$`),
  );
  const other = {
    ...B,
    vaults: B.vaults.map((r) => (r.vault_slug === "new-quay" ? { ...r, display_name: "Old Quay" } : r)),
  };
  const state = await feedRows(both(itemsOf(DEPLOYED, historyOf([A, other]))));
  assert.equal(failing(state), [
    "the newest item's to state is the document's vaults and edges (replayed onto its own result, it changes nothing)",
    "the whole feed, replayed from nothing, gives the document's vaults and edges",
  ]);
  assert.is(row(state, /newest item's to state/).detail, "vaults[new-quay] differs");
});

test("a feed that still carries a withheld vault's former detail (not rewritten for this build): FAIL naming the slug only", async () => {
  const unrewritten = [changeBetween(null, A), changeBetween(A, B)];
  const rows = await feedRows(both(itemsOf(DEPLOYED, unrewritten)));
  assert.equal(failing(rows), ["no item carries detail of a vault the document withholds or no longer lists"]);
  const detail = row(rows, /no item carries detail/).detail;
  assert.match(detail, /: vaults\[harbour-ledger\]/);
  assert.not.match(detail, /Quartermaster|reconciliation/);
});

test("--previous-document: an earlier build's document replays; one older than the window warns; one that is not a document fails", async () => {
  const items = itemsOf(DEPLOYED, VALID);
  const windowOnly = { json: jsonFeed(DEPLOYED, items.slice(1)), atom: atomFeed(DEPLOYED, items.slice(1)) };
  const older = { ...A, built_at: "2026-11-21T06:00:00Z" };
  const rows = await feedRows(windowOnly, older);
  assert.equal(rows.filter((c) => c.result !== "pass").map((c) => [c.result, c.detail]), [[
    "warn",
    "older than the feed's window: a consumer refetches the document",
  ]]);
  assert.not.ok(
    rows.some((c) => /replayed from nothing/.test(c.name)),
    "no whole-history row when the window has no first snapshot",
  );
  const bad = await feedRows(both(items), { schema_version: "1.0", vaults: [] });
  assert.equal(failing(bad), ["--previous-document earlier.json is a built v1 document"]);
  // A source given by mistake: the row says where and what, never an internal key's name.
  const source = await feedRows(both(items), fixture());
  const detail = row(source, /--previous-document/).detail;
  assert.match(detail, /^it does not validate against v1's schema: \/ must have required property 'schema_version'$/);
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
      /^\| the items newer than earlier\.json \(built 2026-11-21T12:00:00Z\), replayed onto it, give the document's vaults and edges \| pass \| \d+ vaults, \d+ edges \|$/m,
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
