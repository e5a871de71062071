/** The change feed of one version as a JSON Feed 1.1 value (docs/document.md, "Change feeds"). */
import type { Edge, Row } from "../contract/document.ts";
import {
  type BuildRef,
  type ChangeClass,
  diffData,
  type EdgeLike,
  type Envelope,
  type RegistryChange,
  type RegistryData,
  type RowLike,
  sameRef,
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

/** Bounds shaped as `FEED_LIMITS`, the default: tests give others. */
export type FeedLimits = { readonly [K in keyof typeof FEED_LIMITS]: number };

/** Where a version's feed is served: absolute URLs. */
export interface FeedPlace {
  readonly version: number;
  readonly documentUrl: string;
  /** The JSON feed's URL: item ids are made from it. */
  readonly feedUrl: string;
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

/** A built document as the feed sees it: which build it is, its vaults and edges, and its envelope. */
export interface Snapshot extends RegistryData {
  readonly ref: BuildRef;
  readonly envelope: Envelope;
}

/** What the previous build left: its document and its feed (checked, see `history.ts`). */
export interface History {
  readonly snapshot: Snapshot;
  readonly feed: ChangeFeed;
}

/** A document's envelope: its top-level members other than `vaults` and `edges`, in its order. */
export function envelopeOf(document: object): Envelope {
  return Object.fromEntries(Object.entries(document).filter(([key]) => key !== "vaults" && key !== "edges"));
}

/**
 * This build's feed, a chain newest first. Without `previous`, one item: a snapshot (`from: null`) whose lists are
 * empty, since a copy never merges one (it refetches). With it, the previous feed's items and, unless `current` is the
 * previous document itself (a rebuild that changed nothing keeps its `built_at`), a new item from the previous document
 * to `current`, even with empty lists, whose class `classify` gives (called only then). Every item is rewritten against
 * `current` (`rewrite`: the privacy rule) and titled anew; the newest carries `current`'s envelope. Then the window
 * applies.
 *
 * @example
 * ```ts
 * function firstFeed(place: FeedPlace, current: Snapshot): ChangeFeed {
 *   // No previous build: one snapshot item, whose class classify is never asked for.
 *   return nextFeed(place, current, null, () => "data");
 * }
 * ```
 */
export function nextFeed(
  place: FeedPlace,
  current: Snapshot,
  previous: History | null,
  classify: () => ChangeClass,
  limits: FeedLimits = FEED_LIMITS,
): ChangeFeed {
  const changes: RegistryChange[] = [];
  if (previous === null) {
    changes.push({ from: null, to: current.ref, class: "data", resync: false, ...EMPTY_LISTS });
  } else if (!sameRef(previous.snapshot.ref, current.ref)) {
    changes.push({
      from: previous.snapshot.ref,
      to: current.ref,
      class: classify(),
      resync: false,
      ...diffData(previous.snapshot, current),
    });
  }
  for (const item of previous?.feed.items ?? []) changes.push(item._registry);
  const rows = rowsFor(changes, current.vaults);
  const items = changes.map((change, i) => {
    const rewritten = rewrite(change, rows, i === 0 ? current.envelope : undefined);
    return itemOf(place, capped(rewritten, limits));
  });
  return feedOf(place, windowed(place, items, current.ref.built_at, limits));
}

/** True when `change` lists a row, slug or edge: one that lists none changes no copy. */
export function listsAny(change: RegistryChange<RowLike, EdgeLike>): boolean {
  const { vaults, edges } = change;
  return vaults.upsert.length + vaults.remove.length + edges.add.length + edges.remove.length +
      edges.remove_touching.length > 0;
}

/**
 * The rows `rewrite` reads for `changes`, by slug: none unless a change lists something, since `rewrite` asks for a
 * row only of a listed one, and a feed of snapshots needs no map of 100k rows.
 */
export function rowsFor(changes: readonly RegistryChange[], vaults: readonly Row[]): ReadonlyMap<string, Row> {
  return new Map(changes.some(listsAny) ? vaults.map((row) => [row.vault_slug, row]) : []);
}

/** The feed value around `items` (newest first). */
function feedOf(place: FeedPlace, items: readonly FeedItem[]): ChangeFeed {
  return {
    version: JSON_FEED_VERSION,
    title: `Registry changes, v${place.version}`,
    home_page_url: place.documentUrl,
    feed_url: place.feedUrl,
    description:
      `What changed between successive builds of ${place.documentUrl}: a chain, newest first, each item's _registry.from ` +
      "the next older item's to. To catch up a copy built at B with identity ETag E (the first 32 hex digits of the SHA-256 " +
      "of its bytes, in double quotes): if the newest item's to is (B, E) it is current; if B is later than that, wait and ask again; " +
      "else apply, oldest first, the item whose from is (B, E) and every newer one (vaults: remove, then upsert by slug; edges: " +
      "remove_touching, remove, add), then take the newest item's envelope. Refetch the document when no item's from is (B, E) " +
      "or an item on the way says resync. A snapshot (from: null) is never merged into a copy.",
    language: "en",
    items,
  };
}

/** An item's id: the JSON feed's URL, its document's `built_at` and ETag's hex: unique across restarts. */
export function itemId(place: FeedPlace, to: BuildRef): string {
  return `${place.feedUrl}#${to.built_at}/${to.etag.replaceAll('"', "")}`;
}

function itemOf(place: FeedPlace, change: RegistryChange): FeedItem {
  return {
    id: itemId(place, change.to),
    url: place.documentUrl,
    title: titleOf(change),
    content_text: summaryOf(change),
    date_published: change.to.built_at,
    _registry: change,
  };
}

/** Characters XML 1.0 does not allow in a document, and lone surrogates. */
const NOT_XML =
  // deno-lint-ignore no-control-regex -- the control characters are what this matches
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with every character XML 1.0 cannot carry replaced by U+FFFD: what both feeds say. */
export function xmlSafe(text: string): string {
  return text.replace(NOT_XML, "\uFFFD");
}

/** How many vaults a title and a summary name before they count the rest, and how much of a name they show. */
const TITLE_NAMES = 3;
const SUMMARY_NAMES = 20;
const NAME_CHARACTERS = 60;

/** An item's title, a sentence about what it carries (docs/document.md, "Change feeds", shows one). */
function titleOf(change: RegistryChange): string {
  return xmlSafe(`${kindOf(change)}: ${carried(change, TITLE_NAMES)}.`);
}

/** An item's summary: what its title says, naming more vaults, and which builds it joins. */
function summaryOf(change: RegistryChange): string {
  if (change.from === null) {
    return `${
      titleOf(change)
    } The build of ${change.to.built_at}, a snapshot, which a copy never merges: fetch the document.`;
  }
  return xmlSafe(
    `${kindOf(change)}: ${
      carried(change, SUMMARY_NAMES)
    }. The build of ${change.to.built_at}, from the build of ${change.from.built_at}.`,
  );
}

function kindOf(change: RegistryChange): string {
  return change.from === null ? "Snapshot" : `${change.class.charAt(0).toUpperCase()}${change.class.slice(1)} change`;
}

/** What `change` carries, in words, naming up to `names` vaults. */
function carried(change: RegistryChange, names: number): string {
  if (change.from === null) return "a new history begins";
  if (change.resync) return "too large to list (over 1 MiB); refetch the document";
  const { vaults, edges } = change;
  const count = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
  const parts: string[] = [];
  if (vaults.upsert.length > 0) {
    const shown = vaults.upsert.slice(0, names).map((row) => {
      const name = Array.from(row.display_name);
      return name.length > NAME_CHARACTERS ? `${name.slice(0, NAME_CHARACTERS - 1).join("")}…` : row.display_name;
    });
    const rest = vaults.upsert.length - shown.length;
    parts.push(
      `updated ${shown.join(", ")}${rest > 0 ? ` and ${count(rest, "more vault")}` : ""}`,
    );
  }
  if (vaults.remove.length > 0) parts.push(`${count(vaults.remove.length, "vault")} removed`);
  if (edges.remove_touching.length > 0) {
    parts.push(`the edges of ${count(edges.remove_touching.length, "vault")} removed`);
  }
  if (edges.add.length > 0) parts.push(`${count(edges.add.length, "edge")} added`);
  if (edges.remove.length > 0) parts.push(`${count(edges.remove.length, "edge")} removed`);
  return parts.length === 0 ? "no vault or edge changed" : parts.join("; ");
}

/**
 * The privacy rule, and what keeps a carried item true: `change` with each row replaced by its vault's current row in
 * `rows`, or dropped when the vault is not listed; every edge touching a vault `rows` withholds or does not list
 * dropped from `add` and `remove`; and `envelope` (the newest item's only) in place of any it had.
 */
export function rewrite(
  change: RegistryChange,
  rows: ReadonlyMap<string, Row>,
  envelope?: Envelope,
): RegistryChange {
  const { envelope: _old, ...rest } = change;
  const hidden = (slug: string) => {
    const now = rows.get(slug);
    return now === undefined || "listing" in now;
  };
  // Edges are made anew from their three members: nothing else a previous feed held rides along.
  const edges = (list: readonly Edge[]) =>
    list.filter((e) => !hidden(e.source) && !hidden(e.target)).map((e) =>
      isBareEdge(e) ? e : { source: e.source, target: e.target, type: e.type }
    );
  // A snapshot carried from a feed older than the rule that keeps its lists empty loses them here.
  const lists = change.resync || change.from === null ? EMPTY_LISTS : {
    vaults: {
      upsert: change.vaults.upsert.flatMap((row) => rows.get(row.vault_slug) ?? []),
      remove: change.vaults.remove,
    },
    edges: {
      add: edges(change.edges.add),
      remove: edges(change.edges.remove),
      remove_touching: change.edges.remove_touching,
    },
  };
  // Spread over `rest`, the lists keep their places; the envelope comes last.
  return { ...rest, ...lists, ...(envelope === undefined ? {} : { envelope }) };
}

/**
 * True when `e` has exactly an edge's three members, in order (as every edge a build writes). Only an edge whose
 * `source` and `target` name listed vaults is asked: with three keys, `source` first and `type` last, `target` is
 * second.
 */
function isBareEdge(e: Edge): boolean {
  const keys = Object.keys(e);
  return keys.length === 3 && keys[0] === "source" && keys[2] === "type";
}

/** The lists of a snapshot and of a `resync` item: empty. */
const EMPTY_LISTS = {
  vaults: { upsert: [], remove: [] },
  edges: { add: [], remove: [], remove_touching: [] },
} as const;

/** `change`, or, when its lists would pass the cap serialized compactly, the same change saying `resync`. */
function capped(change: RegistryChange, limits: FeedLimits): RegistryChange {
  // Spread over `change`, the keys keep their order: the envelope, if any, stays last.
  return changeBytes(change) <= limits.changeBytes ? change : { ...change, resync: true, ...EMPTY_LISTS };
}

/** The UTF-8 length of `change` serialized compactly; past 4 MiB of text, a lower bound already over any cap. */
function changeBytes(change: RegistryChange): number {
  const text = JSON.stringify(change);
  // A UTF-16 code unit is at least one byte: past the cap in units is past it in bytes, without encoding.
  if (text.length > FEED_LIMITS.changeBytes * 4) return text.length;
  return new TextEncoder().encode(text).byteLength;
}

/** The window (`FEED_LIMITS`' rule), dropping the oldest first; the newest item always stays. */
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

/** The exact bytes of a JSON feed, written as the document is. */
export function serializeFeed(feed: ChangeFeed): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`${JSON.stringify(feed, null, 2)}\n`);
}
