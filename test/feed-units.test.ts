/**
 * The change feed's parts one by one, on hand-made items: the chain check and the history check
 * (each refusal by itself), titles and summaries, XML-safe text, the rewrite of a carried item,
 * replay's edge bookkeeping, the diff of two documents, and each bound at its exact edge (the
 * window, the size cap, a name's length). The laws over generated histories are in
 * feed-properties.test.ts and replay.test.ts; these pin what a law cannot name.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Edge, Row } from "../contract/document.ts";
import { applyChanges, diffData, outOfOrder, type RegistryChange, sameData } from "../feed/change.ts";
import {
  type ChangeFeed,
  FEED_LIMITS,
  type FeedLimits,
  feedPlace,
  itemId,
  nextFeed,
  rewrite,
  serializeFeed,
  xmlSafe,
} from "../feed/feed.ts";
import { chainProblems, historyProblems } from "../feed/history.ts";
import { atomFeed } from "../feed/atom.ts";

const PLACE = feedPlace(1, "https://r.example", "/api/registry.v1.json", {
  json: "/api/registry.v1.changes.json",
  atom: "/api/registry.v1.changes.atom",
});
const ref = (day: number, etag = day) => ({
  built_at: `2026-12-0${day}T12:00:00Z`,
  etag: `"${String(etag).padStart(32, "0")}"`,
});
const full = (slug: string, name = slug.toUpperCase()): Row => ({
  vault_slug: slug,
  display_name: name,
  class: null,
  class_label: null,
  status: "active",
  status_label: "Active",
  tier: "in_use",
  tier_label: "In use",
  tier_meaning: "",
  persona: null,
  note: null,
  url: "",
  markdown_url: "",
  last_synced: null,
  tagline: null,
});
const minimal = (slug: string): Row => ({
  vault_slug: slug,
  display_name: slug.toUpperCase(),
  class: null,
  class_label: null,
  status: "sealed",
  status_label: "Sealed",
  persona: null,
  listing: "minimal",
  listing_note: "",
});
const edge = (source: string, target: string, type = "feeds"): Edge => ({ source, target, type });
const ENVELOPE = { schema_version: "1.0" };
const NONE = { vaults: { upsert: [], remove: [] }, edges: { add: [], remove: [], remove_touching: [] } };

/** The feed after `current`, built from an empty document of the day before (a snapshot lists nothing to name). */
const afterEmpty = (current: Parameters<typeof nextFeed>[1], limits = FEED_LIMITS) => {
  const before = {
    ...current,
    ref: { built_at: "2026-11-30T12:00:00Z", etag: `"${"f".repeat(32)}"` },
    vaults: [],
    edges: [],
  };
  return nextFeed(
    PLACE,
    current,
    { snapshot: before, feed: nextFeed(PLACE, before, null, () => "data") },
    () => "data",
    limits,
  );
};

function change(from: number | null, to: number, extra: Partial<RegistryChange> = {}): RegistryChange {
  return { from: from === null ? null : ref(from), to: ref(to), class: "data", resync: false, ...NONE, ...extra };
}
/** An item's edge lists: these added and removed. */
const edges = (add: Edge[], remove: Edge[] = []) => ({ edges: { add, remove, remove_touching: [] } });
function item(c: RegistryChange) {
  return { id: itemId(PLACE, c.to), date_published: c.to.built_at, _registry: c };
}
/** A valid chain of three: a snapshot on day 1, then days 2 and 3, the newest with the envelope. */
const chain = () => [
  item(change(2, 3, { envelope: ENVELOPE })),
  item(change(1, 2)),
  item(change(null, 1)),
];

test("chainProblems: a chain has none; each break is named by the item's index", () => {
  assert.equal(chainProblems(PLACE, chain()), []);
  assert.equal(chainProblems(PLACE, []), ["items: expected at least one item"]);
  const cases: [string, (items: ReturnType<typeof chain>) => void, string][] = [
    [
      "an id of another feed",
      (c) => (c[1]!.id = "https://r.example/x#1"),
      "items[1].id: expected the feed URL, its to.built_at and ETag",
    ],
    [
      "a date not its to's",
      (c) => (c[1]!.date_published = "2026-12-09T00:00:00Z"),
      "items[1].date_published: expected its to.built_at",
    ],
    [
      "from as late as to",
      (c) => (c[0]!._registry = { ...c[0]!._registry, from: ref(3, 9) }),
      "items[0]._registry.from.built_at: expected earlier than its to.built_at",
    ],
    [
      "from not the next to",
      (c) => (c[0]!._registry = { ...c[0]!._registry, from: ref(2, 7) }),
      "items[0]._registry.from: expected the next item's to (items form a chain, newest first)",
    ],
    [
      "from with the next to's ETag, another built_at",
      (c) => (c[0]!._registry = { ...c[0]!._registry, from: { ...ref(2), built_at: "2026-12-02T12:00:01Z" } }),
      "items[0]._registry.from: expected the next item's to (items form a chain, newest first)",
    ],
    [
      "a snapshot above another item",
      (c) => (c[1]!._registry = { ...c[1]!._registry, from: null }),
      "items[1]._registry.from: expected the next item's to (items form a chain, newest first)",
    ],
    [
      "no envelope on the newest",
      (c) => (c[0]!._registry = change(2, 3)),
      "items[0]._registry.envelope: expected on the newest item only",
    ],
    [
      "an envelope on an older one",
      (c) => (c[2]!._registry = change(null, 1, { envelope: ENVELOPE })),
      "items[2]._registry.envelope: expected on the newest item only",
    ],
    [
      "a resync that lists",
      (c) => (c[1]!._registry = change(1, 2, { resync: true, vaults: { upsert: [], remove: ["a"] } })),
      "items[1]._registry: says resync but lists changes",
    ],
  ];
  for (const [what, tamper, problem] of cases) {
    const items = chain();
    tamper(items);
    const problems = chainProblems(PLACE, items);
    assert.ok(problems.includes(problem), `${what}: ${problems.join("; ")}`);
    assert.ok(problems.length <= 2, what);
  }
  // Each list counts: a resync item with anything in any list is refused.
  for (
    const lists of [
      { vaults: { upsert: [full("a")], remove: [] } },
      { edges: { add: [edge("a", "b")], remove: [], remove_touching: [] } },
      { edges: { add: [], remove: [edge("a", "b")], remove_touching: [] } },
      { edges: { add: [], remove: [], remove_touching: ["a"] } },
    ]
  ) {
    const items = chain();
    items[1]!._registry = change(1, 2, { resync: true, ...lists });
    assert.equal(chainProblems(PLACE, items).length, 1, JSON.stringify(lists));
  }
});

test("historyProblems: the newest item must be this document, carry its envelope, and the items must replay onto it unchanged", () => {
  const snapshot = { ref: ref(3), vaults: [full("a"), full("b")], edges: [edge("a", "b")], envelope: ENVELOPE };
  const items = chain();
  items[2]!._registry = change(null, 1, { vaults: { upsert: [full("a"), full("b")], remove: [] } });
  assert.equal(historyProblems(PLACE, items, snapshot), []);
  assert.equal(historyProblems(PLACE, items, { ...snapshot, ref: ref(3, 5) }), [
    "items[0]._registry.to: not this document (its built_at and ETag)",
  ]);
  assert.equal(historyProblems(PLACE, items, { ...snapshot, envelope: { schema_version: "2.0" } }), [
    "items[0]._registry.envelope: not this document's envelope",
  ]);
  const planted = chain();
  planted[1]!._registry = change(1, 2, { vaults: { upsert: [full("c")], remove: [] } });
  assert.equal(historyProblems(PLACE, planted, snapshot), [
    "items: replayed onto the document they lead to, they change it: the feed is not this document's history",
  ]);
  // Items at and before the last resync are not replayed: only what follows it must agree.
  planted[1]!._registry = change(1, 2, { resync: true });
  planted[2]!._registry = change(null, 1, { vaults: { upsert: [full("zz")], remove: [] } });
  assert.equal(historyProblems(PLACE, planted, snapshot), []);
  // A broken chain is reported as such, before any replay.
  const broken = chain();
  broken[0]!._registry = { ...broken[0]!._registry, from: ref(2, 8) };
  assert.equal(historyProblems(PLACE, broken, snapshot).length, 1);
});

test("historyProblems: items that list nothing replay nothing, and a document out of order still fails the replay", () => {
  const snapshot = { ref: ref(3), vaults: [full("a"), full("b")], edges: [edge("a", "b")], envelope: ENVELOPE };
  assert.equal(historyProblems(PLACE, chain(), snapshot), []);
  const replayed = [
    "items: replayed onto the document they lead to, they change it: the feed is not this document's history",
  ];
  assert.equal(historyProblems(PLACE, chain(), { ...snapshot, vaults: [full("b"), full("a")] }), replayed);
  assert.equal(historyProblems(PLACE, chain(), { ...snapshot, vaults: [full("a"), full("a")] }), replayed);
  assert.equal(historyProblems(PLACE, chain(), { ...snapshot, edges: [edge("a", "b"), edge("a", "b")] }), replayed);
});

test("titles and summaries: sentences naming what an item carries, three names then a count, each name cut at 60 characters", () => {
  const place = PLACE;
  const current = { ref: ref(2), vaults: [full("a", "Alpha"), full("b", "Beta")], edges: [], envelope: ENVELOPE };
  const first = nextFeed(place, { ...current, ref: ref(1) }, null, () => "data");
  assert.is(first.items[0]!.title, "Snapshot: a new history begins.");
  assert.is(
    first.items[0]!.content_text,
    "Snapshot: a new history begins. The build of 2026-12-01T12:00:00Z, a snapshot, which a copy never merges: fetch the document.",
  );
  assert.is(afterEmpty({ ...current, ref: ref(1) }).items[0]!.title, "Data change: updated Alpha, Beta.");
  const long = "L".repeat(70);
  const vaults = [
    full("a", "Alpha"),
    full("b", "Beta"),
    full("c", "Gamma"),
    full("d", long),
    full("e", "Eps"),
    full("f", "Phi"),
  ];
  const next = nextFeed(
    place,
    { ref: ref(2), vaults, edges: [edge("a", "b"), edge("a", "c")], envelope: ENVELOPE },
    { snapshot: { ...current, ref: ref(1), edges: [edge("b", "a")] }, feed: first },
    () => "additive",
  );
  assert.is(
    next.items[0]!.title,
    "Additive change: updated Gamma, LLLLL, Eps and 1 more vault; 2 edges added; 1 edge removed.".replace(
      "LLLLL",
      `${"L".repeat(59)}…`,
    ),
  );
  assert.ok(next.items[0]!.content_text.startsWith("Additive change: updated Gamma, "));
  assert.ok(
    next.items[0]!.content_text.includes(
      "Eps, Phi; 2 edges added; 1 edge removed. The build of 2026-12-02T12:00:00Z, from the build of 2026-12-01",
    ),
  );
  const removed = nextFeed(
    place,
    { ref: ref(3), vaults: [full("a", "Alpha")], edges: [], envelope: ENVELOPE },
    {
      snapshot: {
        ref: ref(2),
        vaults: [full("a", "Alpha"), full("b", "Beta"), full("c", "Gamma")],
        edges: [edge("b", "c")],
        envelope: ENVELOPE,
      },
      feed: first,
    },
    () => "breaking",
  );
  assert.is(removed.items[0]!.title, "Breaking change: 2 vaults removed; the edges of 2 vaults removed.");
  const same = nextFeed(
    place,
    { ...current, ref: ref(3) },
    { snapshot: current, feed: first },
    () => "dangerous",
  );
  assert.is(same.items[0]!.title, "Dangerous change: no vault or edge changed.");
  const resync = rewrite(change(1, 2, { resync: true }), new Map());
  assert.is(
    afterEmpty(current, { ...FEED_LIMITS, changeBytes: 10 }).items[0]!.title,
    "Data change: too large to list (over 1 MiB); refetch the document.",
  );
  assert.equal(resync.vaults, NONE.vaults);
});

test("xmlSafe and escapeXml: what XML 1.0 cannot carry becomes U+FFFD, surrogate pairs stay, the five specials are escaped", () => {
  assert.is(
    xmlSafe("a\u0000b\u0008c\u000Bd\u000Ce\u001Ff\uFFFEg\uFFFFh\tI\nJ\rK"),
    "a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFDf\uFFFDg\uFFFDh\tI\nJ\rK",
  );
  assert.is(xmlSafe("x\uD800y\uDC00z\uD83D\uDE00"), "x\uFFFDy\uFFFDz\uD83D\uDE00");
  const text = new TextDecoder().decode(
    atomFeed(
      PLACE,
      afterEmpty({ ref: ref(1), vaults: [full("a", `A\u0001<a href="x">&'</a>`)], edges: [], envelope: ENVELOPE }),
    ),
  );
  assert.ok(
    text.includes("<title>Data change: updated A\uFFFD&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;.</title>"),
    text,
  );
});

test("rewrite: each row becomes its vault's current row or leaves; edges touching a withheld or unlisted vault leave; a resync item keeps no list", () => {
  const rows = new Map<string, Row>([["a", full("a", "Now")], ["b", minimal("b")]]);
  const carried = change(1, 2, {
    vaults: { upsert: [full("a", "Then"), full("b"), full("c")], remove: ["d"] },
    edges: {
      add: [edge("a", "a"), edge("a", "b"), { ...edge("a", "a", "x"), extra: 1 } as Edge],
      remove: [edge("c", "a"), edge("a", "a", "y")],
      remove_touching: ["c"],
    },
    envelope: { old: true },
  });
  const got = rewrite(carried, rows);
  assert.equal(got.vaults, { upsert: [full("a", "Now"), minimal("b")], remove: ["d"] });
  assert.equal(got.edges, {
    add: [edge("a", "a"), edge("a", "a", "x")],
    remove: [edge("a", "a", "y")],
    remove_touching: ["c"],
  });
  assert.equal(Object.keys(got.edges.add[1]!), ["source", "target", "type"], "a planted key is dropped");
  assert.ok(got.edges.add[0] === carried.edges.add[0], "a bare edge is kept as it is");
  assert.not.ok("envelope" in got);
  assert.equal(rewrite(carried, rows, ENVELOPE).envelope, ENVELOPE);
  const resync = rewrite({ ...carried, resync: true }, rows, ENVELOPE);
  assert.is(JSON.stringify(resync), JSON.stringify({ ...carried, resync: true, ...NONE, envelope: ENVELOPE }));
  assert.not.ok("envelope" in rewrite({ ...carried, resync: true }, rows));
});

test("applyChanges: remove_touching, remove and add in that order, across items, with edges re-added and removed again", () => {
  const data = { vaults: [full("a"), full("b")], edges: [edge("a", "b"), edge("b", "a"), edge("b", "b")] };
  const got = applyChanges(data, [
    change(1, 2, {
      edges: { add: [edge("a", "b"), edge("b", "c")], remove: [edge("b", "b")], remove_touching: ["a"] },
    }),
    change(2, 3, { edges: { add: [edge("c", "c")], remove: [], remove_touching: ["b"] } }),
    change(3, 4, { edges: { add: [edge("b", "a", "t")], remove: [edge("c", "c")], remove_touching: [] } }),
  ]);
  assert.equal(got.edges, [edge("b", "a", "t")]);
  // Each vault's edges leave, even after another vault's: a vault of no edge removes none.
  const each = applyChanges(data, [
    change(1, 2, { edges: { add: [], remove: [], remove_touching: ["z", "a"] } }),
    change(2, 3, { edges: { add: [edge("c", "b"), edge("c", "c")], remove: [], remove_touching: [] } }),
    change(3, 4, { edges: { add: [], remove: [], remove_touching: ["b", "y"] } }),
  ]);
  assert.equal(each.edges, [edge("c", "c")]);
  // Without any remove_touching, the rest still applies.
  const plain = applyChanges(data, [
    change(1, 2, { edges: { add: [edge("a", "a")], remove: [edge("b", "a")], remove_touching: [] } }),
  ]);
  assert.equal(plain.edges, [edge("a", "a"), edge("a", "b"), edge("b", "b")]);
  assert.throws(() => applyChanges(data, [change(1, 2, { resync: true })]), /says resync: refetch the document/);
});

test("outOfOrder names the first row or edge not strictly after the one before it", () => {
  const edges = [edge("a", "b"), edge("b", "a")];
  assert.is(outOfOrder({ vaults: [full("a"), full("b")], edges }), undefined);
  assert.is(outOfOrder({ vaults: [full("a"), full("c"), full("b")], edges }), "vaults[2]");
  assert.is(outOfOrder({ vaults: [full("a"), full("a")], edges: [edges[1]!, edges[0]!] }), "vaults[1]");
  assert.is(outOfOrder({ vaults: [full("a")], edges: [...edges, edges[1]!] }), "edges[2]");
});

test("applyChanges of nothing: lists in the document's order come back as they are; any other order, sorted and each once", () => {
  const sorted = { vaults: [full("a"), full("b")], edges: [edge("a", "b"), edge("b", "a")] };
  assert.is(applyChanges(sorted, []), sorted, "the very data: nothing copied");
  for (
    const data of [
      { vaults: [full("b"), full("a")], edges: sorted.edges },
      { vaults: [full("a"), full("a"), full("b")], edges: sorted.edges },
      { vaults: sorted.vaults, edges: [edge("b", "a"), edge("a", "b")] },
      { vaults: sorted.vaults, edges: [edge("a", "b"), edge("a", "b"), edge("b", "a")] },
    ]
  ) {
    const got = applyChanges(data, []);
    assert.is.not(got, data);
    assert.equal(got, sorted);
  }
});

/** The build `d` days after 2026-12-01 noon. */
const dayRef = (d: number) => ({
  built_at: new Date(Date.parse("2026-12-01T12:00:00Z") + d * 86_400_000).toISOString().replace(".000Z", "Z"),
  etag: `"${String(d + 1).padStart(32, "0")}"`,
});
/** Its document: one vault whose name grows by a character a day, so that each item has another size. */
const daySnapshot = (d: number) => ({
  ref: dayRef(d),
  vaults: [full("a", `Alpha ${"x".repeat(d)}`)],
  edges: [],
  envelope: ENVELOPE,
});
const UNBOUNDED: FeedLimits = {
  ...FEED_LIMITS,
  windowDays: Infinity,
  minItems: Infinity,
  maxItems: Infinity,
  feedBytes: Infinity,
};
/** The builds of days 0 to `last - 1`, one a day, each carrying the previous on, with nothing dropped. */
function daily(last: number): { snapshot: ReturnType<typeof daySnapshot>; feed: ChangeFeed } {
  let feed = nextFeed(PLACE, daySnapshot(0), null, () => "data", UNBOUNDED);
  for (let d = 1; d < last; d++) {
    feed = nextFeed(PLACE, daySnapshot(d), { snapshot: daySnapshot(d - 1), feed }, () => "data", UNBOUNDED);
  }
  return { snapshot: daySnapshot(last - 1), feed };
}
/** The build of day `last` after `daily(last)`, under `limits`. */
const dayFeed = (last: number, limits: Partial<FeedLimits>) =>
  nextFeed(PLACE, daySnapshot(last), daily(last), () => "data", { ...UNBOUNDED, ...limits });

test("window: feedBytes is the serialized feed's exact size, one byte less drops the oldest item, and the newest always stays", () => {
  const all = dayFeed(4, {}).items;
  assert.is(all.length, 5);
  for (let k = 1; k <= all.length; k++) {
    const size = serializeFeed({ ...dayFeed(4, {}), items: all.slice(0, k) }).byteLength;
    assert.equal(dayFeed(4, { feedBytes: size }).items, all.slice(0, k), `${k} items in exactly ${size} bytes`);
    assert.equal(
      dayFeed(4, { feedBytes: size - 1 }).items,
      all.slice(0, Math.max(1, k - 1)),
      `${k} items, one byte less`,
    );
  }
  assert.equal(dayFeed(4, { feedBytes: 0 }).items, all.slice(0, 1));
});

test("window: an item exactly windowDays old stays and one a day older leaves, unless among the newest minItems; then at most maxItems", () => {
  const all = dayFeed(5, {}).items;
  assert.is(all.length, 6);
  assert.equal(dayFeed(5, { windowDays: 2, minItems: 0 }).items, all.slice(0, 3));
  assert.equal(dayFeed(5, { windowDays: 0, minItems: 0 }).items, all.slice(0, 1));
  assert.equal(dayFeed(5, { windowDays: 2, minItems: 4 }).items, all.slice(0, 4));
  assert.equal(dayFeed(5, { windowDays: 0, minItems: 1 }).items, all.slice(0, 1));
  assert.equal(dayFeed(5, { windowDays: 0, minItems: 5 }).items, all.slice(0, 5));
  assert.equal(dayFeed(5, { maxItems: 2 }).items, all.slice(0, 2));
  assert.equal(dayFeed(5, { windowDays: 1, minItems: 0, maxItems: 1 }).items, all.slice(0, 1));
});

test("capped: an item of exactly changeBytes (its compact JSON's UTF-8 bytes) is kept whole; one byte over says resync, with every list empty and its envelope", () => {
  const current = { ref: ref(1), vaults: [full("a", "Alé"), full("b")], edges: [edge("a", "b")], envelope: ENVELOPE };
  const whole = afterEmpty(current).items[0]!._registry;
  assert.ok(JSON.stringify(whole).includes("Alé"), "a character of two bytes in the item");
  const size = new TextEncoder().encode(JSON.stringify(whole)).byteLength;
  assert.equal(afterEmpty(current, { ...FEED_LIMITS, changeBytes: size }).items[0]!._registry, whole);
  const capped = afterEmpty(current, { ...FEED_LIMITS, changeBytes: size - 1 }).items[0]!._registry;
  assert.is(
    JSON.stringify(capped),
    JSON.stringify({ from: whole.from, to: ref(1), class: "data", resync: true, ...NONE, envelope: ENVELOPE }),
  );
});

test("names: a display name of exactly 60 characters (code points) is shown whole, one of 61 is cut to 59 and an ellipsis", () => {
  const titled = (name: string) => afterEmpty({ ...daySnapshot(1), vaults: [full("a", name)] });
  const sixty = "😀".repeat(30) + "n".repeat(30);
  assert.is(titled(sixty).items[0]!.title, `Data change: updated ${sixty}.`);
  assert.is(titled(`${sixty}m`).items[0]!.title, `Data change: updated ${sixty.slice(0, -1)}….`);
});

test("an item's size: a text of exactly four times the cap in code units is still encoded; one unit more counts by its length", () => {
  const cap = FEED_LIMITS.changeBytes * 4;
  const current = (name: string) => ({ ref: ref(1), vaults: [full("a", name)], edges: [], envelope: ENVELOPE });
  const itemAt = (name: string, changeBytes: number) =>
    afterEmpty(current(name), { ...FEED_LIMITS, changeBytes }).items[0]!._registry;
  /** A name of one é (two bytes), then a's, that makes the whole item's compact JSON `units` code units. */
  const nameOf = (units: number) => {
    const name = `é${"a".repeat(units - JSON.stringify(itemAt("é", Infinity)).length)}`;
    assert.is(JSON.stringify(itemAt(name, Infinity)).length, units);
    return name;
  };
  // Encoded: its cap + 1 bytes pass a cap of `cap`.
  assert.ok(itemAt(nameOf(cap), cap).resync, "encoded: é is two bytes");
  // Counted by its length, cap + 1, which a cap of cap + 1 keeps (its cap + 2 bytes would pass it).
  assert.not.ok(itemAt(nameOf(cap + 1), cap + 1).resync, "the length in code units");
});

test("historyProblems: items are replayed oldest first, the oldest included when no item says resync", () => {
  const snapshot = { ref: ref(3), vaults: [full("a")], edges: [edge("a", "a")], envelope: ENVELOPE };
  // Vault a and its edge leave on day 2 and are back on day 3: applied newest first, they would be gone.
  const items = [
    item(change(2, 3, { vaults: { upsert: [full("a")], remove: [] }, envelope: ENVELOPE, ...edges([edge("a", "a")]) })),
    item(change(1, 2, { vaults: { upsert: [], remove: ["a"] }, ...edges([], [edge("a", "a")]) })),
    item(change(null, 1)),
  ];
  assert.equal(historyProblems(PLACE, items, snapshot), []);
  // A planted row in the oldest item, with no resync above it, is found.
  items[2]!._registry = change(null, 1, { vaults: { upsert: [full("zz")], remove: [] } });
  assert.equal(historyProblems(PLACE, items, snapshot), [
    "items: replayed onto the document they lead to, they change it: the feed is not this document's history",
  ]);
  assert.equal(historyProblems(PLACE, [], snapshot), ["items: expected at least one item"]);
});

test("atomFeed: the links name both forms' media types; a feed without items is updated at the epoch", () => {
  const text = new TextDecoder().decode(atomFeed(PLACE, { ...dayFeed(1, {}), items: [] }));
  assert.ok(text.includes(`  <link rel="self" type="application/atom+xml" href="${PLACE.atomUrl}"/>\n`));
  assert.ok(text.includes(`  <link rel="alternate" type="application/feed+json" href="${PLACE.feedUrl}"/>\n`));
  assert.ok(text.includes("  <updated>1970-01-01T00:00:00Z</updated>\n"));
  assert.not.ok(text.includes("<entry>"));
});

test("rewrite: only an edge of exactly source, target and type, in that order, is kept as it is; any other is made anew", () => {
  const rows = new Map<string, Row>([["a", full("a")]]);
  const planted = [
    { source: "a", target: "a", x: "t" },
    { source: "a", target: "a" },
    { source: "a", target: "a", type: "t", x: 1 },
    { target: "a", source: "a", type: "t" },
    { type: "t", source: "a", target: "a" },
  ] as unknown as Edge[];
  const got = rewrite(change(1, 2, edges(planted)), rows);
  assert.is(got.edges.add.length, planted.length);
  for (const [i, e] of got.edges.add.entries()) {
    assert.equal(Object.keys(e), ["source", "target", "type"], JSON.stringify(planted[i]));
    assert.ok(e !== planted[i]);
  }
  const bare = edge("a", "a");
  assert.ok(rewrite(change(1, 2, edges([], [bare])), rows).edges.remove[0] === bare);
});

test("diffData: rows new or different are upserted (a key added, dropped, moved or changed), rows gone removed; lists out of order are refused", () => {
  const a = full("a");
  const plus = { ...a, extra: null } as unknown as Row;
  const { vault_slug: _, ...restOfA } = a;
  const moved = { ...restOfA, vault_slug: "a" } as Row;
  const data = (vaults: Row[], edgeList: Edge[] = []) => ({ vaults, edges: edgeList });
  for (
    const [what, before, after] of [["a key added", a, plus], ["a key dropped", plus, a], ["a key moved", a, moved]]
  ) {
    assert.equal(
      diffData(data([before as Row]), data([after as Row])).vaults,
      { upsert: [after], remove: [] },
      what as string,
    );
  }
  assert.equal(diffData(data([a]), data([{ ...a }])).vaults, { upsert: [], remove: [] });
  // A vault gone or withheld takes its edges along by remove_touching: they leave remove.
  const before = data([a, full("b"), full("c"), full("d")], [
    edge("a", "b"),
    edge("b", "b"),
    edge("b", "c"),
    edge("c", "d"),
  ]);
  assert.equal(diffData(before, data([full("b", "Bee"), full("c"), minimal("d"), full("e")], [edge("b", "e")])), {
    vaults: { upsert: [full("b", "Bee"), minimal("d"), full("e")], remove: ["a"] },
    edges: { add: [edge("b", "e")], remove: [edge("b", "b"), edge("b", "c")], remove_touching: ["a", "d"] },
  });
  const ab = [edge("a", "b"), edge("b", "a")];
  for (
    const [what, before, after] of [
      ["rows before", data([full("b"), a]), data([])],
      ["rows after", data([]), data([full("b"), a])],
      ["a row twice", data([a, a]), data([a])],
      ["edges before", data([], [...ab].reverse()), data([])],
      ["edges after", data([], []), data([], [...ab].reverse())],
      ["an edge twice", data([], [ab[0]!]), data([], [ab[0]!, ab[0]!])],
    ] as const
  ) {
    assert.throws(() => diffData(before, after), /^diffData: a list is not in the document's order$/, what);
  }
});

test("sameData: the same rows and edges in the same order; a row or an edge in place of another, or one fewer, is not", () => {
  const data = { vaults: [full("a"), full("b")], edges: [edge("a", "b"), edge("b", "a")] };
  assert.ok(sameData(data, { vaults: [full("a"), full("b")], edges: [edge("a", "b"), edge("b", "a")] }));
  assert.ok(sameData(data, data));
  assert.not.ok(sameData(data, { ...data, vaults: [full("a"), full("b", "Bee")] }));
  assert.not.ok(sameData(data, { ...data, edges: [edge("a", "b"), edge("b", "a", "t")] }));
  assert.not.ok(sameData(data, { ...data, vaults: [full("a"), full("b"), full("c")] }));
  assert.not.ok(sameData(data, { ...data, edges: [edge("a", "b"), edge("b", "a"), edge("b", "b")] }));
  assert.not.ok(sameData({ ...data, vaults: [full("a"), full("b"), full("c")] }, data));
  assert.not.ok(sameData({ ...data, edges: [edge("a", "b"), edge("b", "a"), edge("b", "b")] }, data));
});

test("nextFeed: a first build is a snapshot of class data whose lists are empty, without asking the class", () => {
  const current = { ref: ref(1), vaults: [full("a"), minimal("b")], edges: [edge("a", "a")], envelope: ENVELOPE };
  const feed = nextFeed(PLACE, current, null, () => {
    throw new Error("a snapshot has no class to ask for");
  });
  assert.is(
    JSON.stringify(feed.items.map((i) => i._registry)),
    JSON.stringify([{
      from: null,
      to: ref(1),
      class: "data",
      resync: false,
      ...NONE,
      envelope: ENVELOPE,
    }]),
  );
});

test.run();
