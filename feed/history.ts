/**
 * Reading history: how a consumer catches a copy up from a feed, and how a build checks that the
 * previous build's feed is one (its items replay to its own document). Web standards only.
 */
import { applyChanges, sameData, type RegistryData } from "./change.ts";
import { itemId, type ChangeFeed, type FeedPlace, type Snapshot } from "./feed.ts";

/** A copy a consumer holds: its document's `built_at`, vaults and edges. */
export interface HeldCopy extends RegistryData {
  readonly built_at: string;
}

/**
 * Catches `held` up by `feed`: applies, oldest first, every item whose `to.built_at` is later than
 * the copy's. Returns the new vaults and edges and the `built_at` they are as of, or `resync` with
 * the reason when the copy is older than the window or an item on the way says resync: then the
 * consumer refetches the document.
 */
export function catchUp(held: HeldCopy, feed: ChangeFeed): { ok: HeldCopy } | { resync: string } {
  const items = [...feed.items].reverse();
  const oldest = items[0];
  if (oldest === undefined) return { ok: held };
  const newer = items.filter((item) => item._registry.to.built_at > held.built_at);
  if (newer.length === 0) return { ok: held };
  if (oldest._registry.from !== null && held.built_at < oldest._registry.from.built_at) {
    return { resync: `the copy, built at ${held.built_at}, is older than the feed's window (from ${oldest._registry.from.built_at})` };
  }
  const resync = newer.find((item) => item._registry.resync);
  if (resync !== undefined) return { resync: `the change to ${resync._registry.to.built_at} is too large to list` };
  const data = applyChanges(held, newer.map((item) => item._registry));
  return { ok: { built_at: (newer[newer.length - 1] as (typeof newer)[number]).date_published, vaults: data.vaults, edges: data.edges } };
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
    if (from !== null && from.built_at >= to.built_at) problems.push(`items[${i}]._registry.from.built_at: expected earlier than its to.built_at`);
    const older = feed.items[i + 1];
    if (older !== undefined && (from === null || from.built_at < older._registry.to.built_at)) {
      problems.push(`items[${i}]._registry.from: expected at or after the next item's to.built_at (items are newest first, each from a later build)`);
    }
    if (from === null && older !== undefined) problems.push(`items[${i}]._registry.from: null only on the oldest item`);
  });
  const newest = feed.items[0];
  if (newest === undefined) return [...problems, "items: expected at least one item"];
  if (newest._registry.to.built_at > snapshot.ref.built_at) problems.push("items[0]._registry.to.built_at: later than the document's built_at");
  if (newest._registry.to.built_at === snapshot.ref.built_at && newest._registry.to.etag !== snapshot.ref.etag) {
    problems.push("items[0]._registry.to.etag: not the ETag of the document built then");
  }
  if (problems.length > 0) return problems;
  const lastResync = feed.items.findIndex((item) => item._registry.resync);
  const since = lastResync === -1 ? feed.items : feed.items.slice(0, lastResync);
  const oldest = feed.items[feed.items.length - 1] as (typeof feed.items)[number];
  const start: RegistryData = lastResync === -1 && oldest._registry.from === null ? { vaults: [], edges: [] } : snapshot;
  // Nothing to replay onto the document itself changes nothing.
  if (start === snapshot && since.length === 0) return problems;
  const data = applyChanges(start, [...since].reverse().map((item) => item._registry));
  if (!sameData(data, snapshot)) {
    problems.push(start === snapshot ? "items: replayed onto the document they lead to, they change it: the feed is not this document's history" : "items: replayed from the first snapshot, they do not give the document's vaults and edges");
  }
  return problems;
}

const FULL_ROW_KEYS = "vault_slug,display_name,class,class_label,status,status_label,tier,tier_label,tier_meaning,persona,note,url,markdown_url,last_synced,tagline";
const MINIMAL_ROW_KEYS = "vault_slug,display_name,class,class_label,status,status_label,persona,listing,listing_note";

/**
 * Rows of `feed` that are not exactly a full or a minimal row (a key more, fewer, or out of order),
 * by place: a build carries the previous feed's rows on, so it takes no key it would not write.
 */
export function rowShapeProblems(feed: ChangeFeed): string[] {
  const problems: string[] = [];
  feed.items.forEach((item, i) =>
    item._registry.vaults.upsert.forEach((row, j) => {
      const keys = Object.keys(row).join(",");
      if (keys !== FULL_ROW_KEYS && keys !== MINIMAL_ROW_KEYS) problems.push(`items[${i}]._registry.vaults.upsert[${j}]: expected exactly the keys of a full or a minimal row, in order`);
    }),
  );
  return problems;
}
