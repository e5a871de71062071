/** HTTP representations computed once per build (docs/choices.md); a request only picks one and checks conditions. */
import { type Compress, type Encoding, ENCODINGS, negotiator } from "./encoding.ts";

/** One precomputed representation of a resource: its bytes in one content coding, and its answers. */
export interface Variant {
  readonly body: Uint8Array<ArrayBuffer>;
  /** The body as text, where it is known as such without decoding `body` (a restored stamp's identity bodies). */
  readonly text?: string | undefined;
  readonly etag: string;
  readonly ok: Readonly<Record<string, string>>;
  readonly notModified: Readonly<Record<string, string>>;
}

/** A resource: its identity bytes, any precompressed codings, and how to pick one per request. */
export interface Resource {
  readonly identity: Variant;
  readonly encoded: Readonly<Partial<Record<Encoding, Variant>>>;
  /** Last-Modified as epoch milliseconds (whole seconds). */
  readonly lastModified: number;
  select(acceptEncoding: string | null): Variant;
}

/** The methods every registry address allows. */
export const ALLOWED_METHODS = "GET, HEAD, OPTIONS";

/** The cache policy; docs/http.md, "Cache policy", says why these figures. */
export const CACHE_CONTROL = "public, max-age=300, stale-while-revalidate=86400, stale-if-error=86400";

/** Non-safelisted headers some answers send besides ETag, Link and Allow, as they are named when exposed. */
export const EXPOSABLE: Readonly<Record<string, string>> = {
  "content-location": "Content-Location",
  deprecation: "Deprecation",
  sunset: "Sunset",
};

/**
 * `Access-Control-Expose-Headers` naming the non-safelisted headers a browser consumer may read: `ETag, Link, Allow`
 * (`Allow` for the 405), then each header of `EXPOSABLE` that `headers` sends.
 */
export function exposeHeaders(headers: Readonly<Record<string, string>> = {}): string {
  return [
    "ETag, Link, Allow",
    ...Object.keys(EXPOSABLE).filter((name) => name in headers).map((name) => EXPOSABLE[name]),
  ].join(", ");
}

/** `headers` with their `Access-Control-Expose-Headers` derived from what they send. */
function withExposed(headers: Record<string, string>): Record<string, string> {
  return { ...headers, "access-control-expose-headers": exposeHeaders(headers) };
}

/**
 * Headers every answer carries, errors included: CORS for any origin (the data is public and read without credentials),
 * and what a public read-only JSON API should say to browsers: never sniff, never render or frame this as a page, send
 * no referrer, and may be embedded cross-origin. Strict-Transport-Security belongs to whatever terminates TLS, not to
 * this origin.
 */
export const COMMON_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": exposeHeaders(),
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  "cross-origin-resource-policy": "cross-origin",
  "referrer-policy": "no-referrer",
};

/** What a CORS preflight allows besides `Allow`: the methods, the request headers a consumer sends, and for how long. */
export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-methods": ALLOWED_METHODS,
  "access-control-allow-headers": "Accept, Accept-Encoding, If-None-Match, If-Modified-Since, Cache-Control",
  "access-control-max-age": "86400",
};

/** The strong ETag of some bytes: the first 128 bits of their SHA-256, in hex, quoted. */
export async function strongEtag(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `"${Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("")}"`;
}

/**
 * Precomputes a resource's answers: identity, plus each of `encodings` made by `compress`. Each variant has its own
 * strong ETag, from its own bytes; with codings on offer, every answer says `Vary: Accept-Encoding`.
 */
export async function prepareResource(
  body: Uint8Array<ArrayBuffer>,
  contentType: string,
  builtAt: string,
  options: {
    headers?: Readonly<Record<string, string>>;
    compress?: Compress | undefined;
    encodings?: readonly Encoding[];
    /** The identity's ETag, when the caller is already making it (a large body is hashed once). */
    etag?: Promise<string>;
  } = {},
): Promise<Resource> {
  const lastModified = Date.parse(builtAt);
  const encodings = options.compress === undefined ? [] : (options.encodings ?? ENCODINGS);
  const shared = withExposed({
    "last-modified": new Date(lastModified).toUTCString(),
    "cache-control": CACHE_CONTROL,
    ...(encodings.length > 0 ? { vary: "Accept-Encoding" } : {}),
    ...COMMON_HEADERS,
    ...options.headers,
  });
  const variant = async (
    bytes: Uint8Array<ArrayBuffer>,
    coding: Record<string, string>,
    known?: Promise<string>,
  ): Promise<Variant> => {
    const etag = await (known ?? strongEtag(bytes));
    const validators = { etag, ...shared };
    return {
      body: bytes,
      etag,
      ok: { "content-type": contentType, ...coding, "content-length": String(bytes.byteLength), ...validators },
      notModified: validators,
    };
  };
  // Every coding is under way at once, and while the identity's ETag is made.
  const [identity, ...variants] = await Promise.all([
    variant(body, {}, options.etag),
    ...encodings.map(async (encoding) =>
      variant(await (options.compress as Compress)(body, encoding), { "content-encoding": encoding })
    ),
  ]);
  const encoded: Partial<Record<Encoding, Variant>> = {};
  for (const [i, encoding] of encodings.entries()) encoded[encoding] = variants[i] as Variant;
  return { identity, encoded, lastModified, select: selector(identity, encoded, encodings) };
}

/**
 * The same resource with `extra` headers on every answer and the `drop` ones removed; the bodies and ETags are shared.
 */
export function withHeaders(
  resource: Resource,
  extra: Readonly<Record<string, string>>,
  drop: readonly string[],
): Resource {
  const edit = (headers: Readonly<Record<string, string>>) =>
    withExposed({ ...Object.fromEntries(Object.entries(headers).filter(([name]) => !drop.includes(name))), ...extra });
  const add = (v: Variant): Variant => ({
    get body() {
      return v.body;
    },
    etag: v.etag,
    ok: edit(v.ok),
    notModified: edit(v.notModified),
  });
  const identity = add(resource.identity);
  const encoded: Partial<Record<Encoding, Variant>> = {};
  for (const [coding, v] of Object.entries(resource.encoded) as [Encoding, Variant][]) encoded[coding] = add(v);
  const offered = Object.keys(encoded) as Encoding[];
  return { identity, encoded, lastModified: resource.lastModified, select: selector(identity, encoded, offered) };
}

/** Picks, per Accept-Encoding, one of the variants on offer (identity when nothing else fits). */
export function selector(
  identity: Variant,
  encoded: Readonly<Partial<Record<Encoding, Variant>>>,
  offered: readonly Encoding[],
): (acceptEncoding: string | null) => Variant {
  const negotiate = negotiator(offered);
  return (acceptEncoding) => {
    // encoded has no identity entry: identity, or a coding not on offer, is the identity variant.
    return (encoded as Readonly<Partial<Record<string, Variant>>>)[negotiate(acceptEncoding)] ?? identity;
  };
}

/**
 * True when a GET or HEAD may be answered 304 (RFC 9110 §13.1): `If-None-Match` by weak comparison against the selected
 * variant's ETag (`*` matches); only without it, `If-Modified-Since` at or after Last-Modified. Anything but an
 * HTTP-date is ignored.
 */
export function isNotModified(
  header: (name: string) => string | null | undefined,
  variant: Variant,
  lastModified: number,
): boolean {
  const ifNoneMatch = header("if-none-match");
  if (ifNoneMatch !== null && ifNoneMatch !== undefined) {
    const wanted = variant.etag;
    return ifNoneMatch.split(",").some((raw) => {
      const tag = raw.trim();
      return tag === "*" || tag === wanted || tag === `W/${wanted}`;
    });
  }
  const since = header("if-modified-since");
  // No header is no date: not modified. Said before parsing, so that a first request compiles none of httpDate's
  // regular expressions (Lambda's and the Node server's cold start).
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a shortcut; httpDate gives NaN for both anyway
  if (since === null || since === undefined) return false;
  return lastModified <= httpDate(since);
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE =
  /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/**
 * Epoch milliseconds of an HTTP-date in any of RFC 9110's three forms (IMF-fixdate, the obsolete RFC 850 and asctime
 * forms), or NaN for anything else: `Date.parse` would take "3000" or "foo 2099". A two-digit RFC 850 year more than 50
 * years ahead is read as the past century (§5.6.7).
 */
export function httpDate(text: string): number {
  let day: string, month: string, year: number, time: [string, string, string];
  let m = IMF_FIXDATE.exec(text);
  if (m !== null) [day, month, year, time] = [m[1]!, m[2]!, Number(m[3]), [m[4]!, m[5]!, m[6]!]];
  else if ((m = RFC850_DATE.exec(text)) !== null) {
    const now = new Date().getUTCFullYear();
    let full = now - (now % 100) + Number(m[3]);
    if (full > now + 50) full -= 100;
    [day, month, year, time] = [m[1]!, m[2]!, full, [m[4]!, m[5]!, m[6]!]];
  } else if ((m = ASCTIME_DATE.exec(text)) !== null) {
    [day, month, year, time] = [m[2]!, m[1]!, Number(m[6]), [m[3]!, m[4]!, m[5]!]]; // " 6": Number reads it as 6
  } else return Number.NaN;
  const monthIndex = MONTHS.indexOf(month);
  const [h, min, s] = time.map(Number) as [number, number, number];
  // An hour past 23 moves the day, which the day check below refuses.
  if (monthIndex === -1 || min > 59 || s > 60) return Number.NaN;
  // setUTCFullYear, not Date.UTC: the latter reads a year below 100 as 19xx.
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, Number(day));
  date.setUTCHours(h, min, Math.min(s, 59));
  // A day that does not exist in its month (31 Feb) rolls over: refuse it rather than move it.
  return date.getUTCDate() === Number(day) ? date.getTime() : Number.NaN;
}

/** A precomputed error answer. */
export interface Problem {
  readonly status: number;
  readonly body: Uint8Array<ArrayBuffer>;
  readonly headers: Record<string, string>;
}

/** An RFC 9457 problem document and its headers, precomputed for one status. */
export function problem(status: number, title: string, extraHeaders: Readonly<Record<string, string>> = {}): Problem {
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
