/**
 * Sequences of sources for the change-feed laws: a generated valid source, then edits, one per
 * build, of the kinds an operator makes (a vault added, a note changed, a vault withheld or
 * removed, an edge added or withdrawn, a label changed, nothing), each build at a later time. Every
 * published note and edge type is a unique marker, so a test can tell which vault's detail a
 * string is. And the pipeline of one build's feed, as `npm run build -- --previous` runs it.
 */
import fc from "fast-check";
import { atomFeed } from "../feed/atom.ts";
import {
  type ChangeFeed,
  envelopeOf,
  FEED_LIMITS,
  type FeedLimits,
  feedPlace,
  type History,
  nextFeed,
  serializeFeed,
} from "../feed/feed.ts";
import { changesPaths } from "../contract/version-policy.ts";
import { strongEtag } from "../http/responses.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { classifyChange } from "../node/builder/classify.ts";
import { buildRegistry, type Registry, serializeRegistry, validateSource } from "../registry.ts";
import { validSource } from "./arbitraries.ts";

type JsonObject = Record<string, unknown>;

export const BASE_URL = "https://registry.example.org";
const V1 = VERSIONS[0]!;
export const PLACE = feedPlace(1, BASE_URL, V1.path, changesPaths(V1));

/** One edit of a source: which kind, and numbers that pick what it edits. */
export type Edit = readonly [
  kind: "add" | "note" | "withhold" | "remove" | "edge-add" | "edge-remove" | "label" | "same",
  a: number,
  b: number,
];

export const edit: fc.Arbitrary<Edit> = fc.tuple(
  fc.constantFrom("add", "note", "withhold", "remove", "edge-add", "edge-remove", "label", "same"),
  fc.nat(),
  fc.nat(),
) as fc.Arbitrary<Edit>;

/** A sequence: the first source, its edits, and the hours between successive builds (up to 60 days). */
export const sequence = fc.record({
  first: validSource,
  edits: fc.array(edit, { minLength: 1, maxLength: 7 }),
  gaps: fc.array(fc.integer({ min: 1, max: 24 * 60 }), { minLength: 8, maxLength: 8 }),
});

let marker = 0;
/** A fresh public string that no other generated string holds. */
const fresh = (kind: string) => `${kind}MARK${++marker}x`;

/** `first` with every published vault's note and every edge's type a unique marker. */
export function marked(first: JsonObject): JsonObject {
  const vaults = (first["vaults"] as JsonObject[]).map((
    v,
  ) => (v["suppressed"] === true ? v : { ...v, note: fresh("NOTE") }));
  const edges = (first["edges"] as JsonObject[]).map((e) => ({ ...e, type: fresh("EDGE") }));
  return { ...first, vaults, edges };
}

/**
 * Applies `e` to `source`; `forbidden` gains the markers of a vault it withholds or removes: its
 * note and the types of the edges touching it. A withheld vault is never published again, a removed
 * slug never comes back, so those markers stay private for good.
 */
export function applyEdit(source: JsonObject, [kind, a, b]: Edit, forbidden: Set<string>): JsonObject {
  const vaults = [...(source["vaults"] as JsonObject[])];
  let edges = [...(source["edges"] as JsonObject[])];
  const published = vaults.filter((v) => v["suppressed"] !== true);
  const pick = <T>(list: readonly T[], n: number): T | undefined => list[n % Math.max(1, list.length)];
  const hide = (slug: unknown) => {
    const v = vaults.find((x) => x["vault_slug"] === slug);
    if (typeof v?.["note"] === "string") forbidden.add(v["note"]);
    for (const e of edges) if (e["source"] === slug || e["target"] === slug) forbidden.add(e["type"] as string);
  };
  switch (kind) {
    case "add":
      vaults.push({
        vault_slug: `new-${++marker}`,
        display_name: fresh("NAME"),
        status: pick(["active", "pending", "retired"], a),
        note: fresh("NOTE"),
      });
      break;
    case "note": {
      const v = pick(published, a);
      if (v !== undefined) vaults[vaults.indexOf(v)] = { ...v, note: fresh("NOTE") };
      break;
    }
    case "withhold": {
      const v = pick(published, a);
      if (v === undefined) break;
      hide(v["vault_slug"]);
      vaults[vaults.indexOf(v)] = { ...v, suppressed: true };
      break;
    }
    case "remove": {
      const v = pick(vaults, a);
      if (v === undefined) break;
      hide(v["vault_slug"]);
      vaults.splice(vaults.indexOf(v), 1);
      edges = edges.filter((e) => e["source"] !== v["vault_slug"] && e["target"] !== v["vault_slug"]);
      break;
    }
    case "edge-add": {
      const [s, t] = [pick(vaults, a), pick(vaults, b)];
      if (s === undefined || t === undefined) break;
      const type = fresh("EDGE");
      // An edge touching a withheld vault is private from the start.
      if (s["suppressed"] === true || t["suppressed"] === true) forbidden.add(type);
      edges.push({ source: s["vault_slug"], target: t["vault_slug"], type });
      break;
    }
    case "edge-remove": {
      const e = pick(edges, a);
      if (e !== undefined) edges.splice(edges.indexOf(e), 1);
      break;
    }
    case "label": {
      const labels = (source["labels"] as JsonObject | null | undefined) ?? {};
      const status = (labels["status"] as JsonObject | null | undefined) ?? {};
      return {
        ...source,
        vaults,
        edges,
        labels: {
          ...labels,
          status: { ...status, [pick(["active", "pending", "retired"], a) as string]: fresh("LABEL") },
        },
      };
    }
    case "same":
      break;
  }
  return { ...source, vaults, edges };
}

/** One build's outputs and what the next build reads back from them. */
export interface Built {
  readonly document: Registry;
  readonly documentBytes: Uint8Array<ArrayBuffer>;
  readonly feed: ChangeFeed;
  readonly feedBytes: Uint8Array<ArrayBuffer>;
  readonly atomBytes: Uint8Array<ArrayBuffer>;
  /** As the next build reads it: the feed and the document parsed from their bytes. */
  readonly history: History;
  readonly parsed: unknown;
}

/** Builds `raw` at `builtAt` with `previous` as `--previous` does (classified by `registry diff`). */
export async function buildStep(
  raw: JsonObject,
  builtAt: string,
  previous: Built | null,
  limits: FeedLimits = FEED_LIMITS,
): Promise<Built> {
  const result = validateSource(raw);
  if (!result.ok) throw new Error(`a generated source is invalid: ${result.problems.join("; ")}`);
  const document = buildRegistry(result.source, {
    baseUrl: BASE_URL,
    builtAt,
    paths: { canonical: "/vaults.json", versioned: V1.path, schema: V1.schemaPath },
  });
  const documentBytes = serializeRegistry(document);
  const ref = { built_at: builtAt, etag: await strongEtag(documentBytes) };
  const feed = nextFeed(
    PLACE,
    { ref, vaults: document.vaults, edges: document.edges, envelope: envelopeOf(document) },
    previous?.history ?? null,
    () => classifyChange(previous?.parsed, document),
    limits,
  );
  const feedBytes = serializeFeed(feed);
  const parsed = JSON.parse(new TextDecoder().decode(documentBytes)) as Registry;
  const history: History = {
    feed: JSON.parse(new TextDecoder().decode(feedBytes)) as ChangeFeed,
    snapshot: { ref, vaults: parsed.vaults, edges: parsed.edges, envelope: envelopeOf(parsed) },
  };
  return { document, documentBytes, feed, feedBytes, atomBytes: atomFeed(PLACE, feed), history, parsed };
}

/**
 * The items `built`'s feed chooses from, newest first: its build run again with no window and no
 * feed caps (the per-item cap of `limits` stays), so each carried item as this build rewrote it.
 */
export function unwindowedItems(
  built: Built,
  previous: Built | null,
  limits: FeedLimits = FEED_LIMITS,
): ChangeFeed["items"] {
  const open: FeedLimits = {
    ...limits,
    windowDays: Infinity,
    minItems: Infinity,
    maxItems: Infinity,
    feedBytes: Infinity,
  };
  const { snapshot } = built.history;
  return nextFeed(
    PLACE,
    snapshot,
    previous?.history ?? null,
    () => classifyChange(previous?.parsed, built.document),
    open,
  ).items;
}

/** `seconds` after 2026-12-01T00:00:00Z, as a `built_at`. */
export function timeAt(hours: number): string {
  return new Date(Date.parse("2026-12-01T00:00:00Z") + hours * 3_600_000).toISOString().replace(/\.\d+Z$/, "Z");
}
