/**
 * One build's answers, precomputed from a validated source and its configuration: for every
 * version the table serves at `built_at`, the document and schema bytes, each precompressed in every
 * coding on offer; for every version past its sunset, a 410. Web standards only.
 */
import type { Config } from "../contract/config.ts";
import { MAX_DOCUMENT_BYTES } from "../contract/limits.ts";
import type { Source } from "../contract/source.ts";
import { basePathOf } from "./answer.ts";
import type { Compress, Encoding } from "./encoding.ts";
import { CANONICAL_PATH, contextOf, planAt, type ContractVersion, type ServedVersion } from "./version-policy.ts";
import { openApiDescription, OPENAPI_MEDIA_TYPE } from "./openapi.ts";
import { prepareResource, problem, withHeaders, type Problem, type Resource } from "./responses.ts";
import { VERSIONS } from "./versions.ts";

/** How a build precompresses: the runtime's compressor and the codings to offer (default all). */
export interface Compression {
  readonly compress?: Compress | undefined;
  readonly encodings?: readonly Encoding[];
}

/** What a start line or a log says about a build. */
export interface BuildMeta {
  readonly builtAt: string;
  readonly baseUrl: string;
  readonly vaultCount: number;
  readonly edgeCount: number;
  /** The strong ETag of the identity bytes `/vaults.json` serves. */
  readonly etag: string;
  /** The versioned path whose bytes `/vaults.json` serves. */
  readonly canonicalOf: string;
}

/** Everything one build serves: each route's resource, each sunset path's 410, and what it was built from. */
export interface Build {
  readonly routes: ReadonlyMap<string, Resource>;
  readonly gone: ReadonlyMap<string, Problem>;
  readonly meta: BuildMeta;
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
 * Precomputes the answers of one build from `table` (default: the shipped versions). Without a
 * compressor, only identity is offered. `/vaults.json` serves the bytes of the version the policy
 * names, with `Content-Location` naming its versioned path. Throws `VersionPolicyError` when the
 * table breaks the policy, and `LimitError` when a document would be over `documentLimit` bytes.
 *
 * @example
 * const build = await prepareBuild(source, { baseUrl: "https://example.org", builtAt: "2026-11-21T12:00:00Z" });
 */
export async function prepareBuild(
  source: Source,
  config: Config,
  compression: Compression = {},
  table: readonly ContractVersion[] = VERSIONS,
  documentLimit: number = MAX_DOCUMENT_BYTES,
): Promise<Build> {
  const plan = planAt(table, config.builtAt);
  if ("problems" in plan) throw new VersionPolicyError(plan.problems);
  const { baseUrl, builtAt } = config;
  const routes = new Map<string, Resource>();
  const gone = new Map<string, Problem>();
  let canonical: { resource: Resource; vaultCount: number; edgeCount: number } | undefined;

  for (const served of plan.ok.served) {
    const { version } = served;
    const context = { ...contextOf(version, config), documentLimit };
    const document = version.build(source, context);
    const schemaBytes = new TextEncoder().encode(`${JSON.stringify(version.schema(context), null, 2)}\n`);
    const signals = lifecycleHeaders(served);
    const describedBy = `<${baseUrl}${version.schemaPath}>; rel="describedby", <${baseUrl}${version.openapiPath}>; rel="service-desc"`;
    const successor = served.successor;
    const docLink = successor === undefined ? describedBy : `${describedBy}, ${successorLink(successor.path, baseUrl)}`;
    const schemaLink = successor === undefined ? {} : { link: successorLink(successor.schemaPath, baseUrl) };
    const openapiLink = successor === undefined ? {} : { link: successorLink(successor.openapiPath, baseUrl) };
    const openapiBytes = new TextEncoder().encode(`${JSON.stringify(openApiDescription(version, baseUrl, version === plan.ok.canonical), null, 2)}\n`);
    const resource = await prepareResource(document.bytes, "application/json", builtAt, { ...compression, headers: { link: docLink, ...signals } });
    const schema = await prepareResource(schemaBytes, "application/schema+json", builtAt, { ...compression, headers: { ...schemaLink, ...signals } });
    routes.set(version.path, resource);
    routes.set(version.schemaPath, schema);
    routes.set(version.openapiPath, await prepareResource(openapiBytes, OPENAPI_MEDIA_TYPE, builtAt, { ...compression, headers: { ...openapiLink, ...signals } }));
    if (version === plan.ok.canonical) canonical = { resource, vaultCount: document.vaultCount, edgeCount: document.edgeCount };
  }
  for (const { version, successor } of plan.ok.gone) {
    for (const [path, next] of [[version.path, successor.path], [version.schemaPath, successor.schemaPath], [version.openapiPath, successor.openapiPath]] as const) {
      gone.set(path, problem(410, "Gone", { link: successorLink(next, baseUrl) }));
    }
  }
  if (canonical === undefined) throw new VersionPolicyError([`v${plan.ok.canonical.number} serves /vaults.json but is not served`]);
  // /vaults.json is not itself deprecated and never sunsets: it moves to the successor instead.
  // Its Content-Location keeps the base URL's path, so that a deployment under /reg points inside itself.
  const canonicalResource = withHeaders(canonical.resource, { "content-location": `${basePathOf(baseUrl)}${plan.ok.canonical.path}` }, ["deprecation", "sunset"]);
  return {
    routes: new Map([[CANONICAL_PATH, canonicalResource], ...routes]),
    gone,
    meta: {
      builtAt,
      baseUrl,
      vaultCount: canonical.vaultCount,
      edgeCount: canonical.edgeCount,
      etag: canonical.resource.identity.etag,
      canonicalOf: plan.ok.canonical.path,
    },
  };
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
