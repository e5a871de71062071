import type { Encoding } from "../../http/encoding.ts";
import type { Build } from "../../assembly/prepare.ts";
import type { BuildStamp, RouteStamp, VariantStamp } from "../../http/restore.ts";
import type { Variant } from "../../http/responses.ts";

/** The stamp of `build`, offering only `codings` (besides identity) of those the build made. */
export function stampBuild(build: Build, codings: readonly Encoding[]): BuildStamp {
  const bodies: Record<string, { text: string } | { base64: string }> = {};
  const routes: Record<string, RouteStamp> = {};
  const stamp = (v: Variant, binary: boolean): VariantStamp => {
    bodies[v.etag] ??= binary
      ? { base64: Buffer.from(v.body).toString("base64") }
      : { text: Buffer.from(v.body).toString("utf8") };
    return { etag: v.etag, ok: v.ok, notModified: v.notModified };
  };
  for (const [path, resource] of build.routes) {
    const encoded: Partial<Record<Encoding, VariantStamp>> = {};
    for (const coding of codings) {
      const v = resource.encoded[coding];
      if (v !== undefined) encoded[coding] = stamp(v, true);
    }
    // An artifact without codings drops Vary, as a build without a compressor does.
    const identity = Object.keys(encoded).length > 0
      ? stamp(resource.identity, false)
      : withoutVary(stamp(resource.identity, false));
    routes[path] = { lastModified: resource.lastModified, identity, encoded };
  }
  const gone = Object.fromEntries(
    [...build.gone].map((
      [path, p],
    ) => [path, { status: p.status, headers: p.headers, text: Buffer.from(p.body).toString("utf8") }]),
  );
  return { meta: build.meta, routes, gone, bodies };
}

function withoutVary(v: VariantStamp): VariantStamp {
  const drop = (headers: Readonly<Record<string, string>>) =>
    Object.fromEntries(Object.entries(headers).filter(([name]) => name !== "vary"));
  return { etag: v.etag, ok: drop(v.ok), notModified: drop(v.notModified) };
}
