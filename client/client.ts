/**
 * The consumer kit (`registry-endpoint/client`). Web standards only (fetch, crypto.subtle, TextEncoder): it runs on
 * Node, Deno, Bun, Workers and in browsers. `catchUp` works on values; `sync` does the HTTP.
 */
import { sentUrl } from "../contract/config.ts";
import { isObject } from "../contract/json.ts";
import type { Edge, Registry, Row } from "../contract/document.ts";
import { MAX_DOCUMENT_BYTES, sizeOf } from "../contract/limits.ts";
import { boundedFetch, readCapped } from "./bounds.ts";
import type { RegistryChange } from "../feed/change.ts";
import { type ChangeFeed, FEED_LIMITS } from "../feed/feed.ts";
import { catchUp as catchUpRule } from "../feed/history.ts";
import { strongEtag } from "../http/responses.ts";
import { verifyGeneral, verifyingKeys } from "../assembly/jws.ts";
import { CLOCK_SKEW_S, documentPath, fileEntry, MANIFEST_TYP, type ManifestFile } from "../assembly/manifest.ts";

export type { ChangeFeed } from "../feed/feed.ts";
export type { Registry } from "../contract/document.ts";
export type { ManifestFile } from "../assembly/manifest.ts";

/** Why a copy cannot be caught up from a feed, as `feed/history.ts` says (and `sync` adds `no copy`). */
export type RefetchWhy = "unknown" | "resync" | "broken";

/** What the catch-up rule says of a copy, with the new document when the feed carries it there. */
export type CatchUpResult =
  | { readonly kind: "current" }
  | { readonly kind: "updated"; readonly bytes: Uint8Array<ArrayBuffer>; readonly document: Registry }
  | { readonly kind: "wait" }
  | { readonly kind: "refetch"; readonly why: RefetchWhy };

/**
 * Catches `copy` (the exact bytes of a v1 document, or their text) up by `feed` (the parsed JSON feed): `current`;
 * `updated`, with the new document's exact bytes (those the server serves) and the document; `wait` (the feed is older
 * than the copy: ask again later); or `refetch` the document (`unknown`: no item starts at the copy, or it is not a
 * document; `resync`: an item on the way is too large to list; `broken`: the items do not form a chain, or the result
 * is not the document the newest item names). Throws a TypeError when `feed` is not a change feed.
 *
 * @example
 * ```ts
 * async function refresh(copy: Uint8Array, feed: ChangeFeed): Promise<Uint8Array | "refetch"> {
 *   const next = await catchUp(copy, feed);
 *   if (next.kind === "updated") return next.bytes;
 *   return next.kind === "refetch" ? "refetch" : copy;
 * }
 * ```
 */
export async function catchUp(copy: Uint8Array | string, feed: ChangeFeed): Promise<CatchUpResult> {
  const changes = changesOf(feed);
  const bytes = typeof copy === "string" ? new TextEncoder().encode(copy) : new Uint8Array(copy);
  const held = parseDocument(bytes);
  if (held === undefined) return { kind: "refetch", why: "unknown" };
  const ref = { built_at: held.built_at, etag: await strongEtag(bytes) };
  const next = catchUpRule<Row, Edge>(held, ref, changes);
  if (next.kind !== "apply") return next;
  const document = { ...next.envelope, vaults: next.data.vaults, edges: next.data.edges } as unknown as Registry;
  let out: Uint8Array<ArrayBuffer>;
  try {
    out = new TextEncoder().encode(`${JSON.stringify(document, null, 2)}\n`);
  } catch {
    // An envelope nested past the stack is no document a build wrote.
    return { kind: "refetch", why: "broken" };
  }
  // The bytes are the server's exactly when their ETag is the one the newest item names.
  if (await strongEtag(out) !== next.to.etag) return { kind: "refetch", why: "broken" };
  return { kind: "updated", bytes: out, document };
}

/** The bounds and state of one `sync`. */
export interface SyncOptions {
  /** The `feedEtag` the previous `sync` returned: sent as `If-None-Match`. */
  readonly feedEtag?: string | null;
  /** Each request's limit, headers to last byte, in ms (default 30,000). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** What one `sync` did: every kind carries the feed's ETag to pass to the next, and the requests made. */
export type SyncResult =
  & { readonly feedEtag: string | null; readonly requests: number }
  & (
    /** The feed answered 304: nothing changed since `feedEtag`; keep the copy. */
    | { readonly kind: "unchanged" }
    | { readonly kind: "current" }
    | { readonly kind: "wait" }
    | { readonly kind: "updated"; readonly bytes: Uint8Array<ArrayBuffer>; readonly document: Registry }
    | {
      readonly kind: "fetched";
      readonly why: "no copy" | RefetchWhy;
      readonly bytes: Uint8Array<ArrayBuffer>;
      readonly document: Registry;
    }
  );

/** A request that failed: the message is one line naming the request by host and path. */
export class SyncError extends Error {
  override name = "SyncError";
}

/** Each request's default limit, headers to last byte. */
export const SYNC_TIMEOUT_MS = 30_000;
/** The most redirects followed, each within the base URL's origin. */
const MAX_REDIRECTS = 5;

/**
 * Brings `copy` (the exact bytes of the document, none on the first call) up to date from the deployment at `baseUrl`
 * (its base URL, path included): a GET of `/api/registry.v1.changes.json`, conditional on `options.feedEtag`, then
 * `/api/registry.v1.json` only when there is no copy or `catchUp` says refetch. Pass the result's `feedEtag` to the
 * next call: when nothing changed, that call is one request, answered 304. Bounds: each request `options.timeoutMs`
 * (default `SYNC_TIMEOUT_MS`, 30 s, headers to last byte); the feed's body at most `FEED_LIMITS.feedBytes` (4 MiB), the
 * document's at most `MAX_DOCUMENT_BYTES` (128 MiB); at most 5 redirects, each within the base URL's origin. Throws a
 * `SyncError` on any failure (a status other than 200 or 304, a timeout, a body over its cap, a redirect to another
 * origin, a body that is not a feed or a document), in one line naming the request by host and path: never a user name,
 * query or fragment.
 *
 * @example
 * ```ts
 * async function poll(base: string, copy?: Uint8Array, feedEtag?: string | null) {
 *   const result = await sync(base, copy, { feedEtag: feedEtag ?? null, timeoutMs: 10_000 });
 *   const bytes = result.kind === "updated" || result.kind === "fetched" ? result.bytes : copy;
 *   return { bytes, feedEtag: result.feedEtag, again: result.kind === "wait" };
 * }
 * ```
 */
export async function sync(
  baseUrl: string,
  copy?: Uint8Array | string,
  options: SyncOptions = {},
): Promise<SyncResult> {
  const base = baseOf(baseUrl);
  const o = { timeoutMs: options.timeoutMs ?? SYNC_TIMEOUT_MS, signal: options.signal, requests: 0 };
  const conditional = copy !== undefined && typeof options.feedEtag === "string";
  const feedAnswer = await get(`${base}/api/registry.v1.changes.json`, FEED_LIMITS.feedBytes, o, {
    accept: "application/feed+json",
    ...(conditional ? { "if-none-match": options.feedEtag as string } : {}),
  }, conditional);
  if (feedAnswer.status === 304) {
    return { kind: "unchanged", feedEtag: feedAnswer.etag ?? options.feedEtag ?? null, requests: o.requests };
  }
  const feedEtag = feedAnswer.etag;
  const feed = parse(feedAnswer.body);
  if (changesOf(feed, false) === undefined) {
    throw new SyncError(`GET ${feedAnswer.shown}: not a registry change feed (JSON Feed 1.1 with _registry items)`);
  }
  const next = copy === undefined
    ? { kind: "refetch" as const, why: "no copy" as const }
    : await catchUp(copy, feed as ChangeFeed);
  if (next.kind !== "refetch") return { ...next, feedEtag, requests: o.requests };
  const answer = await get(`${base}/api/registry.v1.json`, MAX_DOCUMENT_BYTES, o, { accept: "application/json" });
  const document = parseDocument(answer.body);
  if (document === undefined) {
    throw new SyncError(`GET ${answer.shown}: not a registry document (a JSON object with built_at, vaults and edges)`);
  }
  return { kind: "fetched", why: next.why, bytes: answer.body, document, feedEtag, requests: o.requests };
}

/** The base URL without its trailing slash, or a SyncError that does not quote it. */
function baseOf(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    // Said below.
  }
  if (
    // A query or fragment, even an empty one, is in the text: the URL drops an empty one.
    url === undefined || !["http:", "https:"].includes(url.protocol) || url.username !== "" || url.password !== "" ||
    /[?#]/.test(raw)
  ) {
    throw new SyncError(
      "sync: the base URL must be an http: or https: URL without a user name, password, query or fragment",
    );
  }
  return url.href.replace(/\/+$/, "");
}

type Got = { status: number; etag: string | null; body: Uint8Array<ArrayBuffer>; shown: string };

/** A bounded GET: 200 (or 304 when `conditional`), same-origin redirects followed, the body read within `cap`. */
async function get(
  url: string,
  cap: number,
  o: { timeoutMs: number; signal: AbortSignal | undefined; requests: number },
  headers: Record<string, string>,
  conditional = false,
): Promise<Got> {
  const origin = new URL(url).origin;
  let at = url;
  for (let hops = 0;; hops++) {
    // Host and path only: `at` may be a server's redirect, whose user name, query or fragment no message names.
    const shown = `${new URL(at).host}${new URL(at).pathname}`;
    const fail = (what: string) => new SyncError(`GET ${shown}: ${what}`);
    const failed = (error: unknown, timedOut: boolean) =>
      error instanceof SyncError ? error : fail(
        o.signal?.aborted
          ? "aborted"
          : timedOut
          ? `no complete answer within ${o.timeoutMs / 1000} s`
          : `no answer (${causeOf(error)})`,
      );
    o.requests++;
    const bounds = { method: "GET", headers, timeoutMs: o.timeoutMs, signal: o.signal, failed };
    const got = await boundedFetch(at, bounds, async (res) => {
      const location = res.headers.get("location");
      if ([301, 302, 303, 307, 308].includes(res.status) || res.type === "opaqueredirect") {
        await res.body?.cancel().catch(() => {});
        const to = location === null ? null : new URL(location, at);
        if (to === null) throw fail(`HTTP ${res.status}, a redirect to an address it does not show: not followed`);
        if (to.origin !== origin) {
          throw fail(`HTTP ${res.status}, a redirect to another origin (${sentUrl(location, at)}): not followed`);
        }
        if (hops >= MAX_REDIRECTS) throw fail(`more than ${MAX_REDIRECTS} redirects`);
        return to.href;
      }
      if (!(res.status === 200 || (conditional && res.status === 304))) {
        await res.body?.cancel().catch(() => {});
        throw fail(`HTTP ${res.status}, expected 200${conditional ? " or 304" : ""}`);
      }
      // A 304 has no body: read, it is empty.
      const tooLarge = (size: string) => fail(`the body is ${size}; the client reads at most ${sizeOf(cap)}`);
      const body = await readCapped(res, cap, tooLarge);
      return { status: res.status, etag: res.headers.get("etag"), body, shown };
    });
    if (typeof got !== "string") return got;
    at = got;
  }
}

/** A failed fetch's cause in a few words: its code, or its message's first line without any URL. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = cause?.code ?? (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  const message = typeof cause?.message === "string"
    ? cause.message
    : error instanceof Error
    ? error.message
    : String(error);
  return (message.split("\n")[0] as string).replace(/[a-z][a-z0-9+.-]*:\/\/\S*/gi, "a URL").slice(0, 160);
}

/** JSON from text or UTF-8 bytes, or undefined. */
function parse(text: Uint8Array | string): unknown {
  try {
    return JSON.parse(typeof text === "string" ? text : new TextDecoder("utf-8", { fatal: true }).decode(text));
  } catch {
    return undefined;
  }
}

/** The document in `bytes` as far as catching up reads it (`built_at`, `vaults`, `edges`), or undefined. */
function parseDocument(bytes: Uint8Array): Registry | undefined {
  const value = parse(bytes);
  const ok = isObject(value) && typeof value["built_at"] === "string" && isArrayOf(value["vaults"], isRow) &&
    isArrayOf(value["edges"], isEdge);
  return ok ? value as unknown as Registry : undefined;
}

/** What a consumer expects of a manifest, and what it accepted last for this (`iss`, `version`). */
export interface ManifestExpectation {
  /** The deployment's base URL: the manifest's `iss`. */
  readonly baseUrl: string;
  /** The contract version read (a `/vaults.json` reader takes it from the document's `schema_version`). */
  readonly version: number;
  /** The `seq` last accepted: a lower one is a rollback. */
  readonly lastSeq?: number;
  /** The SHA-256 (hex) of the versioned document last accepted: at the same `seq`, another is equivocation. */
  readonly lastSha256?: string;
  /** The `filesSha256` last accepted: at the same `seq`, another is equivocation (without it, only `lastSha256`). */
  readonly lastFilesSha256?: string;
  /** The `iat` last accepted: at the same `seq`, a lower one is a rollback (an older signature replayed). */
  readonly lastIat?: number;
  /** Now, epoch seconds (default: the clock); null judges neither age nor signing time (a build re-signing). */
  readonly now?: number | null;
}

/** Why a manifest is refused. */
export type ManifestFailure = "signature" | "issuer" | "rollback" | "equivocation" | "expired" | "malformed";

/** A manifest's verdict: the files it lists (path to SHA-256, size, SRI string), or why it is refused. */
export type ManifestResult =
  | {
    readonly ok: true;
    readonly seq: number;
    readonly iat: number;
    readonly exp: number;
    readonly files: Readonly<Record<string, ManifestFile>>;
    /** `filesDigest(files)`: keep it as the next call's `lastFilesSha256`. */
    readonly filesSha256: string;
  }
  | { readonly ok: false; readonly reason: ManifestFailure; readonly detail: string };

/**
 * Checks a signed manifest (`/api/registry.v{N}.manifest.json`: the parsed JSON, its text or its bytes) against `keys`
 * (a JWK Set, or an array of JWKs, that the consumer pinned out of band), with no I/O: at least one signature by a
 * pinned key verifies, with `alg` EdDSA and `typ` `registry-manifest` (`signature`); `iss` and `version` are the
 * expected ones (`issuer`); `seq` is not lower than `lastSeq`, nor, at the same `seq`, `iat` lower than `lastIat`
 * (`rollback`); at the same `seq`, the `files` map is the one of `lastFilesSha256` and the versioned document the one
 * of `lastSha256` (`equivocation`); `now` is at most `exp` plus 5 minutes (`expired`: a frozen deployment); anything
 * else wrong, such as a `seq` later than `iat` plus 5 minutes, is `malformed`. Then every file read must match its
 * listing: see `fileMatches`. Keep the result's `seq`, `iat` and `filesSha256` per (`iss`, `version`) for the next
 * call, as `lastSeq`, `lastIat` and `lastFilesSha256`.
 *
 * @example
 * ```ts
 * async function check(base: string, keys: unknown): Promise<Uint8Array> {
 *   const manifest = await (await fetch(`${base}/api/registry.v1.manifest.json`)).json();
 *   const result = await checkManifest(manifest, keys, { baseUrl: base, version: 1 });
 *   if (!result.ok) throw new Error(`manifest: ${result.reason}`);
 *   const bytes = new Uint8Array(await (await fetch(`${base}/api/registry.v1.json`)).arrayBuffer());
 *   if (!(await fileMatches(result.files, "/api/registry.v1.json", bytes))) throw new Error("digest");
 *   return bytes;
 * }
 * ```
 */
export async function checkManifest(
  manifest: unknown,
  keys: unknown,
  expect: ManifestExpectation,
): Promise<ManifestResult> {
  const fail = (reason: ManifestFailure, detail: string): ManifestResult => ({ ok: false, reason, detail });
  // What the caller holds must be what it claims: a NaN or a string would switch a check off.
  for (const [name, value] of [["lastSeq", expect.lastSeq], ["lastIat", expect.lastIat], ["now", expect.now ?? 0]]) {
    if (value !== undefined && !Number.isSafeInteger(value)) {
      throw new TypeError(`checkManifest: expect.${name} is not whole seconds`);
    }
  }
  for (const [name, value] of [["lastSha256", expect.lastSha256], ["lastFilesSha256", expect.lastFilesSha256]]) {
    if (value !== undefined && !/^[0-9a-f]{64}$/.test(value)) {
      throw new TypeError(`checkManifest: expect.${name} is not 64 lowercase hex digits`);
    }
  }
  const isText = typeof manifest === "string" || manifest instanceof Uint8Array;
  const jws = isText ? parse(manifest) : manifest;
  if (isText && jws === undefined) return fail("malformed", "not JSON");
  const verified = await verifyGeneral(jws, await verifyingKeys(keys), MANIFEST_TYP);
  if ("error" in verified) {
    return verified.error === "malformed"
      ? fail("malformed", "not a JWS in general JSON serialization")
      : fail("signature", "no signature by a pinned key verifies (alg EdDSA, typ registry-manifest)");
  }
  const payload = parse(verified.ok);
  if (payload === undefined) return fail("malformed", "a payload that is not JSON");
  const seconds = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
  if (
    !isObject(payload) || !isString(payload["iss"]) || !Number.isSafeInteger(payload["version"]) ||
    !seconds(payload["seq"]) || !seconds(payload["iat"]) || !seconds(payload["exp"]) || !isObject(payload["files"]) ||
    !Object.values(payload["files"]).every(isManifestFile)
  ) return fail("malformed", "a payload without iss, version, seq, iat, exp and files");
  const { iss, version, seq, iat, exp } = payload as
    & { iss: string }
    & Record<"version" | "seq" | "iat" | "exp", number>;
  const files = payload["files"] as Record<string, ManifestFile>;
  if (iss !== expect.baseUrl.replace(/\/+$/, "") || version !== expect.version) {
    return fail("issuer", `signed for ${iss} v${version}, expected ${expect.baseUrl} v${expect.version}`);
  }
  if (seq > iat + CLOCK_SKEW_S) return fail("malformed", `seq ${seq} later than iat ${iat} plus 5 minutes`);
  if (exp < iat) return fail("malformed", `exp ${exp} before iat ${iat}`);
  if (seq < (expect.lastSeq ?? 0)) {
    return fail("rollback", `seq ${seq} is lower than the last accepted, ${expect.lastSeq}`);
  }
  const filesSha256 = await filesDigest(files);
  if (seq === expect.lastSeq) {
    const sha = files[documentPath(version)]?.sha256;
    if (expect.lastSha256 !== undefined && sha !== expect.lastSha256) {
      return fail("equivocation", `seq ${seq} again, with another document than the one last accepted`);
    }
    if (expect.lastFilesSha256 !== undefined && filesSha256 !== expect.lastFilesSha256) {
      return fail("equivocation", `seq ${seq} again, with other files than the ones last accepted`);
    }
    if (iat < (expect.lastIat ?? 0)) {
      return fail("rollback", `seq ${seq} again, signed at ${iat}, before the last accepted (${expect.lastIat})`);
    }
  }
  const now = expect.now === undefined ? Math.floor(Date.now() / 1000) : expect.now;
  if (now !== null) {
    if (now > exp + CLOCK_SKEW_S) return fail("expired", `expired at ${exp}, now ${now}: a frozen deployment?`);
    // Signed in the future: a signing clock gone wrong. Accepted, its seq would hold back every later build.
    if (iat > now + CLOCK_SKEW_S) return fail("malformed", `signed at ${iat}, after now (${now}) plus 5 minutes`);
  }
  return { ok: true, seq, iat, exp, files, filesSha256 };
}

/**
 * The SHA-256 (hex) of a manifest's `files` map in RFC 8785 canonical form (paths sorted by UTF-16
 * code units, each entry's `integrity`, `sha256` and `size`: the members a consumer reads): two
 * maps have the same digest exactly when they list the same paths with the same entries.
 */
export async function filesDigest(files: Readonly<Record<string, ManifestFile>>): Promise<string> {
  const entries = Object.keys(files).sort().map((path) => {
    const { integrity, sha256, size } = files[path] as ManifestFile;
    return `${JSON.stringify(path)}:{"integrity":${JSON.stringify(integrity)},"sha256":${
      JSON.stringify(sha256)
    },"size":${size}}`;
  });
  return (await fileEntry(new TextEncoder().encode(`{${entries.join(",")}}`))).sha256;
}

/** True when `bytes` (the identity bytes read at `path`) are listed at `path` with their SHA-256 and size. */
export async function fileMatches(
  files: Readonly<Record<string, ManifestFile>>,
  path: string,
  bytes: Uint8Array,
): Promise<boolean> {
  const listed = Object.hasOwn(files, path) ? files[path] : undefined;
  if (listed === undefined || listed.size !== bytes.byteLength) return false;
  return (await fileEntry(new Uint8Array(bytes))).sha256 === listed.sha256;
}

const isManifestFile = (v: unknown): boolean =>
  isObject(v) && isString(v["sha256"]) && /^[0-9a-f]{64}$/.test(v["sha256"]) && Number.isSafeInteger(v["size"]) &&
  (v["size"] as number) >= 0 && v["integrity"] === `sha256-${hexToBase64(v["sha256"])}`;

/** Hex digits as standard base64: an SRI string's digest. */
function hexToBase64(hex: string): string {
  return btoa(hex.replace(/../g, (pair) => String.fromCharCode(parseInt(pair, 16))));
}

const isString = (v: unknown): v is string => typeof v === "string";
const isArrayOf = (v: unknown, each: (x: unknown) => boolean): boolean => Array.isArray(v) && v.every(each);
const isRef = (v: unknown) => isObject(v) && isString(v["built_at"]) && isString(v["etag"]);
const isRow = (v: unknown) => isObject(v) && isString(v["vault_slug"]);
const isEdge = (v: unknown) => isObject(v) && isString(v["source"]) && isString(v["target"]) && isString(v["type"]);

/** True when `v` is a `_registry` extension as far as the rule and replay read it. */
function isChange(v: unknown): boolean {
  if (!isObject(v) || !(v["from"] === null || isRef(v["from"])) || !isRef(v["to"])) return false;
  const { resync, vaults, edges, envelope } = v;
  return typeof resync === "boolean" && isObject(vaults) && isArrayOf(vaults["upsert"], isRow) &&
    isArrayOf(vaults["remove"], isString) && isObject(edges) && isArrayOf(edges["add"], isEdge) &&
    isArrayOf(edges["remove"], isEdge) && isArrayOf(edges["remove_touching"], isString) &&
    (envelope === undefined || isObject(envelope));
}

/** The `_registry` of each of the feed's items, newest first; a TypeError (or undefined) when it is not a feed. */
function changesOf(feed: unknown, strict: false): RegistryChange[] | undefined;
function changesOf(feed: unknown): RegistryChange[];
function changesOf(feed: unknown, strict = true): RegistryChange[] | undefined {
  const items = isObject(feed) ? feed["items"] : undefined;
  if (Array.isArray(items) && items.every((item) => isObject(item) && isChange(item["_registry"]))) {
    return items.map((item) => (item as { _registry: RegistryChange })._registry);
  }
  if (!strict) return undefined;
  throw new TypeError("catchUp: the feed is not a registry change feed (JSON Feed 1.1 with _registry items)");
}
