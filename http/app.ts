/**
 * The HTTP app: the registry's addresses over precomputed resources (DECISIONS.md D7). One Hono
 * app serves every runtime; a request only looks its path up, picks a variant and checks its
 * validators. Nothing is serialized, hashed or assembled per request.
 */
import { HonoBase as Hono } from "hono/hono-base";
import { LinearRouter } from "hono/router/linear-router";
import { PATHS } from "../contract/paths.ts";
import { ALLOWED_METHODS, COMMON_HEADERS, isNotModified, problem, type Problem, type Resource } from "./responses.ts";

/** Everything one build serves: the document and its schema, with their answers. */
export interface Build {
  readonly document: Resource;
  readonly schema: Resource;
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
 * and `/api/registry.v1.schema.json`. Paths match exactly (a trailing slash is another path).
 *
 * @example
 * const app = createApp(await prepareBuild(source, { baseUrl, builtAt }));
 * const res = await app.request("/vaults.json");
 */
export function createApp(build: Build): Hono {
  const resources = new Map<string, Resource>([
    [PATHS.canonical, build.document],
    [PATHS.versioned, build.document],
    [PATHS.schema, build.schema],
  ]);
  // One catch-all route and a Map: the three paths are static, so no router needs to do more.
  const app = new Hono({ router: new LinearRouter() });
  app.all("*", (c) => answer(c.req.raw, resources.get(c.req.path)));
  app.onError(() => respond(INTERNAL_ERROR));
  return app;
}

function answer(request: Request, resource: Resource | undefined): Response {
  if (resource === undefined) return respond(NOT_FOUND);
  switch (request.method) {
    case "GET":
    case "HEAD": {
      // For HEAD, Hono keeps these headers and drops the body.
      const headers = request.headers;
      const variant = resource.select(headers.get("accept-encoding"));
      return isNotModified(headers, variant, resource.lastModified)
        ? new Response(null, { status: 304, headers: variant.notModified })
        : new Response(variant.body, { status: 200, headers: variant.ok });
    }
    case "OPTIONS":
      return new Response(null, { status: 204, headers: PREFLIGHT_HEADERS });
    default:
      return respond(METHOD_NOT_ALLOWED);
  }
}

function respond(answer: Problem): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
