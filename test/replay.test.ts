/**
 * The change feed's catch-up rule (feed/history.ts's `catchUp`, which `verify` uses), as laws over
 * documents generated apart from the build, with items made by the oracle of test/change-feed.ts.
 * The same rule over built histories is in test/feed-properties.test.ts;
 * that the module is web-standard and passes deno check, in test/toolchain.test.ts.
 */
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { EdgeLike, RegistryChange } from "../feed/change.ts";
import { catchUp } from "../feed/history.ts";
import { type Doc, historyOf, type Row } from "./change-feed.ts";

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
const ref = (d: Doc) => ({ built_at: d.built_at, etag: d.etag });
/** Values as JSON sees them: fast-check makes some objects without a prototype, which deep equality would tell apart. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const equal = (got: unknown, want: unknown, message?: string) => assert.equal(plain(got), plain(want), message);
const ENVELOPE = { schema_version: "1.0" };

/** A feed's changes for `docs` (oldest first), newest first, the newest carrying the envelope. */
function feedOf(docs: readonly Doc[]): RegistryChange<Row, EdgeLike>[] {
  const changes = historyOf(docs).reverse();
  return changes.map((c, i) => (i === 0 ? { ...c, envelope: ENVELOPE } : c));
}

test("law: from every document of a chain, catch-up gives the newest document's vaults, edges and envelope; from the newest it is current", () => {
  fc.assert(
    fc.property(history, (docs) => {
      const changes = feedOf(docs);
      const last = docs[docs.length - 1] as Doc;
      docs.forEach((d, i) => {
        const got = catchUp(state(d), ref(d), changes);
        if (i === docs.length - 1) equal(got, { kind: "current" });
        else equal(got, { kind: "apply", to: ref(last), data: state(last), envelope: ENVELOPE }, `from document ${i}`);
      });
    }),
    RUNS,
  );
});

test("law: a copy that is no document of the chain is never merged: it refetches, or waits when it is newer than the feed", () => {
  fc.assert(
    fc.property(history, doc("2026-11-12T06:00:00Z"), fc.boolean(), (docs, other, sameTime) => {
      const changes = feedOf(docs);
      // A fork or a restart: another document, at its own time or at a chain document's time.
      const copy = sameTime ? { ...other, built_at: (docs[0] as Doc).built_at, etag: '"fork"' } : other;
      const got = catchUp(state(copy), ref(copy), changes);
      const newer = copy.built_at > (changes[0] as RegistryChange<Row, EdgeLike>).to.built_at;
      equal(got, newer ? { kind: "wait" } : { kind: "refetch", why: "unknown" });
    }),
    RUNS,
  );
});

test("law: older than the window, a resync on the way, or items on the way that are not a chain: refetch; a resync before the copy changes nothing", () => {
  fc.assert(
    fc.property(history, (docs) => {
      fc.pre(docs.length >= 3);
      const changes = feedOf(docs);
      const [first, last] = [docs[0] as Doc, docs[docs.length - 1] as Doc];
      // The window dropped the oldest item (the snapshot) and the one from the first document.
      equal(catchUp(state(first), ref(first), changes.slice(0, -2)), { kind: "refetch", why: "unknown" });
      const resyncAt = (i: number) =>
        changes.map((c, j) =>
          j === i
            ? {
              ...c,
              resync: true,
              vaults: { upsert: [], remove: [] },
              edges: { add: [], remove: [], remove_touching: [] },
            }
            : c
        );
      equal(catchUp(state(first), ref(first), resyncAt(0)), { kind: "refetch", why: "resync" });
      // The snapshot is older than every copy: its resync is not on anyone's way.
      const second = docs[1] as Doc;
      equal(catchUp(state(second), ref(second), resyncAt(changes.length - 1)), {
        kind: "apply",
        to: ref(last),
        data: state(last),
        envelope: ENVELOPE,
      });
      // The newest item no longer starts where the next one ends: the way from document n - 3 is no chain.
      const broken = [{
        ...(changes[0] as RegistryChange<Row, EdgeLike>),
        from: { built_at: first.built_at, etag: '"x"' },
      }, ...changes.slice(1)];
      const third = docs[docs.length - 3] as Doc;
      equal(catchUp(state(third), ref(third), broken), { kind: "refetch", why: "broken" });
    }),
    RUNS,
  );
});

const FROM = { built_at: "2026-11-10T12:00:00Z", etag: '"1"' };
const TO = { built_at: "2026-11-11T12:00:00Z", etag: '"2"' };

test("catchUp applies remove before upsert and remove_touching before add, and sorts as a document sorts", () => {
  const held = { vaults: [{ vault_slug: "b" }, { vault_slug: "a" }], edges: [{ source: "a", target: "b", type: "t" }] };
  const set = {
    from: FROM,
    to: TO,
    class: "data" as const,
    resync: false,
    vaults: { upsert: [{ vault_slug: "b", n: 2 }, { vault_slug: "B" }], remove: ["b", "a"] },
    edges: {
      add: [{ source: "a", target: "b", type: "t" }, { source: "B", target: "b", type: "t" }],
      remove: [],
      remove_touching: ["a"],
    },
    envelope: ENVELOPE,
  };
  equal(catchUp(held, FROM, [set]), {
    kind: "apply",
    to: TO,
    data: {
      vaults: [{ vault_slug: "B" }, { vault_slug: "b", n: 2 }],
      edges: [{ source: "B", target: "b", type: "t" }, { source: "a", target: "b", type: "t" }],
    },
    envelope: ENVELOPE,
  });
});

test("catchUp tells edges apart whatever their strings hold: a served feed's edges need not be slugs", () => {
  const held = { vaults: [], edges: [{ source: "a\u0000b", target: "c", type: "t" }] };
  const set = {
    from: FROM,
    to: TO,
    class: "data" as const,
    resync: false,
    vaults: { upsert: [], remove: [] },
    edges: {
      add: [{ source: "a", target: "b\u0000c\u0000t", type: "" }],
      remove: [{ source: "a", target: "b\u0000c", type: "t" }],
      remove_touching: [],
    },
    envelope: ENVELOPE,
  };
  const got = catchUp(held, FROM, [set]);
  equal(got.kind === "apply" ? got.data : got, {
    vaults: [],
    edges: [{ source: "a", target: "b\u0000c\u0000t", type: "" }, { source: "a\u0000b", target: "c", type: "t" }],
  });
});

test("a snapshot is never merged, and a feed without items or without its envelope is broken", () => {
  const snapshot = { ...{ from: null, to: TO, class: "data" as const, resync: false }, envelope: ENVELOPE };
  const lists = { vaults: { upsert: [], remove: [] }, edges: { add: [], remove: [], remove_touching: [] } };
  equal(catchUp({ vaults: [], edges: [] }, FROM, [{ ...snapshot, ...lists }]), { kind: "refetch", why: "unknown" });
  equal(catchUp({ vaults: [], edges: [] }, FROM, []), { kind: "refetch", why: "broken" });
  const bare = { from: FROM, to: TO, class: "data" as const, resync: false, ...lists };
  equal(catchUp({ vaults: [], edges: [] }, FROM, [bare]), { kind: "refetch", why: "broken" });
});

test("a feed of more items than a build ever writes is broken: the rule costs no more than the window", () => {
  const lists = { vaults: { upsert: [], remove: [] }, edges: { add: [], remove: [], remove_touching: ["zz"] } };
  const at = (n: number) => ({ built_at: `2026-11-10T12:00:00Z`, etag: `"${n}"` });
  const changes = Array.from({ length: 1001 }, (_, i) => ({
    from: at(1000 - i),
    to: at(1001 - i),
    class: "data" as const,
    resync: false,
    ...lists,
    ...(i === 0 ? { envelope: ENVELOPE } : {}),
  }));
  equal(catchUp({ vaults: [], edges: [] }, at(0), changes), { kind: "refetch", why: "broken" });
  equal(catchUp({ vaults: [], edges: [] }, at(1), changes.slice(0, 1000)).kind, "apply");
});

test.run();
