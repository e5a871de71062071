/**
 * The change feed's catch-up rule (feed/history.ts's `catchUp`, which `verify` uses), as laws over
 * documents generated apart from the build, with items made by the oracle of test/change-feed.ts.
 * The same rule over built histories, items in any order, is in test/feed-properties.test.ts;
 * that the module is web-standard and passes deno check, in test/toolchain.test.ts.
 */
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { EdgeLike } from "../feed/change.ts";
import { catchUp } from "../feed/history.ts";
import { changeBetween, type Doc, historyOf, type Row } from "./change-feed.ts";

const RUNS = { numRuns: 300, includeErrorInReport: true };

/** Slugs from a small pool (so that documents share vaults), with keys that trip plain objects. */
const slug = fc.constantFrom("a", "b", "c", "d", "e", "f", "__proto__", "constructor", "toString", "z-9");

/** A row as a document shows it: full (with a note that changes) or minimal. */
const row = (vault_slug: string) =>
  fc.oneof(
    fc.record({
      vault_slug: fc.constant(vault_slug),
      display_name: fc.string({ maxLength: 4 }),
      status: fc.constantFrom("active", "pending", "retired"),
      note: fc.option(fc.string({ maxLength: 6 })),
    }),
    fc.record({
      vault_slug: fc.constant(vault_slug),
      display_name: fc.string({ maxLength: 4 }),
      status: fc.constantFrom("active", "sealed"),
      listing: fc.constant("minimal"),
    }),
  ) as fc.Arbitrary<Row>;

/** A valid document at `built_at`: rows sorted by slug, edges only between its full rows, sorted, no duplicate. */
const doc = (built_at: string): fc.Arbitrary<Doc> =>
  fc.uniqueArray(slug, { maxLength: 8 }).chain((slugs) =>
    fc.tuple(...slugs.sort().map(row)).chain((rows) => {
      const open = rows.filter((r) => r.listing === undefined).map((r) => r.vault_slug);
      const edge = open.length === 0 ? fc.constant(null) : fc.record({
        source: fc.constantFrom(...open),
        target: fc.constantFrom(...open),
        type: fc.constantFrom("feeds", "mirrors", "x y"),
      });
      return fc.array(edge, { maxLength: 10 }).map((list) => {
        const edges = [...new Map((list.filter((e) =>
          e !== null
        ) as EdgeLike[]).map((e) => [JSON.stringify([e.source, e.target, e.type]), e])).values()];
        edges.sort((x, y) => (x.source < y.source
          ? -1
          : x.source > y.source
          ? 1
          : x.target < y.target
          ? -1
          : x.target > y.target
          ? 1
          : x.type < y.type
          ? -1
          : x.type > y.type
          ? 1
          : 0)
        );
        return { built_at, etag: `"${built_at}"`, vaults: rows, edges };
      });
    })
  );

/** A deployment's successive builds, one day apart. */
const history = fc.integer({ min: 1, max: 5 }).chain((n) =>
  fc.tuple(...Array.from({ length: n }, (_, i) => doc(`2026-11-${String(10 + i).padStart(2, "0")}T12:00:00Z`)))
);

const state = (d: Doc) => ({ vaults: d.vaults, edges: d.edges });
/** Values as JSON sees them: fast-check makes some objects without a prototype, which deep equality would tell apart. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const equal = (got: unknown, want: unknown, message?: string) => assert.equal(plain(got), plain(want), message);

test("law: for documents A and B, the feed item from A to B, replayed onto A, gives B's vaults and edges", () => {
  fc.assert(
    fc.property(doc("2026-11-10T12:00:00Z"), doc("2026-11-11T12:00:00Z"), (a, b) => {
      equal(catchUp(state(a), a.built_at, [changeBetween(a, b)]), state(b));
      equal(
        catchUp({ vaults: [], edges: [] }, null, [changeBetween(null, b)]),
        state(b),
        "the first snapshot, from nothing",
      );
    }),
    RUNS,
  );
});

test("law: a copy older than the window, or an item on the way that says resync, asks for a refetch", () => {
  fc.assert(
    fc.property(history, (docs) => {
      fc.pre(docs.length >= 2);
      const sets = historyOf(docs);
      const window = sets.slice(1);
      equal(catchUp(state(docs[0] as Doc), "2026-11-09T00:00:00Z", window), { refetch: "window" });
      equal(catchUp({ vaults: [], edges: [] }, null, window), { refetch: "window" });
      const resync = sets.map((
        s,
        i,
      ) => (i === sets.length - 1
        ? {
          ...s,
          resync: true,
          vaults: { upsert: [], remove: [] },
          edges: { add: [], remove: [], remove_touching: [] },
        }
        : s)
      );
      equal(catchUp(state(docs[0] as Doc), (docs[0] as Doc).built_at, resync), { refetch: "resync" });
      // Items not newer than the copy are skipped, so a resync before it changes nothing.
      const last = docs[docs.length - 1] as Doc;
      equal(catchUp(state(last), last.built_at, resync), state(last));
    }),
    RUNS,
  );
});

test("catchUp applies remove before upsert and remove_touching before add, and sorts as a document sorts", () => {
  const held = { vaults: [{ vault_slug: "b" }, { vault_slug: "a" }], edges: [{ source: "a", target: "b", type: "t" }] };
  const set = {
    from: { built_at: "2026-11-10T12:00:00Z", etag: '"1"' },
    to: { built_at: "2026-11-11T12:00:00Z", etag: '"2"' },
    class: "data" as const,
    resync: false,
    vaults: { upsert: [{ vault_slug: "b", n: 2 }, { vault_slug: "B" }], remove: ["b", "a"] },
    edges: {
      add: [{ source: "a", target: "b", type: "t" }, { source: "B", target: "b", type: "t" }],
      remove: [],
      remove_touching: ["a"],
    },
  };
  equal(catchUp(held, "2026-11-10T12:00:00Z", [set]), {
    vaults: [{ vault_slug: "B" }, { vault_slug: "b", n: 2 }],
    edges: [{ source: "B", target: "b", type: "t" }, { source: "a", target: "b", type: "t" }],
  });
});

test("catchUp tells edges apart whatever their strings hold: a served feed's edges need not be slugs", () => {
  const held = { vaults: [], edges: [{ source: "a\u0000b", target: "c", type: "t" }] };
  const set = {
    from: { built_at: "2026-11-10T12:00:00Z", etag: '"1"' },
    to: { built_at: "2026-11-11T12:00:00Z", etag: '"2"' },
    class: "data" as const,
    resync: false,
    vaults: { upsert: [], remove: [] },
    edges: {
      add: [{ source: "a", target: "b\u0000c\u0000t", type: "" }],
      remove: [{ source: "a", target: "b\u0000c", type: "t" }],
      remove_touching: [],
    },
  };
  equal(catchUp(held, "2026-11-10T12:00:00Z", [set]), {
    vaults: [],
    edges: [{ source: "a", target: "b\u0000c\u0000t", type: "" }, { source: "a\u0000b", target: "c", type: "t" }],
  });
});

test.run();
