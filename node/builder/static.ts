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
  const prefix = basePathOf(build.meta.baseUrl);
  // Written side by side, two files at one path would interleave their bytes: refused before any is written.
  const clash = clashOf(filesOf(build, prefix, options).map((file) => join(dir, file)));
  if (clash !== undefined) throw new Error(`static export: two files at ${clash}`);
  // Each route's files are written in turn, the routes side by side (a large document's copies take longest); every
  // write has ended before this returns, failed or not, so that no write outlives a staging folder removed on failure.
  const written = await Promise.allSettled([...build.routes].map(async ([route, resource]) => {
    const path = `${prefix}${route}`;
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), resource.identity.body);
    if (options.siblings === true) {
      for (const { suffix, variant } of siblingsOf(resource)) await writeFile(join(dir, path + suffix), variant.body);
    }
    if (resource.identity.ok["content-type"] === "application/schema+json") {
      const schema = JSON.parse(new TextDecoder().decode(resource.identity.body)) as Record<string, unknown>;
      await writeFile(join(dir, typesPath(path)), await servedTypesOf(schema, route));
    }
    if (resource.identity.ok["content-type"] === JSON_FEED_MEDIA_TYPE) {
      await writeFile(join(dir, feedTypesPath(path)), await servedFeedTypesOf(documentSchemaOf(build, route), route));
    }
  }));
  const failed = written.find((w) => w.status === "rejected");
  if (failed !== undefined) throw failed.reason;
  await writeFile(join(dir, "_headers"), staticHeaders(build, options));
}

/** The path of every file `writeStatic` writes under its folder, `_headers` included. */
function filesOf(build: Build, prefix: string, options: { siblings?: boolean }): string[] {
  return [...build.routes].flatMap(([route, resource]) => {
    const path = `${prefix}${route}`;
    const type = resource.identity.ok["content-type"];
    return [
      path,
      ...(options.siblings === true ? siblingsOf(resource).map(({ suffix }) => path + suffix) : []),
      ...(type === "application/schema+json" ? [typesPath(path)] : []),
      ...(type === JSON_FEED_MEDIA_TYPE ? [feedTypesPath(path)] : []),
    ];
  }).concat("_headers");
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
