/**
 * A consumer that keeps a local copy of the registry's vaults and edges up to date from the change
 * feed, typed with the generated types (golden/registry.v1.changes.d.ts, exported beside the feed
 * as /api/registry.v1.changes.d.ts). Each run asks for the JSON feed with If-None-Match; when it
 * changed, applies, oldest first, every item built after the copy (vaults: remove, then upsert by
 * slug; edges: remove_touching, remove, add), and refetches the whole document only when an item
 * says resync or the copy is older than the feed's window. Runs unchanged on Node and Deno:
 *
 *   node --import tsx examples/catch-up.ts https://registry.example.org copy.json
 *   deno run --allow-net --allow-read --allow-write examples/catch-up.ts https://registry.example.org copy.json
 */
import type { ChangeFeed, ChangeFeedItem, RegistryChange } from "../golden/registry.v1.changes.d.ts";
import type { Edge, RegistryDocumentV1, Row } from "../golden/registry.v1.d.ts";

/** The local copy: the document's vaults and edges as of `built_at`, and the feed's ETag last seen. */
export interface LocalCopy {
  readonly built_at: string;
  readonly vaults: Row[];
  readonly edges: Edge[];
  readonly feedEtag: string | null;
}

/** What one run did, and how many requests it made. */
export interface Outcome {
  readonly copy: LocalCopy;
  readonly requests: number;
  readonly said: string;
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const edgeKey = (e: Edge) => `${e.source}\u0000${e.target}\u0000${e.type}`;

/** Applies one item's change to the vaults and edges, and sorts them as the document does. */
export function applyChange(
  copy: Pick<LocalCopy, "vaults" | "edges">,
  change: RegistryChange,
): Pick<LocalCopy, "vaults" | "edges"> {
  const vaults = new Map(copy.vaults.map((row) => [row.vault_slug, row]));
  for (const slug of change.vaults.remove) vaults.delete(slug);
  for (const row of change.vaults.upsert) vaults.set(row.vault_slug, row);
  const touching = new Set(change.edges.remove_touching);
  const edges = new Map(
    copy.edges.filter((e) => !touching.has(e.source) && !touching.has(e.target)).map((e) => [edgeKey(e), e]),
  );
  for (const e of change.edges.remove) edges.delete(edgeKey(e));
  for (const e of change.edges.add) edges.set(edgeKey(e), e);
  return {
    vaults: [...vaults.values()].sort((a, b) => byCodeUnits(a.vault_slug, b.vault_slug)),
    edges: [...edges.values()].sort((a, b) =>
      byCodeUnits(a.source, b.source) || byCodeUnits(a.target, b.target) || byCodeUnits(a.type, b.type)
    ),
  };
}

/** Brings `copy` (none on the first run) up to date from `base`. */
export async function catchUp(base: string, copy: LocalCopy | null): Promise<Outcome> {
  const root = base.replace(/\/$/, "");
  const refetch = async (requests: number, why: string): Promise<Outcome> => {
    const res = await fetch(`${root}/api/registry.v1.json`);
    if (res.status !== 200) throw new Error(`${root}/api/registry.v1.json: HTTP ${res.status}`);
    const document = (await res.json()) as RegistryDocumentV1;
    return {
      copy: { built_at: document.built_at, vaults: document.vaults, edges: document.edges, feedEtag: null },
      requests: requests + 1,
      said: `fetched the document: ${why}`,
    };
  };
  if (copy === null) return refetch(0, "no local copy yet");

  const res = await fetch(`${root}/api/registry.v1.changes.json`, {
    headers: copy.feedEtag === null ? {} : { "if-none-match": copy.feedEtag },
  });
  if (res.status === 304) {
    await res.body?.cancel();
    return { copy, requests: 1, said: "up to date: the feed has not changed" };
  }
  if (res.status !== 200) throw new Error(`${root}/api/registry.v1.changes.json: HTTP ${res.status}`);
  const feed = (await res.json()) as ChangeFeed;
  const feedEtag = res.headers.get("etag");
  // Items are newest first: the ones to apply are those built after the copy, oldest first.
  const newer: ChangeFeedItem[] = feed.items.filter((item) => item._registry.to.built_at > copy.built_at).reverse();
  const oldest = feed.items[feed.items.length - 1];
  if (newer.length === 0) {
    return { copy: { ...copy, feedEtag }, requests: 1, said: "up to date: nothing newer than the copy" };
  }
  if (oldest !== undefined && oldest._registry.from !== null && copy.built_at < oldest._registry.from.built_at) {
    const fetched = await refetch(1, "the copy is older than the feed's window");
    return { ...fetched, copy: { ...fetched.copy, feedEtag } };
  }
  if (newer.some((item) => item._registry.resync)) {
    const fetched = await refetch(1, "a change was too large to list");
    return { ...fetched, copy: { ...fetched.copy, feedEtag } };
  }
  let data: Pick<LocalCopy, "vaults" | "edges"> = copy;
  for (const item of newer) data = applyChange(data, item._registry);
  const builtAt = (newer[newer.length - 1] as ChangeFeedItem).date_published;
  return {
    copy: { built_at: builtAt, ...data, feedEtag },
    requests: 1,
    said: `applied ${newer.length} ${newer.length === 1 ? "item" : "items"}`,
  };
}

type Runtime = {
  Deno?: {
    args: string[];
    mainModule?: string;
    exit(code: number): never;
    readTextFile(path: string): Promise<string>;
    writeTextFile(path: string, text: string): Promise<void>;
  };
  process?: { argv: string[]; exitCode?: number };
};
const runtime = globalThis as Runtime;

async function readCopy(path: string): Promise<LocalCopy | null> {
  try {
    const text = runtime.Deno !== undefined
      ? await runtime.Deno.readTextFile(path)
      : await (await import("node:fs/promises")).readFile(path, "utf8");
    return JSON.parse(text) as LocalCopy;
  } catch {
    return null;
  }
}

async function writeCopy(path: string, copy: LocalCopy): Promise<void> {
  const text = `${JSON.stringify(copy)}\n`;
  if (runtime.Deno !== undefined) await runtime.Deno.writeTextFile(path, text);
  else await (await import("node:fs/promises")).writeFile(path, text);
}

const args = runtime.Deno?.args ?? runtime.process?.argv.slice(2) ?? [];
const isMain = runtime.Deno !== undefined
  ? runtime.Deno.mainModule === import.meta.url
  : /examples[\\/]catch-up\.ts$/.test(runtime.process?.argv[1] ?? "");
if (isMain) {
  if (args.length !== 2) {
    console.error("usage: catch-up.ts <base-url> <copy-file>");
    if (runtime.Deno !== undefined) runtime.Deno.exit(2);
    else if (runtime.process !== undefined) runtime.process.exitCode = 2;
  } else {
    const [base, path] = args as [string, string];
    const outcome = await catchUp(base, await readCopy(path));
    await writeCopy(path, outcome.copy);
    console.log(
      `${outcome.said} (${outcome.requests} ${
        outcome.requests === 1 ? "request" : "requests"
      }); ${outcome.copy.vaults.length} vaults, ${outcome.copy.edges.length} edges as of ${outcome.copy.built_at}`,
    );
  }
}
