/**
 * The laws of the change feeds (docs/document.md, "Change feeds"), as fast-check properties over
 * generated sequences of sources built one after another, each with the previous as `--previous`:
 * catch-up from the chain and from elsewhere, privacy, stability and bounds.
 */
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { diffData } from "../feed/change.ts";
import { FEED_LIMITS, type FeedLimits, itemId, serializeFeed } from "../feed/feed.ts";
import { catchUp, historyProblems } from "../feed/history.ts";
import { fcParams, SECRET } from "./arbitraries.ts";
import { applyEdit, buildStep, type Built, marked, sequence, timeAt, unwindowedItems } from "./feed-history.ts";
import { PLACE } from "./feed-history.ts";

type JsonObject = Record<string, unknown>;
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
/** An item's size as the cap counts it: its compact JSON's UTF-8 bytes. */
const changeBytes = (change: object) => new TextEncoder().encode(JSON.stringify(change)).byteLength;
const runs = { ...fcParams, numRuns: Math.max(1, Math.floor(fcParams.numRuns / 3)) };

/** Builds a whole sequence: each build's outputs, the forbidden strings as of it, and its sources. */
async function buildAll(
  seq: { first: JsonObject; edits: readonly (readonly [string, number, number])[]; gaps: readonly number[] },
  limits: FeedLimits = FEED_LIMITS,
) {
  const forbidden = new Set<string>();
  let source = marked(seq.first);
  let hours = 0;
  const builds: { built: Built; forbidden: string[]; builtAt: string; source: JsonObject }[] = [];
  let previous: Built | null = null;
  for (let i = 0; i <= seq.edits.length; i++) {
    if (i > 0) source = applyEdit(source, seq.edits[i - 1] as never, forbidden);
    hours += seq.gaps[i % seq.gaps.length] as number;
    const builtAt = timeAt(hours);
    const built: Built = await buildStep(source, builtAt, previous, limits);
    builds.push({ built, forbidden: [...forbidden], builtAt, source });
    previous = built;
  }
  return builds;
}

/** The document a consumer rebuilds from a catch-up: the envelope, then the vaults and edges, as a build writes it. */
function rebuilt(next: { data: { vaults: unknown; edges: unknown }; envelope: object }): string {
  return `${JSON.stringify({ ...next.envelope, vaults: next.data.vaults, edges: next.data.edges }, null, 2)}\n`;
}

test("catch-up: from every document of the chain the feed still starts an item at, the newer items give the current document's bytes exactly; from one older than the window, or with a resync on the way, it says to refetch", async () => {
  await fc.assert(
    fc.asyncProperty(sequence, async (seq) => {
      const builds = await buildAll(seq);
      for (const [n, { built }] of builds.entries()) {
        const feed = built.feed;
        assert.equal(
          historyProblems(PLACE, built.history.feed.items, built.history.snapshot),
          [],
          "a build's own feed is the history of its document",
        );
        const changes = feed.items.map((item) => item._registry);
        const ids = new Set(feed.items.map((item) => item.id));
        for (const [m, { built: held }] of builds.slice(0, n + 1).entries()) {
          const ref = held.history.snapshot.ref;
          const got = catchUp(held.document, ref, changes);
          if (m === n) {
            assert.equal(got, { kind: "current" });
            continue;
          }
          // The item of build m + 1 starts at build m: it is in the feed unless the window dropped it.
          const next = builds[m + 1]!.built.history.snapshot.ref;
          const resync = feed.items.some((i) => i._registry.to.built_at > ref.built_at && i._registry.resync);
          if (!ids.has(itemId(PLACE, next))) {
            assert.equal(got, { kind: "refetch", why: "unknown" }, "older than the window");
          } else if (resync) assert.equal(got, { kind: "refetch", why: "resync" });
          else {
            assert.is(got.kind, "apply", `a copy of build ${m}`);
            if (got.kind === "apply") assert.is(rebuilt(got), text(built.documentBytes), `a copy of build ${m}`);
          }
        }
      }
    }),
    runs,
  );
});

test("catch-up is never wrong: a copy from a fork, from a restarted history, or newer than the feed read is never merged: it refetches or waits", async () => {
  await fc.assert(
    fc.asyncProperty(sequence, fc.nat(), fc.nat(), async (seq, pickFork, pickStale) => {
      const builds = await buildAll(seq);
      const last = builds[builds.length - 1]!.built;
      const changes = last.feed.items.map((item) => item._registry);
      // A fork: another build from the same previous build, a minute later, with one note changed.
      const at = pickFork % builds.length;
      const base = builds[at]!;
      const forkSource = applyEdit(base.source, ["note", pickFork, 0], new Set());
      const forkTime = new Date(Date.parse(base.builtAt) + 60_000).toISOString().replace(/\.\d+Z$/, "Z");
      const fork = await buildStep(forkSource, forkTime, at === 0 ? null : builds[at - 1]!.built);
      // A restart: the last source built again with no previous build, an hour after the last.
      const restartTime = new Date(Date.parse(builds[builds.length - 1]!.builtAt) + 3_600_000).toISOString()
        .replace(/\.\d+Z$/, "Z");
      const restart = await buildStep(builds[builds.length - 1]!.source, restartTime, null);
      for (const [what, copy] of [["a fork", fork], ["a restarted history", restart]] as const) {
        const got = catchUp(copy.document, copy.history.snapshot.ref, changes);
        const newer = copy.history.snapshot.ref.built_at > changes[0]!.to.built_at;
        const sameBytes = text(copy.documentBytes) === text(base.built.documentBytes);
        if (!sameBytes) assert.equal(got, newer ? { kind: "wait" } : { kind: "refetch", why: "unknown" }, what);
      }
      // Every chain copy against the restarted feed (a snapshot): never merged.
      const restarted = restart.feed.items.map((item) => item._registry);
      for (const { built } of builds) {
        assert.equal(catchUp(built.document, built.history.snapshot.ref, restarted), {
          kind: "refetch",
          why: "unknown",
        });
      }
      // A stale feed beside a newer document: the copy waits.
      const stale = builds[pickStale % builds.length]!.built.feed.items.map((item) => item._registry);
      const staleTo = stale[0]!.to;
      const got = catchUp(last.document, last.history.snapshot.ref, stale);
      assert.equal(
        got,
        staleTo.built_at === last.history.snapshot.ref.built_at ? { kind: "current" } : { kind: "wait" },
      );
    }),
    runs,
  );
});

test("privacy: the detail of a vault a build withholds or removes is in no output of that build or a later one", async () => {
  await fc.assert(
    fc.asyncProperty(sequence, async (seq) => {
      for (const { built, forbidden } of await buildAll(seq)) {
        for (
          const [what, bytes] of [["JSON feed", built.feedBytes], ["Atom feed", built.atomBytes], [
            "document",
            built.documentBytes,
          ]] as const
        ) {
          const out = text(bytes);
          assert.not.ok(out.includes(SECRET), `${what} carries private detail`);
          const leak = forbidden.find((word) => out.includes(word));
          assert.is(leak, undefined, `${what} carries ${leak}, detail of a vault withheld or removed`);
        }
      }
    }),
    runs,
  );
});

test("stability: each build adds one item, whose from is the previous build; an item's id, to, from and class never change in later feeds; every row it carries is the current row; its edges and removals only shrink", async () => {
  await fc.assert(
    fc.asyncProperty(sequence, async (seq) => {
      const builds = await buildAll(seq);
      for (let n = 1; n < builds.length; n++) {
        const [before, now] = [builds[n - 1]!, builds[n]!];
        const older = new Map(before.built.feed.items.map((i) => [i.id, i]));
        const ids = now.built.feed.items.map((i) => i.id);
        assert.is(new Set(ids).size, ids.length, "ids are unique");
        const carried = now.built.feed.items.filter((i) => older.has(i.id));
        // Every build is a new document (a later built_at): one new item, from the previous one.
        assert.is(now.built.feed.items.length - carried.length, 1);
        assert.equal(now.built.feed.items[0]!._registry.from, before.built.history.snapshot.ref);
        const rows = new Map(now.built.document.vaults.map((r) => [r.vault_slug, JSON.stringify(r)]));
        for (const item of now.built.feed.items) {
          for (const row of item._registry.vaults.upsert) assert.is(JSON.stringify(row), rows.get(row.vault_slug));
        }
        for (const item of carried) {
          const was = older.get(item.id)!;
          assert.equal(
            [item._registry.from, item._registry.to, item._registry.class, item.date_published],
            [was._registry.from, was._registry.to, was._registry.class, was.date_published],
          );
          for (const list of ["add", "remove"] as const) {
            const oldEdges = new Set(was._registry.edges[list].map((e) => JSON.stringify(e)));
            for (const e of item._registry.edges[list]) assert.ok(oldEdges.has(JSON.stringify(e)));
          }
          assert.equal(item._registry.vaults.remove, was._registry.vaults.remove);
          assert.equal(item._registry.edges.remove_touching, was._registry.edges.remove_touching);
        }
      }
    }),
    runs,
  );
});

test("bounds: the window and the caps hold, and resync exactly when a new item's lists would pass the cap", async () => {
  await fc.assert(
    fc.asyncProperty(
      sequence,
      fc.record({
        changeBytes: fc.integer({ min: 400, max: 6000 }),
        minItems: fc.integer({ min: 1, max: 3 }),
        maxItems: fc.integer({ min: 1, max: 5 }),
        feedBytes: fc.integer({ min: 2000, max: 30000 }),
        windowDays: fc.integer({ min: 1, max: 60 }),
      }),
      async (seq, limits) => {
        const builds = await buildAll(seq, limits);
        for (let n = 0; n < builds.length; n++) {
          const { built, builtAt } = builds[n]!;
          const items = built.feed.items;
          assert.ok(items.length >= 1 && items.length <= limits.maxItems, "at most maxItems, at least the newest");
          assert.ok(
            items.length === 1 || built.feedBytes.byteLength <= limits.feedBytes,
            "at most feedBytes, unless only the newest is left",
          );
          for (const item of items) {
            if (!item._registry.resync) {
              assert.ok(
                changeBytes(item._registry) <= limits.changeBytes,
                "no listed item passes the cap",
              );
            }
          }
          if (n > 0) {
            const previous = builds[n - 1]!.built;
            const raw = {
              ...items[0]!._registry,
              resync: false,
              ...diffData(previous.history.snapshot, built.document),
            };
            assert.is(
              items[0]!._registry.resync,
              changeBytes(raw) > limits.changeBytes,
              "resync exactly when the new item's lists pass the cap",
            );
          }
          // The window: the feed is the newest items of those this build chose from (each as its privacy
          // rewrite left it), and the first one left out is old and beyond the newest minItems, or would
          // have passed a cap: one item more than maxItems, or a serialized feed over feedBytes.
          const chosen = unwindowedItems(built, n > 0 ? builds[n - 1]!.built : null, limits);
          assert.equal(items, chosen.slice(0, items.length), "the feed keeps the newest items, oldest dropped first");
          const cutoff = Date.parse(builtAt) - limits.windowDays * 86_400_000;
          const next = chosen[items.length];
          if (next !== undefined) {
            const old = items.length >= limits.minItems && Date.parse(next.date_published) < cutoff;
            const capped = items.length === limits.maxItems ||
              serializeFeed({ ...built.feed, items: chosen.slice(0, items.length + 1) }).byteLength > limits.feedBytes;
            assert.ok(old || capped, `item ${next.id} dropped inside the window`);
          }
        }
      },
    ),
    runs,
  );
});

test.run();
