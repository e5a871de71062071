/**
 * The laws of the change feeds (docs/document.md, "Change feeds"), as fast-check properties over
 * generated sequences of sources built one after another, each with the previous as `--previous`:
 * replay, privacy, stability and bounds.
 */
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { diffData } from "../feed/change.ts";
import { changeBytes, FEED_LIMITS, type FeedLimits, feedOf, serializeFeed } from "../feed/feed.ts";
import { catchUp, historyProblems } from "../feed/history.ts";
import { fcParams, SECRET } from "./arbitraries.ts";
import { applyEdit, buildStep, type Built, marked, sequence, timeAt, unwindowedItems } from "./feed-history.ts";
import { PLACE } from "./feed-history.ts";

type JsonObject = Record<string, unknown>;
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const runs = { ...fcParams, numRuns: Math.max(1, Math.floor(fcParams.numRuns / 3)) };

/** Builds a whole sequence: each build's outputs, the forbidden strings as of it, and its sources. */
async function buildAll(
  seq: { first: JsonObject; edits: readonly (readonly [string, number, number])[]; gaps: readonly number[] },
  limits: FeedLimits = FEED_LIMITS,
) {
  const forbidden = new Set<string>();
  let source = marked(seq.first);
  let hours = 0;
  const builds: { built: Built; forbidden: string[]; builtAt: string; equalData: boolean }[] = [];
  let previous: Built | null = null;
  for (let i = 0; i <= seq.edits.length; i++) {
    if (i > 0) source = applyEdit(source, seq.edits[i - 1] as never, forbidden);
    hours += seq.gaps[i % seq.gaps.length] as number;
    const builtAt = timeAt(hours);
    const built: Built = await buildStep(source, builtAt, previous, limits);
    const equalData = previous !== null &&
      JSON.stringify([previous.document.vaults, previous.document.edges]) ===
        JSON.stringify([built.document.vaults, built.document.edges]);
    builds.push({ built, forbidden: [...forbidden], builtAt, equalData });
    previous = built;
  }
  return builds;
}

/** `list` in an order fixed by `seed` (a Fisher-Yates shuffle driven by a linear congruential generator). */
function shuffled<T>(list: readonly T[], seed: number): T[] {
  const out = [...list];
  let state = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

test("replay: from every document in the window (and from nothing while the feed starts at the first snapshot), the newer items, in any order, give the current vaults and edges exactly; older than the window, or a resync on the way, asks for a refetch", async () => {
  await fc.assert(
    fc.asyncProperty(sequence, fc.integer(), async (seq, seed) => {
      const builds = await buildAll(seq);
      for (const [n, { built }] of builds.entries()) {
        const feed = built.feed;
        const oldest = feed.items[feed.items.length - 1]!._registry.from;
        assert.equal(
          historyProblems(PLACE, built.history.feed, built.history.snapshot),
          [],
          "a build's own feed is the history of its document",
        );
        const current = { vaults: built.document.vaults, edges: built.document.edges };
        const changes = shuffled(feed.items.map((item) => item._registry), seed);
        const expected = (builtAt: string | null) => {
          if (oldest !== null && (builtAt === null || builtAt < oldest.built_at)) return { refetch: "window" };
          return feed.items.some((i) => (builtAt === null || i._registry.to.built_at > builtAt) && i._registry.resync)
            ? { refetch: "resync" }
            : current;
        };
        for (const { built: held, builtAt } of builds.slice(0, n + 1)) {
          assert.equal(
            catchUp({ vaults: held.document.vaults, edges: held.document.edges }, builtAt, changes),
            expected(builtAt),
            `a copy built at ${builtAt}`,
          );
        }
        assert.equal(catchUp({ vaults: [], edges: [] }, null, changes), expected(null), "from nothing");
      }
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

test("stability: an item's id, to, from, class and title never change in later feeds; its lists change only by the privacy rule; an equal rebuild adds nothing", async () => {
  await fc.assert(
    fc.asyncProperty(sequence, async (seq) => {
      const builds = await buildAll(seq);
      for (let n = 1; n < builds.length; n++) {
        const [before, now] = [builds[n - 1]!, builds[n]!];
        const older = new Map(before.built.feed.items.map((i) => [i.id, i]));
        const ids = now.built.feed.items.map((i) => i.id);
        assert.is(new Set(ids).size, ids.length, "ids are unique");
        const carried = now.built.feed.items.filter((i) => older.has(i.id));
        // Only the newest item may be new, and only when the data changed.
        assert.is(now.built.feed.items.length - carried.length, now.equalData ? 0 : 1);
        for (const item of carried) {
          const was = older.get(item.id)!;
          assert.equal(
            [item._registry.from, item._registry.to, item._registry.class, item.title, item.date_published],
            [was._registry.from, was._registry.to, was._registry.class, was.title, was.date_published],
          );
          // The lists are a subset of what they were, except rows replaced by a vault's current minimal row.
          const minimal = new Set(now.built.document.vaults.filter((r) => "listing" in r).map((r) => r.vault_slug));
          const oldRows = new Set(was._registry.vaults.upsert.map((r) => JSON.stringify(r)));
          for (const row of item._registry.vaults.upsert) {
            assert.ok(
              oldRows.has(JSON.stringify(row)) || minimal.has(row.vault_slug),
              "a carried row is unchanged or the current minimal row",
            );
          }
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
          const { built, builtAt, equalData } = builds[n]!;
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
          if (n > 0 && !equalData) {
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
              serializeFeed(feedOf(PLACE, chosen.slice(0, items.length + 1))).byteLength > limits.feedBytes;
            assert.ok(old || capped, `item ${next.id} dropped inside the window`);
          }
        }
      },
    ),
    runs,
  );
});

test.run();
