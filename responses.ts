/**
 * HTTP representations, computed once per build (DECISIONS.md D7): bytes, strong ETag, headers.
 * A request only picks a precomputed response and evaluates its conditional headers. Web
 * standards only (`crypto.subtle` for the ETag).
 */

/** A resource's precomputed answers. */
export interface Representation {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly etag: string;
  /** Last-Modified as epoch milliseconds, whole seconds. */
  readonly lastModified: number;
  /** Headers of a 200 answer. */
  readonly ok: Readonly<Record<string, string>>;
  /** Headers of a 304 answer. */
  readonly notModified: Readonly<Record<string, string>>;
}

/** The methods every registry address allows. */
export const ALLOWED_METHODS = "GET, HEAD, OPTIONS";

/**
 * Cache policy: the bytes change only when a new build is deployed. Five minutes bounds how long a
 * deploy takes to reach caches; after that a cache revalidates with the ETag and gets a 304, and it
 * may serve the stale copy for a day while it does so or while the origin is down.
 */
export const CACHE_CONTROL = "public, max-age=300, stale-while-revalidate=86400, stale-if-error=86400";

/** Headers every answer carries, errors included: CORS for any origin, and no content sniffing. */
export const COMMON_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "ETag, Link",
  "x-content-type-options": "nosniff",
};

/** The strong ETag of some bytes: the first 128 bits of their SHA-256, in hex, quoted. */
export async function strongEtag(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return `"${Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("")}"`;
}

/** Precomputes a resource's 200 and 304 answers. */
export async function representation(
  body: Uint8Array<ArrayBuffer>,
  contentType: string,
  builtAt: string,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<Representation> {
  const etag = await strongEtag(body);
  const lastModified = Date.parse(builtAt);
  const validators = {
    etag,
    "last-modified": new Date(lastModified).toUTCString(),
    "cache-control": CACHE_CONTROL,
    ...COMMON_HEADERS,
    ...extraHeaders,
  };
  return {
    body,
    etag,
    lastModified,
    ok: { "content-type": contentType, "content-length": String(body.byteLength), ...validators },
    notModified: validators,
  };
}

/**
 * True when a GET or HEAD may be answered 304 (RFC 9110 §13.1): `If-None-Match` by weak
 * comparison against the ETag (`*` matches); only without it, `If-Modified-Since` at or after
 * Last-Modified. A malformed date is ignored.
 */
export function isNotModified(headers: Headers, rep: Representation): boolean {
  const ifNoneMatch = headers.get("if-none-match");
  if (ifNoneMatch !== null) {
    const wanted = rep.etag;
    return ifNoneMatch.split(",").some((raw) => {
      const tag = raw.trim();
      return tag === "*" || tag === wanted || tag === `W/${wanted}`;
    });
  }
  const ifModifiedSince = headers.get("if-modified-since");
  if (ifModifiedSince === null) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && rep.lastModified <= since;
}

/** An RFC 9457 problem document and its headers, precomputed for one status. */
export function problem(status: number, title: string, extraHeaders: Readonly<Record<string, string>> = {}): { body: Uint8Array<ArrayBuffer>; headers: Record<string, string>; status: number } {
  const body = new TextEncoder().encode(`${JSON.stringify({ type: "about:blank", title, status })}\n`);
  return {
    status,
    body,
    headers: {
      "content-type": "application/problem+json",
      "content-length": String(body.byteLength),
      "cache-control": "no-store",
      ...COMMON_HEADERS,
      ...extraHeaders,
    },
  };
}
