/**
 * One build's answers, precomputed from a validated source and its configuration: the document
 * and schema bytes, each precompressed in every coding on offer. Web standards only.
 */
import type { Build } from "./app.ts";
import type { Config } from "../contract/config.ts";
import type { Compress, Encoding } from "./encoding.ts";
import { PATHS } from "../contract/paths.ts";
import { buildRegistry, serializeRegistry, type Source } from "../registry.ts";
import { prepareResource } from "./responses.ts";
import { registrySchema } from "../contract/schema.ts";

/** How a build precompresses: the runtime's compressor and the codings to offer (default all). */
export interface Compression {
  readonly compress?: Compress | undefined;
  readonly encodings?: readonly Encoding[];
}

/**
 * Precomputes the answers of one build. Without a compressor, only identity is offered.
 *
 * @example
 * const app = createApp(await prepareBuild(source, { baseUrl: "https://example.org", builtAt: "2026-11-21T12:00:00Z" }));
 */
export async function prepareBuild(source: Source, config: Config, compression: Compression = {}): Promise<Build> {
  const documentBytes = serializeRegistry(buildRegistry(source, config));
  const schemaBytes = new TextEncoder().encode(`${JSON.stringify(registrySchema(config.baseUrl), null, 2)}\n`);
  const link = `<${config.baseUrl}${PATHS.schema}>; rel="describedby"`;
  return {
    document: await prepareResource(documentBytes, "application/json", config.builtAt, { ...compression, headers: { link } }),
    schema: await prepareResource(schemaBytes, "application/schema+json", config.builtAt, compression),
  };
}
