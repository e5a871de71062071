/**
 * The change feed of one version (docs/document.md, "Change feeds"), as a JSON Feed 1.1 value: the
 * previous build's feed, this build's document and the class of the change in; this build's feed
 * out, with a new item when the vaults or edges changed, every item rewritten by the privacy rule,
 * and the window applied. Web standards only.
 */
import type { Edge, Row } from "../contract/document.ts";
import {
  type BuildRef,
  type ChangeClass,
  diffData,
  isEmptyChange,
  type RegistryChange,
  type RegistryData,
} from "./change.ts";

/** The JSON Feed version this feed follows. */
export const JSON_FEED_VERSION = "https://jsonfeed.org/version/1.1";

/** The media types of the two forms. */
export const JSON_FEED_MEDIA_TYPE = "application/feed+json";
export const ATOM_MEDIA_TYPE = "application/atom+xml";

/** The bounds of a feed (docs/document.md, "Change feeds"). */
export const FEED_LIMITS = {
  /** An item whose `_registry`, serialized compactly, would pass this many bytes says `resync` instead. */
  changeBytes: 1024 * 1024,
  /** Items of the last this many days are kept... */
  windowDays: 90,
  /** ...and at least this many of the newest, */
  minItems: 50,
  /** but never more than this many, */
  maxItems: 1000,
  /** nor a JSON feed of more than this many bytes. */
  feedBytes: 4 * 1024 * 1024,
} as const;

export type FeedLimits = { readonly [K in keyof typeof FEED_LIMITS]: number };

/** Where a version's feed is served: absolute URLs. */
export interface FeedPlace {
  readonly version: number;
  /** The versioned document's URL. */
  readonly documentUrl: string;
  /** The JSON feed's URL: item ids are made from it. */
  readonly feedUrl: string;
  /** The Atom feed's URL. */
  readonly atomUrl: string;
}

/** The place of version `version`'s feeds under `baseUrl`: its document's path and the feeds' paths. */
export function feedPlace(
  version: number,
  baseUrl: string,
  documentPath: string,
  feeds: { readonly json: string; readonly atom: string },
): FeedPlace {
  return { version, documentUrl: baseUrl + documentPath, feedUrl: baseUrl + feeds.json, atomUrl: baseUrl + feeds.atom };
}

/** One item of the feed. Key order is the serialized order. */
export interface FeedItem {
  readonly id: string;
  readonly url: string;
  readonly title: string;
  readonly content_text: string;
  readonly date_published: string;
  readonly _registry: RegistryChange;
}

/** A version's change feed (JSON Feed 1.1), items newest first. Key order is the serialized order. */
export interface ChangeFeed {
  readonly version: typeof JSON_FEED_VERSION;
  readonly title: string;
  readonly home_page_url: string;
  readonly feed_url: string;
  readonly description: string;
  readonly language: "en";
  readonly items: readonly FeedItem[];
}

/** The class of a change and the `registry diff` rule ids behind it, with how often each applied. */
export interface Classification {
  readonly class: ChangeClass;
  readonly rules: readonly (readonly [rule: string, count: number])[];
}

/** A built document as the feed sees it: which build it is, and its vaults and edges. */
export interface Snapshot extends RegistryData {
  readonly ref: BuildRef;
}

/** What the previous build left: its document and its feed (checked, see `history.ts`). */
export interface History {
  readonly snapshot: Snapshot;
  readonly feed: ChangeFeed;
}

/**
 * The class of the first snapshot: every row and edge is new, which `registry diff` calls
 * `vault.added` and `edge.added`, both `data`.
 */
export function firstSnapshotClass(data: RegistryData): Classification {
  const rules: [string, number][] = [["vault.added", data.vaults.length], ["edge.added", data.edges.length]];
  return { class: "data", rules: rules.filter(([, n]) => n > 0) };
}

/**
 * This build's feed. Without `previous`, one item: the first snapshot (`from: null`). With it, the
 * previous feed's items and, when the vaults or edges changed, a new one whose class `classify`
 * gives (called only then). Every item is rewritten by the privacy rule against `current`: a row of
 * a vault `current` withholds becomes its current minimal row, a row of a vault it no longer lists
 * leaves `upsert`, and an edge touching either leaves `add` and `remove`. Then the window applies.
 *
 * @example
 * ```ts
 * function firstFeed(place: FeedPlace, current: Snapshot): ChangeFeed {
 *   // No previous build: one snapshot item, whose class classify is never asked for.
 *   return nextFeed(place, current, null, () => ({ class: "data", rules: [] }));
 * }
 * ```
 */
export function nextFeed(
  place: FeedPlace,
  current: Snapshot,
  previous: History | null,
  classify: () => Classification,
  limits: FeedLimits = FEED_LIMITS,
): ChangeFeed {
  const carried = previous?.feed.items ?? [];
  const raw = diffData(previous?.snapshot ?? null, current);
  const items: FeedItem[] = [];
  if (previous === null || !isEmptyChange(raw)) {
    const classification = previous === null ? firstSnapshotClass(current) : classify();
    const change: RegistryChange = {
      from: previous?.snapshot.ref ?? null,
      to: current.ref,
      class: classification.class,
      resync: false,
      ...raw,
    };
    items.push(itemOf(place, titleOf(classification), capped(change, limits)));
  }
  for (const item of carried) items.push(itemOf(place, item.title, capped(withheld(item._registry, current), limits)));
  return feedOf(place, windowed(place, items, current.ref.built_at, limits));
}

/** The feed value around `items` (newest first). */
export function feedOf(place: FeedPlace, items: readonly FeedItem[]): ChangeFeed {
  return {
    version: JSON_FEED_VERSION,
    title: `Registry changes, v${place.version}`,
    home_page_url: place.documentUrl,
    feed_url: place.feedUrl,
    description:
      `What changed between successive builds of ${place.documentUrl}, newest first. Each item's _registry says how to bring a copy ` +
      "of the older document up to date: apply, oldest first, every item built after your copy (vaults: remove, then upsert by slug; " +
      "edges: remove_touching, remove, add). Refetch the document when an item says resync, or when your copy is older than the oldest item's from.",
    language: "en",
    items,
  };
}

/** An item's id: the JSON feed's URL and the `built_at` of the document it leads to, unique and stable. */
export function itemId(place: FeedPlace, to: BuildRef): string {
  return `${place.feedUrl}#${to.built_at}`;
}

function itemOf(place: FeedPlace, title: string, change: RegistryChange): FeedItem {
  return {
    id: itemId(place, change.to),
    url: place.documentUrl,
    title,
    content_text: contentText(title, change),
    date_published: change.to.built_at,
    _registry: change,
  };
}

/** The one-line summary: the class, then each `registry diff` rule id with its count. */
export function titleOf(classification: Classification): string {
  const rules = classification.rules.map(([rule, n]) => `${n} ${rule}`).join(", ");
  return `${classification.class}: ${rules === "" ? "no rule applied" : rules}`;
}

function contentText(title: string, change: RegistryChange): string {
  const from = change.from === null ? "nothing (the first snapshot)" : `the build of ${change.from.built_at}`;
  if (change.resync) {
    return `${title}. From ${from} to the build of ${change.to.built_at}: too large to list (over 1 MiB); refetch the document.`;
  }
  const { vaults, edges } = change;
  return (
    `${title}. From ${from} to the build of ${change.to.built_at}: ${vaults.upsert.length} vaults to upsert, ${vaults.remove.length} to remove; ` +
    `${edges.add.length} edges to add, ${edges.remove.length} to remove, and those of ${edges.remove_touching.length} vaults.`
  );
}

/**
 * The privacy rule: `change` with every row of a vault `current` withholds replaced by its current
 * minimal row, every row of a vault `current` does not list dropped, and every edge touching
 * either dropped from `add` and `remove`.
 */
export function withheld(change: RegistryChange, current: RegistryData): RegistryChange {
  if (change.resync) return change;
  const rows = new Map(current.vaults.map((row) => [row.vault_slug, row]));
  const hidden = (slug: string) => {
    const now = rows.get(slug);
    return now === undefined || "listing" in now;
  };
  const upsert = change.vaults.upsert.flatMap((row): Row[] => {
    const now = rows.get(row.vault_slug);
    return now === undefined ? [] : "listing" in now ? [now] : [row];
  });
  const shown = (e: Edge) => !hidden(e.source) && !hidden(e.target);
  return {
    ...change,
    vaults: { upsert, remove: change.vaults.remove },
    edges: {
      add: change.edges.add.filter(shown),
      remove: change.edges.remove.filter(shown),
      remove_touching: change.edges.remove_touching,
    },
  };
}

/** `change`, or, when its lists would pass the cap serialized compactly, the same change saying `resync`. */
function capped(change: RegistryChange, limits: FeedLimits): RegistryChange {
  if (change.resync || changeBytes(change) <= limits.changeBytes) return change;
  return {
    ...change,
    resync: true,
    vaults: { upsert: [], remove: [] },
    edges: { add: [], remove: [], remove_touching: [] },
  };
}

/**
 * The UTF-8 bytes of a change serialized compactly. Past 4 MiB of text it returns the text's
 * length instead, a lower bound that is already over any cap, without encoding it.
 */
export function changeBytes(change: RegistryChange): number {
  const text = JSON.stringify(change);
  // A UTF-16 code unit is at least one byte: past the cap in units is past it in bytes, without encoding.
  if (text.length > FEED_LIMITS.changeBytes * 4) return text.length;
  return new TextEncoder().encode(text).byteLength;
}

/**
 * The window: the items of the last 90 days and at least the newest 50, then at most 1,000 items
 * and a JSON feed of at most 4 MiB, dropping the oldest first. The newest item always stays.
 */
function windowed(place: FeedPlace, items: readonly FeedItem[], builtAt: string, limits: FeedLimits): FeedItem[] {
  const cutoff = Date.parse(builtAt) - limits.windowDays * 86_400_000;
  const kept = items.filter((item, i) => i < limits.minItems || Date.parse(item.date_published) >= cutoff).slice(
    0,
    limits.maxItems,
  );
  const encoder = new TextEncoder();
  const sizes = kept.map((item) => encoder.encode(itemText(item)).byteLength);
  const head = encoder.encode(JSON.stringify(feedOf(place, []), null, 2)).byteLength;
  // The feed's text is its head with `[]` replaced by `[\n    item,\n    item\n  ]`, and a newline.
  let total = head - 2 + 2 + 4 + 4 + 1 + sizes.reduce((a, b) => a + b, 0) + 6 * Math.max(0, kept.length - 1);
  while (kept.length > 1 && total > limits.feedBytes) {
    kept.pop();
    total -= (sizes.pop() as number) + 6;
  }
  return kept;
}

/** An item as it is written inside the feed, at its indentation. */
function itemText(item: FeedItem): string {
  return JSON.stringify(item, null, 2).replaceAll("\n", "\n    ");
}

/**
 * The exact bytes of a JSON feed: UTF-8, two-space indentation, keys in their fixed order, one
 * trailing newline, as the document is written.
 */
export function serializeFeed(feed: ChangeFeed): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`${JSON.stringify(feed, null, 2)}\n`);
}
