/**
 * The static export of a build: each served path as a file, and a `_headers` file (the format
 * Netlify and Cloudflare Pages read) giving them the server's headers. A path past its sunset has
 * no file, so a static host answers it 404, not 410. Beside each schema, the TypeScript types
 * generated from it (`types.ts`).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Build } from "../../http/prepare.ts";
import { typesOf, typesPath } from "./types.ts";

/** Headers a static host computes on its own (length, validators) or sets itself (Vary, when it compresses). */
const HOST_MADE = ["content-length", "etag", "last-modified", "vary"];

/** The `_headers` file of a build: one block per path, its identity answer's headers in order. */
export function staticHeaders(build: Build): string {
  const blocks = [...build.routes].map(([path, resource]) =>
    [path, ...Object.entries(resource.identity.ok).filter(([name]) => !HOST_MADE.includes(name)).map(([n, v]) => `  ${n}: ${v}`)].join("\n"),
  );
  return `${blocks.join("\n\n")}\n`;
}

/** Writes the static export of `build` into `dir`. */
export async function writeStatic(dir: string, build: Build): Promise<void> {
  for (const [path, resource] of build.routes) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), resource.identity.body);
    if (resource.identity.ok["content-type"] === "application/schema+json") {
      const schema = JSON.parse(new TextDecoder().decode(resource.identity.body)) as Record<string, unknown>;
      await writeFile(join(dir, typesPath(path)), await typesOf(schema, path));
    }
  }
  await writeFile(join(dir, "_headers"), staticHeaders(build));
}
