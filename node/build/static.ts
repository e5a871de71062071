/**
 * The static export of a build: each served path as a file, and a `_headers` file (the format
 * Netlify and Cloudflare Pages read) giving them the server's headers. A path past its sunset has
 * no file, so a static host answers it 404, not 410. Beside each schema, the TypeScript types
 * generated from it (`types.ts`), and beside each JSON change feed, the types of the feed.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { basePathOf } from "../../http/answer.ts";
import type { Build } from "../../assembly/prepare.ts";
import { JSON_FEED_MEDIA_TYPE } from "../../feed/feed.ts";
import { feedTypesOf, feedTypesPath, typesOf, typesPath } from "./types.ts";

/** Headers a static host computes on its own (length, validators) or sets itself (Vary, when it compresses). */
const HOST_MADE = ["content-length", "etag", "last-modified", "vary"];

/**
 * The `_headers` file of a build: one block per path (with the base URL's path in front, where the
 * files go), its identity answer's headers in order.
 */
export function staticHeaders(build: Build): string {
  const prefix = basePathOf(build.meta.baseUrl);
  const blocks = [...build.routes].map(([path, resource]) =>
    [
      `${prefix}${path}`,
      ...Object.entries(resource.identity.ok).filter(([name]) => !HOST_MADE.includes(name)).map(([n, v]) =>
        `  ${n}: ${v}`
      ),
    ].join("\n")
  );
  return `${blocks.join("\n\n")}\n`;
}

/**
 * Writes the static export of `build` into `dir`, each file where the base URL puts it: a base
 * URL with a path (`https://example.org/registry`) puts them under that path (`registry/`), so
 * that a host serving `dir` at its root answers the base URL's addresses.
 */
export async function writeStatic(dir: string, build: Build): Promise<void> {
  const prefix = basePathOf(build.meta.baseUrl);
  for (const [route, resource] of build.routes) {
    const path = `${prefix}${route}`;
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), resource.identity.body);
    if (resource.identity.ok["content-type"] === "application/schema+json") {
      const schema = JSON.parse(new TextDecoder().decode(resource.identity.body)) as Record<string, unknown>;
      await writeFile(join(dir, typesPath(path)), await typesOf(schema, route));
    }
    if (resource.identity.ok["content-type"] === JSON_FEED_MEDIA_TYPE) {
      await writeFile(join(dir, feedTypesPath(path)), await feedTypesOf(documentSchemaOf(build, route), route));
    }
  }
  await writeFile(join(dir, "_headers"), staticHeaders(build));
}

/** The document schema served beside a change feed: `/api/registry.v1.changes.json` is beside `/api/registry.v1.schema.json`. */
export function documentSchemaOf(build: Build, feedRoute: string): Record<string, unknown> {
  const schema = build.routes.get(feedRoute.replace(/\.changes\.json$/, ".schema.json"));
  if (schema === undefined) throw new Error(`no schema beside ${feedRoute}`);
  return JSON.parse(new TextDecoder().decode(schema.identity.body)) as Record<string, unknown>;
}
