/**
 * The change feed's catch-up rule (docs/deploying.md, "What verify checks"), as one pure function
 * over plain data: what a consumer holding an earlier document does with the feed's items. Web
 * standards only, so the build, the runtimes and `verify` can all use it.
 */

/** A build, as an item's `from` and `to` name it. */
export interface BuildStamp {
  readonly built_at: string;
  /** The identity ETag of that build's versioned document. */
  readonly etag: string;
}

/** What replay needs of an edge: its identity, (`source`, `target`, `type`). */
export interface EdgeLike {
  readonly source: string;
  readonly target: string;
  readonly type: string;
}

/** The `_registry` object of one feed item: the change from the document `from` to the document `to`. */
export interface ChangeSet<R extends { readonly vault_slug: string } = { readonly vault_slug: string }, E extends EdgeLike = EdgeLike> {
  readonly from: BuildStamp | null;
  readonly to: BuildStamp;
  readonly class: "data" | "additive" | "dangerous" | "breaking";
  /** True when the item was too large to carry its lists: a consumer refetches the document. */
  readonly resync: boolean;
  readonly vaults: { readonly upsert: readonly R[]; readonly remove: readonly string[] };
  readonly edges: { readonly add: readonly E[]; readonly remove: readonly E[]; readonly remove_touching: readonly string[] };
}

/** The part of a document that the feed carries. */
export interface Held<R, E> {
  readonly vaults: readonly R[];
  readonly edges: readonly E[];
}

/** Why a held copy cannot be caught up from the feed: an item on the way says `resync`, or the copy is older than the window. */
export type Refetch = { readonly refetch: "resync" | "window" };

/**
 * Catches `held`, a document built at `builtAt` (`null`: no document yet), up with `items` (in any
 * order): applies, oldest first, every item whose `to.built_at` is later than `builtAt`; for each,
 * vaults `remove` then `upsert` by slug, and edges `remove_touching`, `remove`, then `add`. The
 * result is sorted as a document sorts them (vaults by slug, edges by source, target, type, in
 * UTF-16 code units). `built_at` values are compared as the RFC 3339 UTC text a build writes.
 *
 * Returns `{ refetch: "window" }` when `held` is older than the window (built before the oldest
 * item's `from`, or `null` while that item has a `from`), and `{ refetch: "resync" }` when an item to
 * apply says `resync`: in both cases the consumer fetches the document instead.
 *
 * @example
 * const next = catchUp({ vaults: [], edges: [] }, null, feed.items.map((item) => item._registry));
 * if (!("refetch" in next)) copy = next;
 */
export function catchUp<R extends { readonly vault_slug: string }, E extends EdgeLike>(
  held: Held<R, E>,
  builtAt: string | null,
  items: readonly ChangeSet<R, E>[],
): Held<R, E> & { readonly vaults: R[]; readonly edges: E[] } | Refetch {
  const ordered = [...items].sort((a, b) => compare(a.to.built_at, b.to.built_at));
  const oldest = ordered[0];
  if (oldest !== undefined && oldest.from !== null && (builtAt === null || builtAt < oldest.from.built_at)) return { refetch: "window" };
  const newer = ordered.filter((item) => builtAt === null || item.to.built_at > builtAt);
  if (newer.some((item) => item.resync)) return { refetch: "resync" };
  const vaults = new Map(held.vaults.map((row) => [row.vault_slug, row]));
  const edges = new Map(held.edges.map((edge) => [edgeKey(edge), edge]));
  for (const { vaults: v, edges: e } of newer) {
    for (const slug of v.remove) vaults.delete(slug);
    for (const row of v.upsert) vaults.set(row.vault_slug, row);
    const touching = new Set(e.remove_touching);
    for (const [key, edge] of edges) if (touching.has(edge.source) || touching.has(edge.target)) edges.delete(key);
    for (const edge of e.remove) edges.delete(edgeKey(edge));
    for (const edge of e.add) edges.set(edgeKey(edge), edge);
  }
  return {
    vaults: [...vaults.values()].sort((a, b) => compare(a.vault_slug, b.vault_slug)),
    edges: [...edges.values()].sort((a, b) => compare(a.source, b.source) || compare(a.target, b.target) || compare(a.type, b.type)),
  };
}

function edgeKey(edge: EdgeLike): string {
  return JSON.stringify([edge.source, edge.target, edge.type]);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
