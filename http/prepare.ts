/**
 * One build's answers, precomputed from a validated source and its configuration: the document
 * and schema bytes, each precompressed in every coding on offer, per route. Web standards only.
 */
import type { Config } from "../contract/config.ts";
import { PATHS } from "../contract/paths.ts";
import { registrySchema } from "../contract/schema.ts";
import { buildRegistry, serializeRegistry, type Source } from "../registry.ts";
import type { Compress, Encoding } from "./encoding.ts";
import { prepareResource, withHeaders, type Resource } from "./responses.ts";

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
  /** The strong ETag of the document's identity bytes. */
  readonly etag: string;
}

/** Everything one build serves: each route's resource, and what it was built from. */
export interface Build {
  readonly routes: ReadonlyMap<string, Resource>;
  readonly meta: BuildMeta;
}

/**
 * Precomputes the answers of one build. Without a compressor, only identity is offered.
 * `/vaults.json` carries `Content-Location` naming the versioned path whose bytes it serves.
 *
 * @example
 * const build = await prepareBuild(source, { baseUrl: "https://example.org", builtAt: "2026-11-21T12:00:00Z" });
 */
export async function prepareBuild(source: Source, config: Config, compression: Compression = {}): Promise<Build> {
  const document = buildRegistry(source, config);
  const documentBytes = serializeRegistry(document);
  const schemaBytes = new TextEncoder().encode(`${JSON.stringify(registrySchema(config.baseUrl), null, 2)}\n`);
  const link = `<${config.baseUrl}${PATHS.schema}>; rel="describedby"`;
  const versioned = await prepareResource(documentBytes, "application/json", config.builtAt, { ...compression, headers: { link } });
  const schema = await prepareResource(schemaBytes, "application/schema+json", config.builtAt, compression);
  return {
    routes: new Map([
      [PATHS.canonical, withHeaders(versioned, { "content-location": PATHS.versioned })],
      [PATHS.versioned, versioned],
      [PATHS.schema, schema],
    ]),
    meta: {
      builtAt: config.builtAt,
      baseUrl: config.baseUrl,
      vaultCount: document.vault_count,
      edgeCount: document.edge_count,
      etag: versioned.identity.etag,
    },
  };
}
