/** Reading history: the catch-up rule (consumer kit, `verify`) and the check that a feed is a document's history. */
import {
  applyChanges,
  type BuildRef,
  type EdgeLike,
  type Envelope,
  type RegistryChange,
  type RegistryData,
  type RowLike,
  sameData,
  sameRef,
} from "./change.ts";
import { FEED_LIMITS, type FeedPlace, itemId, listsAny, type Snapshot } from "./feed.ts";

/**
 * What the catch-up rule says of a copy: it is `current`; `apply` gives the current document's vaults, edges and
 * envelope, and the build they are (`to`); `wait` (the feed read is older than the copy: ask again later); or `refetch`
 * the document, because no item starts at the copy (`unknown`: older than the window, from a restarted history or a
 * fork), an item on the way says `resync`, or the items on the way do not form a chain (`broken`).
 */
export type CatchUp<R extends RowLike, E extends EdgeLike> =
  | { readonly kind: "current" }
  | { readonly kind: "apply"; readonly to: BuildRef; readonly data: RegistryData<R, E>; readonly envelope: Envelope }
  | { readonly kind: "wait" }
  | { readonly kind: "refetch"; readonly why: "unknown" | "resync" | "broken" };

/**
 * The catch-up rule (docs/document.md, "Change feeds"; outcomes: `CatchUp`): `held` is a copy of the document `ref`
 * names (its `built_at` and the identity ETag of its bytes), `changes` the `_registry` of a feed's items, newest first.
 *
 * @example
 * ```ts
 * import type { RegistryData } from "./change.ts";
 * import type { ChangeFeed } from "./feed.ts";
 * function caughtUp(copy: RegistryData, builtAt: string, etag: string, feed: ChangeFeed) {
 *   const next = catchUp(copy, { built_at: builtAt, etag }, feed.items.map((item) => item._registry));
 *   return next.kind === "apply" ? next.data : undefined;
 * }
 * ```
 */
export function catchUp<R extends RowLike, E extends EdgeLike>(
  held: RegistryData<R, E>,
  ref: BuildRef,
  changes: readonly RegistryChange<R, E>[],
): CatchUp<R, E> {
  const newest = changes[0];
  // A feed holds at most maxItems: more is no feed a build wrote, and would cost without bound.
  if (newest === undefined || changes.length > FEED_LIMITS.maxItems) return { kind: "refetch", why: "broken" };
  if (sameRef(newest.to, ref)) return { kind: "current" };
  if (ref.built_at > newest.to.built_at) return { kind: "wait" };
  const start = changes.findIndex((change) => sameRef(change.from, ref));
  if (start === -1) return { kind: "refetch", why: "unknown" };
  const path = changes.slice(0, start + 1);
  if (path.some((change, i) => i < start && !sameRef(change.from, (changes[i + 1] as RegistryChange<R, E>).to))) {
    return { kind: "refetch", why: "broken" };
  }
  if (path.some((change) => change.resync)) return { kind: "refetch", why: "resync" };
  if (newest.envelope === undefined) return { kind: "refetch", why: "broken" };
  return { kind: "apply", to: newest.to, data: applyChanges(held, path.reverse()), envelope: newest.envelope };
}

/**
 * Why the items of a feed are not a chain (empty when they are), by place: each item's id and date from its `to`,
 * `from` earlier than `to`, each `from` the next older item's `to`, `from: null` only on the oldest, and the envelope
 * on the newest only. Messages name items by index, never a value.
 */
export function chainProblems(
  place: FeedPlace,
  items: readonly { id: string; date_published: string; _registry: RegistryChange<RowLike, EdgeLike> }[],
): string[] {
  const problems: string[] = [];
  items.forEach((item, i) => {
    const { from, to, envelope } = item._registry;
    const older = items[i + 1];
    if (item.id !== itemId(place, to)) problems.push(`items[${i}].id: expected the feed URL, its to.built_at and ETag`);
    if (item.date_published !== to.built_at) problems.push(`items[${i}].date_published: expected its to.built_at`);
    if (from !== null && !(from.built_at < to.built_at)) {
      problems.push(`items[${i}]._registry.from.built_at: expected earlier than its to.built_at`);
    }
    if (older !== undefined && !sameRef(from, older._registry.to)) {
      problems.push(`items[${i}]._registry.from: expected the next item's to (items form a chain, newest first)`);
    }
    if (item._registry.resync && listsAny(item._registry)) {
      problems.push(`items[${i}]._registry: says resync but lists changes`);
    }
    if ((envelope !== undefined) !== (i === 0)) {
      problems.push(`items[${i}]._registry.envelope: expected on the newest item only`);
    }
  });
  return items.length === 0 ? ["items: expected at least one item"] : problems;
}

/**
 * Why `items` (a feed's, newest first) are not the history of `snapshot` (empty when they are): they form a chain, the
 * newest leads to this very document and carries its envelope, and every item since the last resync, applied to the
 * document itself, changes nothing (each row, edge and removal the items name agrees with the document), so no corrupt
 * or planted item is carried on.
 */
export function historyProblems(
  place: FeedPlace,
  items: readonly { id: string; date_published: string; _registry: RegistryChange }[],
  snapshot: Snapshot,
): string[] {
  const problems = chainProblems(place, items);
  if (problems.length > 0) return problems;
  // A chain has at least one item.
  const newest = (items[0] as (typeof items)[number])._registry;
  if (!sameRef(newest.to, snapshot.ref)) return ["items[0]._registry.to: not this document (its built_at and ETag)"];
  if (JSON.stringify(newest.envelope) !== JSON.stringify(snapshot.envelope)) {
    return ["items[0]._registry.envelope: not this document's envelope"];
  }
  const lastResync = items.findIndex((item) => item._registry.resync);
  // An item that lists nothing (a snapshot, a rebuild's) changes nothing: with none left, no copy of 100k rows is made.
  const since = items.slice(0, lastResync === -1 ? items.length : lastResync).map((item) => item._registry).filter(
    listsAny,
  );
  if (!sameData(applyChanges(snapshot, since.reverse()), snapshot)) {
    return ["items: replayed onto the document they lead to, they change it: the feed is not this document's history"];
  }
  return [];
}
