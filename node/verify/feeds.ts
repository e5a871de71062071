import { XMLValidator } from "fast-xml-parser";
import { parseAtomFeed, parseJsonFeed } from "feedsmith";
import { sizeOf } from "../../contract/limits.ts";
import { changesPaths, type ContractVersion } from "../../contract/version-policy.ts";
import { arrayOf, jsonEqual, jsonText } from "../common/json-deep.ts";
import { applyChanges, sameRef } from "../../feed/change.ts";
import type { EdgeLike, RegistryChange, RegistryData } from "../../feed/change.ts";
import { ATOM_MEDIA_TYPE, FEED_LIMITS, feedPlace, JSON_FEED_MEDIA_TYPE } from "../../feed/feed.ts";
import { changeFeedSchema } from "../../feed/schema.ts";
import { schemaCheck } from "../common/schemas.ts";
import { type CatchUp, catchUp, chainProblems } from "../../feed/history.ts";
import type { Check } from "./check.ts";
import type { Answer, Get } from "../common/request.ts";

/** The most a feed may hold, by its window's rule (docs/deploying.md, "What verify checks"). */
const MAX_FEED_BYTES = FEED_LIMITS.feedBytes;
/** The most of a feed's body read: twice what a feed may hold, so that one over it is named, not cut off. */
export const FEED_BODY_CAP = 2 * MAX_FEED_BYTES;

type Row = { readonly vault_slug: string };
type Item = { readonly id: string; readonly date_published: string; readonly _registry: RegistryChange<Row, EdgeLike> };

/** What the feed checks need from the rest of the run. */
export interface FeedContext {
  readonly version: ContractVersion;
  /** The base URL the deployment is built for. */
  readonly expect: string;
  readonly document: Record<string, unknown>;
  /** Whether `document` validates against `schema`: only then are the items compared with it. */
  readonly documentValid: boolean;
  /** This version's own schema for `expect`: the feed's rows and edges are its rows and edges. */
  readonly schema: Record<string, unknown>;
  /** The `Link` headers of the document's answers (canonical and versioned). */
  readonly documentLinks: readonly (string | null)[];
  /** The identity ETag of the served document's bytes, as a consumer computes it. */
  readonly documentEtag: string;
  readonly lenient: boolean;
  /** An earlier document of this deployment (`--previous-document`), and why it is not one (null: it is). */
  readonly previous?: Readonly<{ name: string; value: unknown; etag: string; problem: string | null }>;
  readonly get: Get;
}

/** The checks of one version's feeds, in order; a build from before the feeds is one warning row. */
export async function feedChecks(c: FeedContext): Promise<Check[]> {
  const checks: Check[] = [];
  const check = (name: string, pass: boolean, detail = "", hostMay = false): boolean => {
    checks.push({ name, result: pass ? "pass" : hostMay && c.lenient ? "warn" : "fail", detail });
    return pass;
  };
  const paths = changesPaths(c.version);
  const forms = [[paths.json, JSON_FEED_MEDIA_TYPE], [paths.atom, ATOM_MEDIA_TYPE]] as const;
  const links = c.documentLinks.map(linksOf);
  const alternates = links.flat().filter((l) => l.rel === "alternate");
  const json = await c.get(paths.json, {}, "GET", FEED_BODY_CAP);
  const atom = await c.get(paths.atom, {}, "GET", FEED_BODY_CAP);
  if (alternates.length === 0 && json.status === 404 && atom.status === 404) {
    checks.push({
      name: `v${c.version.number} serves no change feed (a build older than the change feed)`,
      result: "warn",
      detail: `no Link rel="alternate"; ${paths.json} and ${paths.atom} answer 404`,
    });
    return checks;
  }
  const unlinked = forms.filter(([path, type]) =>
    !links.every((list) => list.some((l) => l.rel === "alternate" && l.type === type && l.url === c.expect + path))
  );
  check(
    `the document's answers link the JSON and the Atom change feed (Link rel="alternate", each with its type, at ${c.expect})`,
    unlinked.length === 0,
    unlinked.map(([path]) => `${path} not linked`).join("; "),
  );
  for (const [[path, type], res] of [[forms[0], json], [forms[1], atom]] as const) {
    const got = res.headers.get("content-type");
    const bare = got?.replace(/;\s*charset=utf-8$/i, "");
    const ok = res.status === 200;
    check(`${path} answers 200 as ${type}`, ok && got === type, `${res.status} ${got}`, ok && bare === type);
    const etag = res.headers.get("etag");
    const strong = etag !== null && !etag.startsWith("W/") && res.headers.get("access-control-allow-origin") === "*";
    check(`${path} has a strong ETag and CORS for any origin`, strong, `${etag ?? "no ETag"}${coding(res)}`, true);
    if (res.status === 200 && etag !== null) {
      const again = await c.get(path, { "if-none-match": etag }, "GET", FEED_BODY_CAP);
      check(`${path} answers 304 to its own ETag`, again.status === 304, String(again.status), true);
    }
  }
  if (json.status !== 200) return checks;
  const place = feedPlace(c.version.number, c.expect, c.version.path, paths);

  const items = json.body.length > MAX_FEED_BYTES
    ? { problems: [`${sizeOf(json.body.length)}, more than the ${sizeOf(MAX_FEED_BYTES)} a feed may hold`] }
    : readJsonFeed(json.body.toString("utf8"), place, feedCheck(c, paths.json));
  check(
    `${paths.json} is a JSON Feed 1.1 (by a third-party parser) whose every item carries a valid _registry`,
    "items" in items,
    "problems" in items ? items.problems.slice(0, 3).join("; ") : `${items.items.length} items`,
  );
  const atomEntries = atom.status === 200
    ? readAtomFeed(atom.body.toString("utf8"), c.expect + c.version.path)
    : { problems: [`${atom.status}`] };
  check(
    `${paths.atom} is well-formed Atom (by a third-party parser) with RFC 4287's required elements`,
    "entries" in atomEntries,
    "problems" in atomEntries ? atomEntries.problems.slice(0, 3).join("; ") : `${atomEntries.entries.length} entries`,
  );
  const repeated = [
    ...duplicates(("items" in items ? items.items : []).map((i) => i.id)),
    ...duplicates(("entries" in atomEntries ? atomEntries.entries : []).map((e) => e.id)),
  ];
  check("item ids are unique in each feed", repeated.length === 0, repeated.slice(0, 3).join(", "));
  if ("items" in items && "entries" in atomEntries) {
    const dates = new Map(atomEntries.entries.map((e) => [e.id, Date.parse(e.updated)]));
    const unlike = items.items.filter((i) => dates.get(i.id) !== Date.parse(i.date_published));
    const same = unlike.length === 0 && atomEntries.entries.length === items.items.length;
    const unmatched = `${unlike.length} of ${items.items.length} items without their entry`;
    check(
      "the Atom entries are the JSON items: the same ids and dates",
      same,
      `${unmatched}; ${atomEntries.entries.length} entries`,
    );
  }
  if (!("items" in items) || items.items.length === 0) return checks;

  const changes = items.items.map((i) => i._registry);
  const chain = chainProblems(place, items.items);
  check(
    "the items form a chain, newest first: each from is the next item's to, ids and dates from each to, the envelope on the newest",
    chain.length === 0,
    chain.slice(0, 3).join("; "),
  );
  if (!c.documentValid) {
    checks.push({
      name: "the items compared with the document",
      result: "warn",
      detail: "not compared: the document does not validate against its schema",
    });
    return checks;
  }
  const ref = { built_at: String(c.document["built_at"]), etag: c.documentEtag };
  const current = { vaults: arrayOf<Row>(c.document["vaults"]), edges: arrayOf<EdgeLike>(c.document["edges"]) };
  const shown = shownRows(current.vaults);
  // Items by index, as the chain row names them: an item's id is the feed's own text, whatever it holds.
  const leaks = items.items.flatMap((item, i) =>
    privacyLeaks(item._registry, shown).map((where) => `items[${i}]: ${where}`)
  );
  check(
    "every row an item carries is the document's row, and no item carries an edge of a vault it withholds or no longer lists",
    leaks.length === 0,
    leaks.slice(0, 3).join("; ") + (leaks.length > 3 ? `; ${leaks.length - 3} more` : ""),
  );
  const newest = changes[0] as RegistryChange<Row, EdgeLike>;
  check(
    "the newest item's to is the document: its built_at and the identity ETag of its bytes",
    sameRef(newest.to, ref),
    `to ${newest.to.built_at.slice(0, 40)} ${newest.to.etag.slice(0, 40)}; the document ${
      ref.built_at.slice(0, 40)
    } ${ref.etag}`,
  );
  const { vaults: _v, edges: _e, ...envelope } = c.document;
  check("the newest item carries the document's envelope", jsonEqual(newest.envelope, envelope));
  const lastResync = changes.findIndex((change) => change.resync);
  const since = changes.slice(0, lastResync === -1 ? changes.length : lastResync);
  const replayed = { kind: "apply" as const, to: ref, data: applyChanges(current, [...since].reverse()), envelope };
  checks.push(
    replayCheck("the items since the last resync, replayed onto the document, change nothing", replayed, current),
  );
  if (c.previous !== undefined) {
    const { name, value, etag, problem } = c.previous;
    const built = `--previous-document ${name} is a built v${c.version.number} document`;
    if (!check(built, problem === null, problem ?? "")) return checks;
    const earlier = value as Record<string, unknown>;
    const held = { vaults: arrayOf<Row>(earlier["vaults"]), edges: arrayOf<EdgeLike>(earlier["edges"]) };
    const builtAt = String(earlier["built_at"]);
    const named = `catching ${name} (built ${
      builtAt.slice(0, 40)
    }) up by the feed gives the document's vaults and edges`;
    checks.push(replayCheck(named, catchUp(held, { built_at: builtAt, etag }, changes), current));
  }
  return checks;
}

/** The check of a feed at `path` by the schema the description serves for it (which admits keys added later). */
function feedCheck(c: FeedContext, path: string): (value: unknown) => string | null {
  const defs = `${c.expect}${c.version.schemaPath}#/$defs`;
  return schemaCheck(changeFeedSchema(c.expect + path, `${defs}/row`, `${defs}/edge`), [c.schema]);
}

/** One replay's row: equal passes; the rule not applying warns; a difference fails, naming the first places. */
function replayCheck(name: string, got: CatchUp<Row, EdgeLike>, want: RegistryData<Row, EdgeLike>): Check {
  if (got.kind !== "apply") {
    const why = {
      current: "it is the document itself",
      wait: "it is newer than the feed: a consumer waits and asks again",
      refetch: "no item starts at it, or one on the way says resync: a consumer refetches the document",
    }[got.kind];
    return { name, result: got.kind === "current" ? "pass" : "warn", detail: why };
  }
  const pass = jsonEqual(got.data.vaults, want.vaults) && jsonEqual(got.data.edges, want.edges);
  const detail = pass ? `${want.vaults.length} vaults, ${want.edges.length} edges` : difference(got.data, want);
  return { name, result: pass ? "pass" : "fail", detail };
}

/** The document's rows by slug: whether a vault is hidden, and whether a carried row is its row. */
interface Shown {
  readonly hidden: (slug: string) => boolean;
  readonly same: (row: Row) => boolean;
}

/**
 * `rows` (the document's) as `privacyLeaks` asks of them. Each row's text is made once, when a carried row first names
 * it: a feed that names one large row thousands of times costs its own size, not that row's size thousands of times.
 */
function shownRows(rows: readonly Row[]): Shown {
  const bySlug = new Map(rows.map((r) => [r.vault_slug, r]));
  const texts = new Map<string, string>();
  return {
    hidden: (slug) => !bySlug.has(slug) || Object.hasOwn(bySlug.get(slug) as object, "listing"),
    same: (row) => {
      const own = bySlug.get(row.vault_slug);
      if (own === undefined) return false;
      let text = texts.get(row.vault_slug);
      if (text === undefined) texts.set(row.vault_slug, text = jsonText(own));
      // A carried row's text is made no longer than its own row's: a longer one differs.
      return jsonText(row, 0, text.length) === text;
    },
  };
}

/** Where `set` carries a row other than the document's, or an edge of a vault withheld or gone. */
function privacyLeaks(set: RegistryChange<Row, EdgeLike>, shown: Shown): string[] {
  return [
    ...set.vaults.upsert.filter((r) => !shown.same(r)).map((r) => `vaults[${r.vault_slug}]`),
    ...[...set.edges.add, ...set.edges.remove].filter((e) => shown.hidden(e.source) || shown.hidden(e.target)).map((
      e,
    ) => `edge ${e.source} -> ${e.target}`),
  ];
}

function difference(got: RegistryData<Row, EdgeLike>, want: RegistryData<Row, EdgeLike>): string {
  const out: string[] = [];
  const rows = (list: readonly Row[]) => new Map(list.map((r) => [String(r.vault_slug), r]));
  const [g, w] = [rows(got.vaults), rows(want.vaults)];
  for (const [slug, row] of w) {
    if (!g.has(slug)) out.push(`vaults[${slug}] missing`);
    else if (!jsonEqual(g.get(slug), row)) out.push(`vaults[${slug}] differs`);
  }
  for (const slug of g.keys()) if (!w.has(slug)) out.push(`vaults[${slug}] extra`);
  // Ends only: an edge the feed should not carry may be of a withheld vault, and its type is not repeated here.
  const key = (e: EdgeLike) => `${e.source} -> ${e.target}`;
  const [ge, we] = [new Set(got.edges.map(key)), new Set(want.edges.map(key))];
  for (const e of we) if (!ge.has(e)) out.push(`edge ${e} missing`);
  for (const e of ge) if (!we.has(e)) out.push(`edge ${e} extra`);
  if (out.length === 0 && !jsonEqual(got, want)) out.push("the order differs");
  return out.slice(0, 3).join("; ") + (out.length > 3 ? `; ${out.length - 3} more` : "");
}

/**
 * The feed's items, once feedsmith and the schema served for it accept it, it names this deployment's feed URL, and its
 * links (`home_page_url`, each item's `url`) name the versioned document.
 */
function readJsonFeed(
  text: string,
  place: { readonly feedUrl: string; readonly documentUrl: string },
  check: (value: unknown) => string | null,
): { items: Item[] } | { problems: string[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
    parseJsonFeed(raw);
  } catch (error: unknown) {
    return { problems: [`not a JSON Feed (${error instanceof Error ? error.name : "error"})`] };
  }
  const failures = check(raw);
  if (failures !== null) return { problems: [`not a change feed: ${failures}`] };
  const feed = raw as { feed_url: string; home_page_url: string; items: (Item & { url: string })[] };
  const problems = feed.feed_url === place.feedUrl ? [] : [`feed_url is not ${place.feedUrl}`];
  // What a feed reader opens: a host that can edit the feed must not send readers elsewhere.
  if (feed.home_page_url !== place.documentUrl) problems.push(`home_page_url is not ${place.documentUrl}`);
  const elsewhere = feed.items.findIndex((item) => item.url !== place.documentUrl);
  if (elsewhere !== -1) problems.push(`items[${elsewhere}].url is not ${place.documentUrl}`);
  const twice = duplicates(feed.items.map((item) => item._registry.to.built_at));
  if (twice.length > 0) problems.push(`two items lead to the build of ${twice[0]}`);
  return problems.length > 0 ? { problems } : { items: feed.items };
}

function readAtomFeed(
  text: string,
  documentUrl: string,
): { entries: { id: string; updated: string }[] } | { problems: string[] } {
  let feed: ReturnType<typeof parseAtomFeed>;
  try {
    const wellFormed = XMLValidator.validate(text);
    if (wellFormed !== true) {
      return { problems: [`not well-formed XML at line ${wellFormed.err.line}: ${wellFormed.err.msg.slice(0, 80)}`] };
    }
    feed = parseAtomFeed(text);
  } catch (error: unknown) {
    return { problems: [`not an Atom feed (${error instanceof Error ? error.name : "error"})`] };
  }
  const problems: string[] = [];
  const instant = (s: unknown) => typeof s === "string" && !Number.isNaN(Date.parse(s));
  if (!feed.id) problems.push("the feed has no id");
  if (!feed.title?.value) problems.push("the feed has no title");
  if (!instant(feed.updated)) problems.push("the feed has no updated date");
  const entries = feed.entries ?? [];
  entries.forEach((entry, i) => {
    const missing = [entry.id ? "" : "id", entry.title?.value ? "" : "title", instant(entry.updated) ? "" : "updated"]
      .filter(Boolean);
    if (missing.length > 0) problems.push(`entry ${i + 1} has no ${missing.join(", ")}`);
    else if (!(entry.links ?? []).some((l) => l.href === documentUrl)) {
      problems.push(`entry ${i + 1} has no link to ${documentUrl}`);
    }
  });
  return problems.length > 0
    ? { problems }
    : { entries: entries.map((e) => ({ id: String(e.id), updated: String(e.updated) })) };
}

function linksOf(header: string | null): { url: string; rel: string; type: string }[] {
  return [...(header ?? "").matchAll(/<([^>]*)>([^<]*)/g)].map(([, url, params]) => ({
    url: url as string,
    rel: /;\s*rel="?([^";,]*)"?/.exec(params as string)?.[1] ?? "",
    type: /;\s*type="?([^";,]*)"?/.exec(params as string)?.[1] ?? "",
  }));
}

/** `" (gzip)"`: the content coding of an answer, named beside the ETag it carries. */
export function coding(res: Answer): string {
  return ` (${res.headers.get("content-encoding") ?? "identity"})`;
}

function duplicates(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  return [...new Set(ids.filter((id) => seen.size === seen.add(id).size))];
}
