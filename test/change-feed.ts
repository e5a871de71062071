/**
 * A test oracle of the change feed's wire format (docs/deploying.md, "What verify checks"; docs/document.md, "Change
 * feeds"),
 * written from the rule, not from the build: the item from one document to the next, the rewrite
 * of every carried item to the current rows, the chain's ids and envelope, and the two feed texts.
 * The verify tests serve feeds made by it, and tamper with them.
 */
import type { BuildRef, EdgeLike, RegistryChange } from "../feed/change.ts";

/** The part of a document the feed concerns. */
export interface Doc {
  readonly built_at: string;
  readonly etag: string;
  readonly vaults: readonly Row[];
  readonly edges: readonly EdgeLike[];
  /** The document's top-level members other than `vaults` and `edges`: the newest item carries them. */
  readonly envelope?: Record<string, unknown>;
}
export type Row = { readonly vault_slug: string; readonly listing?: string } & Record<string, unknown>;

const key = (e: EdgeLike) => JSON.stringify([e.source, e.target, e.type]);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const stamp = (d: Doc): BuildRef => ({ built_at: d.built_at, etag: d.etag });

/**
 * The item from `a` (null: no document yet) to `b`: vaults `b` lists and `a` does not, or shows
 * otherwise, are upserted as `b` shows them; vaults `a` lists and `b` does not are removed; the
 * vaults `b` no longer lists or newly withholds are named in `remove_touching`, and every other
 * edge that differs is added or removed.
 */
export function changeBetween(a: Doc | null, b: Doc): RegistryChange<Row, EdgeLike> {
  const before = new Map((a?.vaults ?? []).map((r) => [r.vault_slug, r]));
  const after = new Map(b.vaults.map((r) => [r.vault_slug, r]));
  const gone = [...before.keys()].filter((slug) => !after.has(slug));
  const withheld = [...after.values()].filter((r) =>
    r.listing !== undefined && before.has(r.vault_slug) && before.get(r.vault_slug)?.listing === undefined
  ).map((r) => r.vault_slug);
  const touching = new Set([...gone, ...withheld]);
  const beforeEdges = new Map((a?.edges ?? []).map((e) => [key(e), e]));
  const afterEdges = new Map(b.edges.map((e) => [key(e), e]));
  return {
    from: a === null ? null : stamp(a),
    to: stamp(b),
    class: "data",
    resync: false,
    vaults: { upsert: b.vaults.filter((r) => !same(before.get(r.vault_slug), r)), remove: gone.sort() },
    edges: {
      add: b.edges.filter((e) => !beforeEdges.has(key(e))),
      remove: (a?.edges ?? []).filter((e) =>
        !afterEdges.has(key(e)) && !touching.has(e.source) && !touching.has(e.target)
      ),
      remove_touching: [...touching].sort(),
    },
  };
}

/**
 * `set` as the build of `current` carries it: every row becomes its vault's row in `current` (full
 * or minimal), or leaves when `current` does not list the vault; edges touching a vault `current`
 * withholds or does not list leave `add` and `remove`; no envelope.
 */
export function rewriteFor(set: RegistryChange<Row, EdgeLike>, current: Doc): RegistryChange<Row, EdgeLike> {
  const shown = new Map(current.vaults.map((r) => [r.vault_slug, r]));
  const hidden = (slug: string) => !shown.has(slug) || shown.get(slug)?.listing !== undefined;
  const open = (e: EdgeLike) => !hidden(e.source) && !hidden(e.target);
  const { envelope: _old, ...rest } = set;
  return {
    ...rest,
    vaults: { ...set.vaults, upsert: set.vaults.upsert.flatMap((r) => shown.get(r.vault_slug) ?? []) },
    edges: { ...set.edges, add: set.edges.add.filter(open), remove: set.edges.remove.filter(open) },
  };
}

/**
 * The change sets of a sequence of documents, first snapshot first, rewritten for the last; the
 * last one carries the last document's envelope when it has one.
 */
export function historyOf(docs: readonly Doc[]): RegistryChange<Row, EdgeLike>[] {
  const last = docs[docs.length - 1] as Doc;
  const sets = docs.map((d, i) => rewriteFor(changeBetween(i === 0 ? null : (docs[i - 1] as Doc), d), last));
  return last.envelope === undefined ? sets : withEnvelope(sets, last);
}

/** `sets` (oldest first) with `doc`'s envelope on the newest only. */
export function withEnvelope(
  sets: readonly RegistryChange<Row, EdgeLike>[],
  doc: Doc,
): RegistryChange<Row, EdgeLike>[] {
  return sets.map((set, i) => {
    const { envelope: _old, ...rest } = set;
    return i === sets.length - 1 && doc.envelope !== undefined ? { ...rest, envelope: doc.envelope } : rest;
  });
}

/** One feed item: an id, a title, the dates, and the change set. */
export interface FeedItem {
  readonly id: string;
  readonly set: RegistryChange<Row, EdgeLike>;
}

/** Items for `sets`, with ids made from the builds they lead to: the feed URL, `#`, `to.built_at`, `/`, its ETag's hex. */
export function itemsOf(base: string, sets: readonly RegistryChange<Row, EdgeLike>[]): FeedItem[] {
  return sets.map((set) => ({
    id: `${base}/api/registry.v1.changes.json#${set.to.built_at}/${set.to.etag.replaceAll('"', "")}`,
    set,
  }));
}

/** The JSON Feed 1.1 text of `items`, newest first. */
export function jsonFeed(base: string, items: readonly FeedItem[]): string {
  return `${
    JSON.stringify(
      {
        version: "https://jsonfeed.org/version/1.1",
        title: "Registry v1: changes",
        home_page_url: `${base}/api/registry.v1.json`,
        feed_url: `${base}/api/registry.v1.changes.json`,
        description: "What changed between successive builds of the registry.",
        language: "en",
        items: [...items].reverse().map(({ id, set }) => ({
          id,
          url: `${base}/api/registry.v1.json`,
          title: `data: ${set.vaults.upsert.length} rows upserted, ${set.vaults.remove.length} removed`,
          content_text: "A snapshot of the registry's data.",
          date_published: set.to.built_at,
          _registry: set,
        })),
      },
      null,
      2,
    )
  }\n`;
}

const xml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

/** The Atom text of `items`, newest first. */
export function atomFeed(base: string, items: readonly FeedItem[]): string {
  const newest = items[items.length - 1];
  const entries = [...items].reverse().map(({ id, set }) =>
    [
      "  <entry>",
      `    <id>${xml(id)}</id>`,
      `    <title>data: ${set.vaults.upsert.length} rows upserted</title>`,
      `    <updated>${set.to.built_at}</updated>`,
      `    <link rel="alternate" type="application/json" href="${xml(base)}/api/registry.v1.json"/>`,
      "    <summary>A snapshot of the registry's data.</summary>",
      "  </entry>",
    ].join("\n")
  );
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${xml(base)}/api/registry.v1.changes.atom</id>`,
    "  <title>Registry v1: changes</title>",
    `  <updated>${newest?.set.to.built_at ?? "1970-01-01T00:00:00Z"}</updated>`,
    "  <author><name>Registry</name></author>",
    `  <link rel="self" type="application/atom+xml" href="${xml(base)}/api/registry.v1.changes.atom"/>`,
    ...entries,
    "</feed>",
    "",
  ].join("\n");
}
