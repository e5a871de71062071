/**
 * Reading history: how a consumer catches a copy up from a feed (the one catch-up rule, which
 * `verify` uses too), and how a build checks that the previous build's feed is one (its items
 * replay to its own document). Web standards only.
 */
import { hasRowKeys } from "../contract/document.ts";
import {
  applyChanges,
  compareCodeUnits,
  type EdgeLike,
  type RegistryChange,
  type RegistryData,
  type RowLike,
  sameData,
} from "./change.ts";
import { type ChangeFeed, type FeedPlace, itemId, type Snapshot } from "./feed.ts";

/** Why a held copy cannot be caught up from a feed: an item on the way says `resync`, or the copy is older than the window. */
export type Refetch = { readonly refetch: "resync" | "window" };

/**
 * The catch-up rule (docs/document.md, "Change feeds"): catches `held`, a document built at
 * `builtAt` (null: no document yet), up with `changes`, the `_registry` of a feed's items in any
 * order. Applies, oldest first, every change whose `to.built_at` is later than `builtAt` (vaults:
 * `remove`, then `upsert` by slug; edges: `remove_touching`, `remove`, `add`) and returns the vaults
 * and edges in the document's order. `built_at` values compare as the RFC 3339 UTC text a build
 * writes.
 *
 * Returns `{ refetch: "window" }` when `held` is older than the window (built before the oldest
 * change's `from`, or null while that change has a `from`), and `{ refetch: "resync" }` when a
 * change to apply says `resync`: then the consumer refetches the document instead.
 *
 * @example
 * ```ts
 * import type { ChangeFeed } from "./feed.ts";
 * type Copy = { built_at: string; vaults: { vault_slug: string }[]; edges: { source: string; target: string; type: string }[] };
 * function caughtUp(copy: Copy, feed: ChangeFeed) {
 *   const next = catchUp(copy, copy.built_at, feed.items.map((item) => item._registry));
 *   return "refetch" in next ? undefined : next;
 * }
 * ```
 */
export function catchUp<R extends RowLike, E extends EdgeLike>(
  held: RegistryData<R, E>,
  builtAt: string | null,
  changes: readonly RegistryChange<R, E>[],
): RegistryData<R, E> | Refetch {
  const ordered = [...changes].sort((a, b) => compareCodeUnits(a.to.built_at, b.to.built_at));
  const from = ordered[0]?.from ?? null;
  if (from !== null && (builtAt === null || builtAt < from.built_at)) return { refetch: "window" };
  const newer = builtAt === null ? ordered : ordered.filter((change) => change.to.built_at > builtAt);
  if (newer.some((change) => change.resync)) return { refetch: "resync" };
  return applyChanges(held, newer);
}

/**
 * Why `feed` is not the history of `snapshot` (empty when it is): each item's id, date and order;
 * its newest item not after the document (and naming its ETag when built with it); and replay:
 * from nothing to the document when the feed starts at the first snapshot, else every item since
 * the last resync applied to the document itself changes nothing (each row, edge and removal the
 * items name agrees with the document). Messages name items by index, never a value.
 */
export function historyProblems(place: FeedPlace, feed: ChangeFeed, snapshot: Snapshot): string[] {
  const problems: string[] = [];
  feed.items.forEach((item, i) => {
    const { from, to } = item._registry;
    if (item.id !== itemId(place, to)) problems.push(`items[${i}].id: expected the feed URL and its to.built_at`);
    if (item.date_published !== to.built_at) problems.push(`items[${i}].date_published: expected its to.built_at`);
    if (from !== null && from.built_at >= to.built_at) {
      problems.push(`items[${i}]._registry.from.built_at: expected earlier than its to.built_at`);
    }
    const older = feed.items[i + 1];
    if (older !== undefined && (from === null || from.built_at < older._registry.to.built_at)) {
      problems.push(
        `items[${i}]._registry.from: expected at or after the next item's to.built_at (items are newest first, each from a later build)`,
      );
    }
    if (from === null && older !== undefined) problems.push(`items[${i}]._registry.from: null only on the oldest item`);
    // A build carries titles on as they are: only what titleOf writes, so no planted text rides along.
    if (!titlePattern(item._registry.class).test(item.title)) {
      problems.push(
        `items[${i}].title: expected "${item._registry.class}: " and rule ids with their counts, as a build writes it`,
      );
    }
  });
  const newest = feed.items[0];
  if (newest === undefined) return [...problems, "items: expected at least one item"];
  if (newest._registry.to.built_at > snapshot.ref.built_at) {
    problems.push("items[0]._registry.to.built_at: later than the document's built_at");
  }
  if (newest._registry.to.built_at === snapshot.ref.built_at && newest._registry.to.etag !== snapshot.ref.etag) {
    problems.push("items[0]._registry.to.etag: not the ETag of the document built then");
  }
  if (problems.length > 0) return problems;
  const lastResync = feed.items.findIndex((item) => item._registry.resync);
  const since = lastResync === -1 ? feed.items : feed.items.slice(0, lastResync);
  const oldest = feed.items[feed.items.length - 1] as (typeof feed.items)[number];
  const start: RegistryData = lastResync === -1 && oldest._registry.from === null
    ? { vaults: [], edges: [] }
    : snapshot;
  // Nothing to replay onto the document itself changes nothing.
  if (start === snapshot && since.length === 0) return problems;
  const data = applyChanges(start, [...since].reverse().map((item) => item._registry));
  if (!sameData(data, snapshot)) {
    problems.push(
      start === snapshot
        ? "items: replayed onto the document they lead to, they change it: the feed is not this document's history"
        : "items: replayed from the first snapshot, they do not give the document's vaults and edges",
    );
  }
  return problems;
}

/**
 * Rows of `feed` that are not exactly a full or a minimal row (a key more, fewer, or out of order),
 * by place: a build carries the previous feed's rows on, so it takes no key it would not write.
 */
export function rowShapeProblems(feed: ChangeFeed): string[] {
  const problems: string[] = [];
  feed.items.forEach((item, i) =>
    item._registry.vaults.upsert.forEach((row, j) => {
      if (!hasRowKeys(row)) {
        problems.push(
          `items[${i}]._registry.vaults.upsert[${j}]: expected exactly the keys of a full or a minimal row, in order`,
        );
      }
    })
  );
  return problems;
}

/** A title as `titleOf` writes it for an item of class `cls`: the class, then counted rule ids. */
function titlePattern(cls: string): RegExp {
  const rule = "\\d+ [a-z][a-z0-9_.-]*";
  return new RegExp(`^${cls}: (?:no rule applied|${rule}(?:, ${rule})*)$`);
}
