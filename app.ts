/**
 * The HTTP app: the registry's addresses over precomputed representations (DECISIONS.md D7).
 * One Hono app serves every runtime; nothing is serialized, hashed or assembled per request.
 */
import { HonoBase as Hono } from "hono/hono-base";
import { RegExpRouter } from "hono/router/reg-exp-router";
import type { Config } from "./config.ts";
import { buildRegistry, PATHS, serializeRegistry, type Source } from "./registry.ts";
import type { Compress, Encoding } from "./encoding.ts";
import { ALLOWED_METHODS, COMMON_HEADERS, isNotModified, prepareResource, problem, type Resource } from "./responses.ts";
import { registrySchema } from "./schema.ts";

/** Everything one build serves: the document's bytes and the schema's, with their answers. */
export interface Build {
  readonly document: Resource;
  readonly schema: Resource;
}

/** How a build precompresses: the runtime's compressor and the codings to offer (default all). */
export interface Compression {
  readonly compress?: Compress | undefined;
  readonly encodings?: readonly Encoding[];
}

/**
 * Precomputes the answers of one build from a validated source and its configuration, with each
 * body precompressed in every coding on offer when a compressor is given.
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

const PREFLIGHT_HEADERS = {
  ...COMMON_HEADERS,
  allow: ALLOWED_METHODS,
  "access-control-allow-methods": ALLOWED_METHODS,
  "access-control-allow-headers": "Accept, Accept-Encoding, If-None-Match, If-Modified-Since, Cache-Control",
  "access-control-max-age": "86400",
};
const METHOD_NOT_ALLOWED = problem(405, "Method Not Allowed", { allow: ALLOWED_METHODS });
const NOT_FOUND = problem(404, "Not Found");
const INTERNAL_ERROR = problem(500, "Internal Server Error");

/**
 * Makes the app that serves `build`: `/vaults.json` and `/api/registry.v1.json` (identical bytes)
 * and `/api/registry.v1.schema.json`.
 *
 * @example
 * const app = createApp(await prepareBuild(source, { baseUrl, builtAt }));
 * const res = await app.request("/vaults.json");
 */
export function createApp(build: Build): Hono {
  // RegExpRouter matches paths exactly; the tiny and quick presets' routers also accept a trailing slash.
  const app = new Hono({ router: new RegExpRouter() });
  const routes: [string, Resource][] = [
    [PATHS.canonical, build.document],
    [PATHS.versioned, build.document],
    [PATHS.schema, build.schema],
  ];
  for (const [path, resource] of routes) {
    // Hono answers HEAD from the GET route, keeping the headers and dropping the body.
    app.get(path, (c) => {
      const headers = c.req.raw.headers;
      const variant = resource.select(headers.get("accept-encoding"));
      return isNotModified(headers, variant, resource.lastModified)
        ? new Response(null, { status: 304, headers: variant.notModified })
        : new Response(variant.body, { status: 200, headers: variant.ok });
    });
    app.options(path, () => new Response(null, { status: 204, headers: PREFLIGHT_HEADERS }));
    app.all(path, () => respond(METHOD_NOT_ALLOWED));
  }
  app.notFound(() => respond(NOT_FOUND));
  app.onError(() => respond(INTERNAL_ERROR));
  return app;
}

function respond(answer: ReturnType<typeof problem>): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
