/** The signed manifest of a build and the public key set, added at build time, never per request. */
import { prepareResource, problem, type Resource } from "../http/responses.ts";
import type { Build } from "../http/table.ts";
import type { Compression } from "../http/encoding.ts";
import { base64, type GeneralJws, keySet, signGeneral, type SigningKey } from "./jws.ts";

/** The media type of a manifest (RFC 7515 §9.2.1: JWS JSON serialization). */
export const MANIFEST_MEDIA_TYPE = "application/jose+json";
/** The media type of the key set (RFC 7517 §8.5). */
export const KEYS_MEDIA_TYPE = "application/jwk-set+json";
/** The `typ` of every manifest signature's protected header. */
export const MANIFEST_TYP = "registry-manifest";
/** Where the public key set is served. */
export const KEYS_PATH = "/api/registry.keys.json";
/** How far ahead of a clock a `built_at` (and so a `seq`) may be, in seconds. */
export const CLOCK_SKEW_S = 300;

/** Where version `n`'s manifest is served. */
export function manifestPath(n: number): string {
  return `/api/registry.v${n}.manifest.json`;
}

/** Where version `n`'s document is served (the table's rule: `/api/registry.v{N}.json`). */
export function documentPath(n: number): string {
  return `/api/registry.v${n}.json`;
}

/** One listed file: the SHA-256 of its identity bytes in hex, its size, and its SRI string. */
export interface ManifestFile {
  readonly sha256: string;
  readonly size: number;
  readonly integrity: string;
}

/** A manifest's payload, members in this order. */
export interface ManifestPayload {
  readonly iss: string;
  readonly version: number;
  readonly seq: number;
  readonly iat: number;
  readonly exp: number;
  readonly files: Readonly<Record<string, ManifestFile>>;
}

/** The listing of some bytes. */
export async function fileEntry(bytes: Uint8Array<ArrayBuffer>): Promise<ManifestFile> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return {
    sha256: Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(""),
    size: bytes.byteLength,
    integrity: `sha256-${base64(digest)}`,
  };
}

/** How a build is signed: when, and for how long. */
export interface SignOptions {
  readonly iat: number;
  /** The signature lifetime in seconds: `exp` = `iat` + this. */
  readonly lifetime: number;
  readonly compression?: Compression;
}

/** The manifests `signBuild` made, by version number: their payloads and bytes. */
export type Manifests = ReadonlyMap<number, { readonly payload: ManifestPayload; readonly bytes: Uint8Array }>;

/**
 * `build` with a manifest per served version, signed by each of `keys`, and the key set; the other answers are the same
 * objects. A file belongs to version N when its path starts with `/api/registry.v{N}.`, and `/vaults.json` belongs to
 * the version whose bytes it serves. `seq` is the build's `built_at` in epoch seconds. The same build, keys and options
 * give the same bytes.
 *
 * @example
 * ```ts
 * import type { Build } from "../http/table.ts";
 * import type { SigningKey } from "./jws.ts";
 * async function signed(build: Build, keys: SigningKey[]): Promise<Build> {
 *   return (await signBuild(build, keys, { iat: 1795000000, lifetime: 7 * 86400 })).build;
 * }
 * ```
 */
export async function signBuild(
  build: Build,
  keys: readonly SigningKey[],
  options: SignOptions,
): Promise<{ build: Build; manifests: Manifests }> {
  if (keys.length === 0) throw new Error("signBuild: no key");
  const { baseUrl, builtAt, canonicalOf } = build.meta;
  const seq = Math.floor(Date.parse(builtAt) / 1000);
  const iatDate = new Date(options.iat * 1000).toISOString();
  // Only the table's answers, which every artifact serves: a file one artifact alone serves (the static export's
  // TypeScript types) is listed by none, so that a manifest lists what is served.
  const files = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const [path, resource] of build.routes) files.set(path, resource.identity.body);
  const versions = [...build.routes.keys()].flatMap((path) => {
    const m = /^\/api\/registry\.v(\d+)\.json$/.exec(path);
    return m === null ? [] : [Number(m[1])];
  }).sort((a, b) => a - b);
  const routes = new Map(build.routes);
  const gone = new Map(build.gone);
  const manifests = new Map<number, { payload: ManifestPayload; bytes: Uint8Array }>();
  for (const n of versions) {
    const prefix = `/api/registry.v${n}.`;
    const listed = [...files.keys()].filter((p) =>
      (p.startsWith(prefix) && p !== manifestPath(n)) || (p === "/vaults.json" && canonicalOf === documentPath(n))
    ).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const entries: Record<string, ManifestFile> = {};
    for (const p of listed) entries[p] = await fileEntry(files.get(p) as Uint8Array<ArrayBuffer>);
    const payload: ManifestPayload = {
      iss: baseUrl,
      version: n,
      seq,
      iat: options.iat,
      exp: options.iat + options.lifetime,
      files: entries,
    };
    const jws: GeneralJws = await signGeneral(new TextEncoder().encode(JSON.stringify(payload)), keys, MANIFEST_TYP);
    const bytes = new TextEncoder().encode(`${JSON.stringify(jws, null, 2)}\n`);
    // Served like the schema: the version's lifecycle signals, Last-Modified = iat.
    const doc = build.routes.get(documentPath(n)) as Resource;
    const signals = Object.fromEntries(
      Object.entries(doc.identity.ok).filter(([name]) => name === "deprecation" || name === "sunset"),
    );
    routes.set(
      manifestPath(n),
      await prepareResource(bytes, MANIFEST_MEDIA_TYPE, iatDate, { ...options.compression, headers: signals }),
    );
    manifests.set(n, { payload, bytes });
  }
  for (const path of build.gone.keys()) {
    const m = /^\/api\/registry\.v(\d+)\.json$/.exec(path);
    if (m !== null) gone.set(manifestPath(Number(m[1])), problem(410, "Gone"));
  }
  const keysBytes = new TextEncoder().encode(`${JSON.stringify(keySet(keys), null, 2)}\n`);
  routes.set(KEYS_PATH, await prepareResource(keysBytes, KEYS_MEDIA_TYPE, iatDate, { ...options.compression }));
  return { build: { routes, gone, meta: build.meta }, manifests };
}
