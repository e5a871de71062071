/** One build's answers, precomputed from a validated source and its configuration. */
import type { Config } from "../contract/config.ts";
import { MAX_DOCUMENT_BYTES } from "../contract/limits.ts";
import type { Source } from "../contract/source.ts";
import { basePathOf } from "../http/answer.ts";
import { atomFeed } from "../feed/atom.ts";
import {
  ATOM_MEDIA_TYPE,
  envelopeOf,
  feedPlace,
  type History,
  JSON_FEED_MEDIA_TYPE,
  nextFeed,
  serializeFeed,
  type Snapshot,
} from "../feed/feed.ts";
import { type ChangeClass, type RegistryData, sameData } from "../feed/change.ts";
import type { Compression } from "../http/encoding.ts";
import {
  type BuiltDocument,
  CANONICAL_PATH,
  changesPaths,
  contextOf,
  type ContractVersion,
  type Plan,
  planAt,
  type ServedVersion,
} from "../contract/version-policy.ts";
import { OPENAPI_MEDIA_TYPE, openApiDescription } from "./openapi.ts";
import { prepareResource, type Problem, problem, type Resource, strongEtag, withHeaders } from "../http/responses.ts";
import type { Build } from "../http/table.ts";
import { VERSIONS } from "./versions.ts";

export type { Build, BuildMeta } from "../http/table.ts";

export type { Compression } from "../http/encoding.ts";

/**
 * What the previous build left, for the change feeds (`npm run build -- --previous`): per version number, its document
 * and feed, checked; and the class of a change between two documents, from `registry diff`. Without a previous build of
 * a version, its feed is the first snapshot.
 */
export interface FeedHistory {
  readonly previous?: ReadonlyMap<number, History>;
  /**
   * True when `built_at` came from the clock: a build whose documents would differ from the previous build's only in
   * `built_at`, with the same plan at both instants, then keeps the previous `built_at`, so that it writes the same
   * bytes and publishes nothing new.
   */
  readonly clock?: boolean;
  /** The class of the change from a previous document to this build's. */
  readonly classify?: (before: unknown, after: unknown) => ChangeClass;
  /** The previous documents, parsed, by version number: what `classify` compares with. */
  readonly documents?: ReadonlyMap<number, unknown>;
  /**
   * The bytes of the files the previous build served, by path. When given, a rebuild keeps the previous `built_at` only
   * if every file it serves (documents, schemas, descriptions, feeds) has the same bytes there: each answer's
   * `Last-Modified` is `built_at`, so it moves whenever they do.
   */
  readonly files?: ReadonlyMap<string, { readonly bytes: Uint8Array }>;
}

/** A version table that breaks the policy, or a `built_at` at which nothing is published. */
export class VersionPolicyError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(problems.join("\n"));
    this.name = "VersionPolicyError";
    this.problems = problems;
  }
}

/**
 * Precomputes the answers of one build from `table` (default: the shipped versions). Without a compressor, only
 * identity is offered. `/vaults.json` serves the bytes of the version the policy names, with `Content-Location` naming
 * its versioned path. Throws `VersionPolicyError` when the table breaks the policy, and `LimitError` when a document
 * would be over `documentLimit` bytes.
 *
 * @example
 * ```ts
 * import type { Source } from "../contract/source.ts";
 * async function etagOf(source: Source): Promise<string> {
 *   const build = await prepareBuild(source, { baseUrl: "https://example.org", builtAt: "2026-11-21T12:00:00Z" });
 *   return build.meta.etag;
 * }
 * ```
 */
export async function prepareBuild(
  source: Source,
  config: Config,
  compression: Compression = {},
  table: readonly ContractVersion[] = VERSIONS,
  documentLimit: number = MAX_DOCUMENT_BYTES,
  history: FeedHistory = {},
): Promise<Build> {
  const settled = await settle(source, config, table, documentLimit, history);
  const kept = await assemble(settled, compression, documentLimit, history);
  // Every answer's Last-Modified is built_at: a kept built_at must not date bytes that changed (a schema or description
  // of a newer release), or an If-Modified-Since client keeps the old ones.
  if (settled.instead === undefined || sameFiles(kept, history.files)) return kept;
  return assemble(settled.instead, compression, documentLimit, history);
}

/**
 * True when `files` is given and every path `build` serves (but `/vaults.json`, the bytes of a versioned document) has
 * its bytes there.
 */
function sameFiles(build: Build, files: FeedHistory["files"]): boolean {
  if (files === undefined) return true;
  return [...build.routes].every(([path, resource]) => {
    if (path === CANONICAL_PATH) return true;
    const before = files.get(path)?.bytes;
    const after = resource.identity.body;
    return before !== undefined && before.byteLength === after.byteLength && before.every((b, i) => b === after[i]);
  });
}

/** The answers of a settled build (see `prepareBuild`). */
async function assemble(
  settled: Settled,
  compression: Compression,
  documentLimit: number,
  history: FeedHistory,
): Promise<Build> {
  const { plan, documents } = settled;
  const { baseUrl, builtAt } = settled.config;
  const routes = new Map<string, Resource>();
  const gone = new Map<string, Problem>();

  for (const served of plan.served) {
    const { version } = served;
    const context = { ...contextOf(version, settled.config), documentLimit };
    const document = documents.get(version.number) as BuiltDocument;
    const schemaBytes = new TextEncoder().encode(`${JSON.stringify(version.schema(context), null, 2)}\n`);
    const signals = lifecycleHeaders(served);
    const describedBy =
      `<${baseUrl}${version.schemaPath}>; rel="describedby", <${baseUrl}${version.openapiPath}>; rel="service-desc"`;
    const successor = served.successor;
    const feeds = changesPaths(version);
    const alternates =
      `<${baseUrl}${feeds.json}>; rel="alternate"; type="${JSON_FEED_MEDIA_TYPE}", <${baseUrl}${feeds.atom}>; rel="alternate"; type="${ATOM_MEDIA_TYPE}"`;
    const docLink = successor === undefined
      ? `${describedBy}, ${alternates}`
      : `${describedBy}, ${alternates}, ${successorLink(successor.path, baseUrl)}`;
    const schemaLink = successor === undefined ? {} : { link: successorLink(successor.schemaPath, baseUrl) };
    const openapiLink = successor === undefined ? {} : { link: successorLink(successor.openapiPath, baseUrl) };
    const openapiBytes = new TextEncoder().encode(
      `${JSON.stringify(openApiDescription(version, baseUrl, version === plan.canonical), null, 2)}\n`,
    );
    // The document's codings are made while its feeds are, which need only its identity ETag (a hash takes a tenth of
    // the time of the codings of a large document).
    const hashing = strongEtag(document.bytes);
    const preparing = prepareResource(document.bytes, "application/json", builtAt, {
      ...compression,
      headers: { link: docLink, ...signals },
      etag: hashing,
    });
    // Should the feeds throw first, a failed coding is not left unhandled; Promise.all below sees it.
    preparing.catch(() => undefined);
    const etag = await hashing;
    const place = feedPlace(version.number, baseUrl, version.path, feeds);
    const previous = history.previous?.get(version.number) ?? null;
    const before = history.documents?.get(version.number);
    const classify = () => {
      if (history.classify === undefined || before === undefined) {
        throw new Error(`v${version.number}: a previous build is given, but no way to classify the change`);
      }
      return history.classify(before, document.document);
    };
    const current = {
      ref: { built_at: builtAt, etag },
      vaults: document.document.vaults,
      edges: document.document.edges,
      envelope: envelopeOf(document.document),
    };
    if (
      previous !== null && previous.snapshot.ref.built_at === builtAt && previous.snapshot.ref.etag !== current.ref.etag
    ) {
      throw new Error(
        `v${version.number}: the previous build has this built_at (${builtAt}) but other bytes: build at a later time`,
      );
    }
    const feed = nextFeed(place, current, previous, classify);
    const feedLink = successor === undefined ? {} : { link: successorLink(changesPaths(successor).json, baseUrl) };
    const atomLink = successor === undefined ? {} : { link: successorLink(changesPaths(successor).atom, baseUrl) };
    const [resource, schema, openapi, feedJson, feedAtom] = await Promise.all([
      preparing,
      prepareResource(schemaBytes, "application/schema+json", builtAt, {
        ...compression,
        headers: { ...schemaLink, ...signals },
      }),
      prepareResource(openapiBytes, OPENAPI_MEDIA_TYPE, builtAt, {
        ...compression,
        headers: { ...openapiLink, ...signals },
      }),
      prepareResource(serializeFeed(feed), JSON_FEED_MEDIA_TYPE, builtAt, {
        ...compression,
        headers: { ...feedLink, ...signals },
      }),
      prepareResource(atomFeed(place, feed), ATOM_MEDIA_TYPE, builtAt, {
        ...compression,
        headers: { ...atomLink, ...signals },
      }),
    ]);
    routes.set(version.path, resource);
    routes.set(version.schemaPath, schema);
    routes.set(version.openapiPath, openapi);
    routes.set(feeds.json, feedJson);
    routes.set(feeds.atom, feedAtom);
  }
  for (const { version, successor } of plan.gone) {
    const [feeds, later] = [changesPaths(version), changesPaths(successor)];
    for (
      const [path, next] of [
        [version.path, successor.path],
        [version.schemaPath, successor.schemaPath],
        [version.openapiPath, successor.openapiPath],
        [feeds.json, later.json],
        [feeds.atom, later.atom],
      ] as const
    ) {
      gone.set(path, problem(410, "Gone", { link: successorLink(next, baseUrl) }));
    }
  }
  // /vaults.json is not itself deprecated and never sunsets: it moves to the successor instead. Its Content-Location
  // keeps the base URL's path, so that a deployment under /reg points inside itself. The canonical version is always
  // served: a version sunsets 90 days or more after its successor's publication, by when the successor is canonical.
  const canonical = documents.get(plan.canonical.number) as BuiltDocument;
  const canonicalResource = withHeaders(routes.get(plan.canonical.path) as Resource, {
    "content-location": `${basePathOf(baseUrl)}${plan.canonical.path}`,
  }, ["deprecation", "sunset"]);
  return {
    routes: new Map([[CANONICAL_PATH, canonicalResource], ...routes]),
    gone,
    meta: {
      builtAt,
      baseUrl,
      vaultCount: canonical.vaultCount,
      edgeCount: canonical.edgeCount,
      etag: canonicalResource.identity.etag,
      canonicalOf: plan.canonical.path,
    },
  };
}

/** What a build is made of: its configuration, plan and documents; `instead`, those at the clock, when the previous `built_at` was kept. */
interface Settled {
  readonly config: Config;
  readonly plan: Plan;
  readonly documents: Map<number, BuiltDocument>;
  readonly instead?: Settled;
}

/**
 * The plan and documents to build with: at `config.builtAt`, or at the previous build's `built_at` when `history.clock`
 * is set, every served version's previous build is given with that one `built_at`, the plan is the same at both
 * instants, and each document built then is the previous one's bytes (its vaults and edges are compared first, so a
 * build with changes builds once).
 */
async function settle(
  source: Source,
  config: Config,
  table: readonly ContractVersion[],
  documentLimit: number,
  history: FeedHistory,
): Promise<Settled> {
  const at = (builtAt: string) => {
    const plan = planAt(table, builtAt);
    if ("problems" in plan) throw new VersionPolicyError(plan.problems);
    return { config: { ...config, builtAt }, plan: plan.ok };
  };
  const build = ({ config, plan }: { config: Config; plan: Plan }) =>
    new Map(plan.served.map(({ version }) => [
      version.number,
      version.build(source, { ...contextOf(version, config), documentLimit }),
    ]));
  const now = at(config.builtAt);
  const documents = build(now);
  const previous = now.plan.served.map(({ version }) => history.previous?.get(version.number)?.snapshot);
  const then = previous[0]?.ref.built_at;
  if (
    history.clock !== true || then === undefined || then >= config.builtAt ||
    previous.some((p) => p?.ref.built_at !== then) ||
    now.plan.served.some(({ version }, i) =>
      !sameData(previous[i] as Snapshot, documents.get(version.number)?.document as RegistryData)
    )
  ) {
    return { ...now, documents };
  }
  const earlier = at(then);
  if (planKey(earlier.plan) !== planKey(now.plan)) return { ...now, documents };
  const kept = build(earlier);
  const etags = await Promise.all(
    earlier.plan.served.map(({ version }) => strongEtag((kept.get(version.number) as BuiltDocument).bytes)),
  );
  const same = etags.every((etag, i) => etag === previous[i]?.ref.etag);
  return same ? { ...earlier, documents: kept, instead: { ...now, documents } } : { ...now, documents };
}

/**
 * What a plan decides, as text. Of one table, the versions served and the canonical one are enough: the newest
 * published version is always served (a sunset needs a published successor), so the served ones name every published
 * one, hence the gone ones, and each one's signals come from the table.
 */
export function planKey(plan: Plan): string {
  return JSON.stringify([plan.served.map((s) => s.version.number), plan.canonical.number]);
}

/** `Deprecation` and `Sunset` of a served version: none until its successor is published. */
function lifecycleHeaders(served: ServedVersion): Record<string, string> {
  return {
    ...(served.deprecation !== undefined ? { deprecation: served.deprecation } : {}),
    ...(served.sunset !== undefined ? { sunset: served.sunset } : {}),
  };
}

function successorLink(path: string, baseUrl: string): string {
  return `<${baseUrl}${path}>; rel="successor-version"`;
}
