// A path past its sunset has no file: a static host answers it 404, not 410. The `siblings` are for hosts that choose
// one by `Accept-Encoding` (nginx `gzip_static`, Caddy `precompressed`, @fastify/static `preCompressed`) and for
// uploads that carry each coding's metadata (S3, docs/deploying.md).
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { basePathOf } from "../../http/answer.ts";
import type { Build } from "../../assembly/prepare.ts";
import { JSON_FEED_MEDIA_TYPE } from "../../feed/feed.ts";
import type { Encoding } from "../../http/encoding.ts";
import type { Resource, Variant } from "../../http/responses.ts";
import { feedTypesPath, servedFeedTypesOf, servedTypesOf, typesPath } from "./types.ts";

/** Headers a static host computes on its own (length, validators) or sets itself (Vary, when it compresses). */
const HOST_MADE = ["content-length", "etag", "last-modified", "vary"];

const SIBLINGS = { gzip: ".gz", br: ".br" } as const;

function siblingsOf(resource: Resource): { suffix: string; coding: Encoding; variant: Variant }[] {
  return (Object.keys(SIBLINGS) as Encoding[]).flatMap((coding) => {
    const variant = resource.encoded[coding];
    return variant === undefined ? [] : [{ suffix: SIBLINGS[coding], coding, variant }];
  });
}

const block = (path: string, headers: Readonly<Record<string, string>>): string =>
  [path, ...Object.entries(headers).filter(([name]) => !HOST_MADE.includes(name)).map(([n, v]) => `  ${n}: ${v}`)]
    .join("\n");

/** The `_headers` file of a build: one block per path (under the base URL's path), its identity answer's headers. */
export function staticHeaders(build: Build, options: { siblings?: boolean } = {}): string {
  const prefix = basePathOf(build.meta.baseUrl);
  const blocks = [...build.routes].map(([path, resource]) => block(`${prefix}${path}`, resource.identity.ok));
  if (options.siblings === true) {
    for (const [path, resource] of build.routes) {
      for (const { suffix, variant } of siblingsOf(resource)) {
        blocks.push(block(`${prefix}${path}${suffix}`, variant.ok));
      }
    }
  }
  return `${blocks.join("\n\n")}\n`;
}

/** Writes the static export of `build` into `dir`, under the base URL's path, with types beside each schema, feed. */
export async function writeStatic(dir: string, build: Build, options: { siblings?: boolean } = {}): Promise<void> {
  const routes = routeFilesOf(build, basePathOf(build.meta.baseUrl), options);
  // Written side by side, two files at one path would interleave their bytes: refused before any is written.
  const clash = clashOf([...routes.flat().map((file) => join(dir, file.path)), join(dir, "_headers")]);
  if (clash !== undefined) throw new Error(`static export: two files at ${clash}`);
  // Each route's files are written in turn, the routes side by side (a large document's copies take longest); every
  // write has ended before this returns, failed or not, so that no write outlives a staging folder removed on failure.
  const written = await Promise.allSettled(routes.map(async (files) => {
    // A route's files share its folder.
    await mkdir(dirname(join(dir, (files[0] as RouteFile).path)), { recursive: true });
    for (const file of files) await writeFile(join(dir, file.path), await file.contents());
  }));
  const failed = written.find((w) => w.status === "rejected");
  if (failed !== undefined) throw failed.reason;
  await writeFile(join(dir, "_headers"), staticHeaders(build, options));
}

/** One file of a route: its path under the export's folder, and what it holds, made when it is written. */
interface RouteFile {
  readonly path: string;
  readonly contents: () => Uint8Array | Promise<string>;
}

/** Each route's files, in the order they are written: its identity body, its siblings, the types beside it. */
function routeFilesOf(build: Build, prefix: string, options: { siblings?: boolean }): RouteFile[][] {
  return [...build.routes].map(([route, resource]) => {
    const path = `${prefix}${route}`;
    const type = resource.identity.ok["content-type"];
    const files: RouteFile[] = [{ path, contents: () => resource.identity.body }];
    if (options.siblings === true) {
      for (const { suffix, variant } of siblingsOf(resource)) {
        files.push({
          path: path + suffix,
          contents: () => variant.body,
        });
      }
    }
    if (type === "application/schema+json") {
      const schema = () => JSON.parse(new TextDecoder().decode(resource.identity.body)) as Record<string, unknown>;
      files.push({ path: typesPath(path), contents: () => servedTypesOf(schema(), route) });
    }
    if (type === JSON_FEED_MEDIA_TYPE) {
      files.push({
        path: feedTypesPath(path),
        contents: () => servedFeedTypesOf(documentSchemaOf(build, route), route),
      });
    }
    return files;
  });
}

/** A path given twice, or one inside a folder that is another path, else undefined. */
function clashOf(paths: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const path of paths) {
    if (seen.has(path)) return path;
    seen.add(path);
  }
  for (const path of paths) {
    for (let folder = dirname(path); folder !== dirname(folder); folder = dirname(folder)) {
      if (seen.has(folder)) return path;
    }
  }
  return undefined;
}

/** The document schema served beside a change feed: `/api/registry.v1.changes.json` is beside `/api/registry.v1.schema.json`. */
function documentSchemaOf(build: Build, feedRoute: string): Record<string, unknown> {
  const schema = build.routes.get(feedRoute.replace(/\.changes\.json$/, ".schema.json"));
  if (schema === undefined) throw new Error(`no schema beside ${feedRoute}`);
  return JSON.parse(new TextDecoder().decode(schema.identity.body)) as Record<string, unknown>;
}
