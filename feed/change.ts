/** One change between two builds of a version's document, and how to apply it (docs/document.md, "Change feeds"). */
import type { Edge, Row } from "../contract/document.ts";
import { compareCodeUnits } from "../contract/json.ts";

/** The classes of `registry diff`, from harmless to harmful. */
export const CHANGE_CLASSES = ["data", "additive", "dangerous", "breaking"] as const;
/** The class of a change. */
export type ChangeClass = (typeof CHANGE_CLASSES)[number];

/** A build's document, as an item names it: its `built_at` and the strong ETag of its identity bytes. */
export interface BuildRef {
  readonly built_at: string;
  readonly etag: string;
}

/** What replay needs of a row: its slug. */
export interface RowLike {
  readonly vault_slug: string;
}

/** What replay needs of an edge: its identity, (`source`, `target`, `type`). */
export interface EdgeLike {
  readonly source: string;
  readonly target: string;
  readonly type: string;
}

/** A document's top-level members other than `vaults` and `edges`, in the document's order. */
export type Envelope = Readonly<Record<string, unknown>>;

/**
 * The `_registry` extension of a feed item. Key order is the serialized order. Generic over rows and edges so that
 * `verify` can replay a served feed it has only checked the shape of.
 */
export interface RegistryChange<R extends RowLike = Row, E extends EdgeLike = Edge> {
  /** The document the change starts from; null for the first snapshot (replay from nothing). */
  readonly from: BuildRef | null;
  readonly to: BuildRef;
  readonly class: ChangeClass;
  /** True when the lists would pass 1 MiB: they are empty, and a consumer refetches the document. */
  readonly resync: boolean;
  readonly vaults: { readonly upsert: readonly R[]; readonly remove: readonly string[] };
  readonly edges: {
    readonly add: readonly E[];
    readonly remove: readonly E[];
    readonly remove_touching: readonly string[];
  };
  /** On the newest item only: the envelope of its `to` document. */
  readonly envelope?: Envelope;
}

/** True when `a` (an item's `from`, perhaps null) names the document `b` names: the same `built_at` and ETag. */
export function sameRef(a: BuildRef | null, b: BuildRef): boolean {
  return a !== null && a.built_at === b.built_at && a.etag === b.etag;
}

/** What replay reads and writes: a document's vaults and edges, in the document's order. */
export interface RegistryData<R extends RowLike = Row, E extends EdgeLike = Edge> {
  readonly vaults: readonly R[];
  readonly edges: readonly E[];
}

/** Orders edges as the document does: by source, target, type. */
function compareEdges(a: EdgeLike, b: EdgeLike): number {
  return compareCodeUnits(a.source, b.source) || compareCodeUnits(a.target, b.target) ||
    compareCodeUnits(a.type, b.type);
}

/**
 * An edge's identity, as a map key. The lengths make it one-to-one for any strings: `verify` replays served feeds,
 * whose edges need not be slugs.
 */
function edgeKey(e: EdgeLike): string {
  return `${e.source.length}:${e.target.length}:${e.source}${e.target}${e.type}`;
}

/**
 * Applies `changes` to `data`, oldest first (each: vaults `remove`, then `upsert` by slug; edges `remove_touching`,
 * `remove`, `add`), and returns the result in the document's order. A `resync` change cannot be applied: the caller
 * refetches the document instead. No change applied to lists already in that order gives `data` itself.
 */
export function applyChanges<R extends RowLike, E extends EdgeLike>(
  data: RegistryData<R, E>,
  changes: readonly RegistryChange<R, E>[],
): RegistryData<R, E> {
  // A build checks that replaying nothing changes its previous document: no copy of 100k rows for that.
  if (changes.length === 0 && outOfOrder(data) === undefined) return data;
  const vaults = new Map(data.vaults.map((row) => [row.vault_slug, row]));
  const edges = new Map(data.edges.map((e) => [edgeKey(e), e]));
  // The keys of the edges at each end, made at the first removal of the edges touching a vault: each removal then costs
  // its own edges, not a walk over all of them. A key stays after its edge leaves: removing it again does nothing, and
  // an edge added again has the same ends.
  let touching: Map<string, Set<string>> | undefined;
  for (const change of changes) {
    if (change.resync) throw new Error(`the change to ${change.to.built_at} says resync: refetch the document`);
    for (const slug of change.vaults.remove) vaults.delete(slug);
    for (const row of change.vaults.upsert) vaults.set(row.vault_slug, row);
    for (const slug of change.edges.remove_touching) {
      touching ??= [...edges].reduce((index, [key, e]) => link(index, key, e), new Map<string, Set<string>>());
      touching.get(slug)?.forEach((key) => edges.delete(key));
    }
    for (const e of change.edges.remove) edges.delete(edgeKey(e));
    for (const e of change.edges.add) {
      const key = edgeKey(e);
      edges.set(key, e);
      if (touching !== undefined) link(touching, key, e);
    }
  }
  return {
    vaults: [...vaults.values()].sort(bySlug),
    edges: [...edges.values()].sort(compareEdges),
  };
}

/** Orders rows as the document does: by slug. */
function bySlug(a: RowLike, b: RowLike): number {
  return compareCodeUnits(a.vault_slug, b.vault_slug);
}

/**
 * Where `data`'s lists first leave the document's order (`vaults[3]`, `edges[7]`: an element not strictly after the one
 * before it), or undefined when rows are by slug and edges by source, target, type, each once.
 */
export function outOfOrder(data: RegistryData<RowLike, EdgeLike>): string | undefined {
  const at = <T>(list: readonly T[], compare: (a: T, b: T) => number) =>
    list.findIndex((x, i) => i > 0 && compare(list[i - 1] as T, x) >= 0);
  const [vault, edge] = [at(data.vaults, bySlug), at(data.edges, compareEdges)];
  return vault !== -1 ? `vaults[${vault}]` : edge !== -1 ? `edges[${edge}]` : undefined;
}

function link(index: Map<string, Set<string>>, key: string, e: EdgeLike): Map<string, Set<string>> {
  for (const end of [e.source, e.target]) {
    const keys = index.get(end);
    if (keys === undefined) index.set(end, new Set([key]));
    else keys.add(key);
  }
  return index;
}

/** True when `a` and `b` hold the same rows and edges in the same order. */
export function sameData(a: RegistryData, b: RegistryData): boolean {
  return sameList(a.vaults, b.vaults, sameRow) && sameList(a.edges, b.edges, (e, f) => edgeKey(e) === edgeKey(f));
}

function sameList<T>(xs: readonly T[], ys: readonly T[], same: (x: T, y: T) => boolean): boolean {
  // A replay hands back the very rows and edges it was given, unless a change replaced them: those are not compared.
  return xs.length === ys.length && xs.every((x, i) => x === ys[i] || same(x, ys[i] as T));
}

/**
 * The change from `before` to `after`, before the privacy rule and the size cap apply (see `feed.ts`): rows new or
 * different in `upsert`, rows gone in `remove`; a vault published in full before and withheld or gone after is named in
 * `remove_touching`, and its edges leave `remove`. Both sides are walked side by side in the document's order (see
 * `outOfOrder`): a list out of it is an error.
 */
export function diffData(before: RegistryData, after: RegistryData): Pick<RegistryChange, "vaults" | "edges"> {
  const upsert: Row[] = [];
  const remove: string[] = [];
  const removeTouching: string[] = [];
  walk(before.vaults, after.vaults, bySlug, (old, row) => {
    if (row === undefined || old === undefined) {
      if (old === undefined) upsert.push(row as Row);
      else remove.push(old.vault_slug);
    } else if (!sameRow(old, row)) upsert.push(row);
    if (old !== undefined && !("listing" in old) && (row === undefined || "listing" in row)) {
      removeTouching.push(old.vault_slug);
    }
  });
  const add: Edge[] = [];
  const gone: Edge[] = [];
  walk(before.edges, after.edges, compareEdges, (old, e) => {
    if (old === undefined) add.push(e as Edge);
    else if (e === undefined) gone.push(old);
  });
  const touching = new Set(removeTouching);
  return {
    vaults: { upsert, remove },
    edges: {
      add,
      remove: gone.filter((e) => !touching.has(e.source) && !touching.has(e.target)),
      remove_touching: removeTouching,
    },
  };
}

/**
 * Walks two lists in ascending `order`, each element once, side by side: `visit` gets each pair of equal elements, and
 * each element of one list without its equal in the other (the other side undefined). Throws on a list out of that
 * order.
 */
function walk<T>(a: readonly T[], b: readonly T[], order: (x: T, y: T) => number, visit: (x?: T, y?: T) => void): void {
  let [i, j] = [0, 0];
  while (i < a.length || j < b.length) {
    const [x, y] = [a[i], b[j]];
    if (
      (x !== undefined && i > 0 && order(a[i - 1] as T, x) >= 0) ||
      (y !== undefined && j > 0 && order(b[j - 1] as T, y) >= 0)
    ) {
      throw new Error("diffData: a list is not in the document's order");
    }
    const o = x === undefined ? 1 : y === undefined ? -1 : order(x, y);
    if (o <= 0) i++;
    if (o >= 0) j++;
    visit(o <= 0 ? x : undefined, o >= 0 ? y : undefined);
  }
}

/** True when two rows have the same keys in the same order with the same values (rows are flat: strings and nulls). */
function sameRow(a: Row, b: Row): boolean {
  const [x, y] = [a as unknown as Record<string, unknown>, b as unknown as Record<string, unknown>];
  const keys = Object.keys(x);
  let i = 0;
  for (const key in y) {
    if (keys[i] !== key || x[key] !== y[key]) return false;
    i++;
  }
  return i === keys.length;
}
