/**
 * Brotli quality 11 up to 256 KiB, 9 above (11 is some thirty times slower than 9 for about a tenth fewer bytes; 9 is
 * still smaller than gzip). A body over 8 MiB is for the static export alone: gzip 6 and brotli 5 (three to five times
 * faster than gzip 9 and brotli 9, for about a tenth more bytes; brotli 5 still beats gzip 9), both on libuv's threads
 * at once. Deterministic for a given zlib, so every instance serves the same bytes.
 */
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { Compress, Encoding } from "../../http/encoding.ts";

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

const BROTLI_MAX_QUALITY_BYTES = 256 << 10;
/** Above this, a body is for the static export alone: faster settings, both codings at once. */
const LARGE_BODY_BYTES = 8 << 20;
/**
 * Output a large body's codings take from a thread at a time, at least: zlib's 16 KiB would be some 200 round trips
 * through the main thread, each waiting while that thread is busy (a build checks the previous build meanwhile). An
 * eighth of the body holds the whole coding of a registry's JSON in one step. The bytes are the same whatever the size.
 */
const LARGE_CHUNK_BYTES = 1 << 20;

async function compress(bytes: Uint8Array<ArrayBuffer>, encoding: Encoding): Promise<Uint8Array<ArrayBuffer>> {
  const large = bytes.byteLength > LARGE_BODY_BYTES;
  const chunk = large ? { chunkSize: Math.max(LARGE_CHUNK_BYTES, bytes.byteLength >> 3) } : {};
  const out = encoding === "gzip"
    ? await gzipAsync(bytes, { level: large ? 6 : 9, ...chunk })
    : await brotliAsync(bytes, {
      ...chunk,
      params: {
        [constants.BROTLI_PARAM_QUALITY]: large ? 5 : bytes.byteLength <= BROTLI_MAX_QUALITY_BYTES ? 11 : 9,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
      },
    });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength) as Uint8Array<ArrayBuffer>;
}

/** The codings of a large body under way, started together: the first request starts both. */
const underWay = new WeakMap<Uint8Array, Map<Encoding, Promise<Uint8Array<ArrayBuffer>>>>();

/** Compresses `bytes` with the best settings each coding affords at start-up. */
export const zlibCompress: Compress = (bytes, encoding) => {
  if (bytes.byteLength <= LARGE_BODY_BYTES) return compress(bytes, encoding);
  let codings = underWay.get(bytes);
  if (codings === undefined) {
    codings = new Map((["br", "gzip"] as const).map((e) => [e, compress(bytes, e)]));
    // A coding never asked for still settles; its failure is the asker's, not an unhandled rejection.
    for (const p of codings.values()) p.catch(() => {});
    underWay.set(bytes, codings);
  }
  const made = codings.get(encoding) ?? compress(bytes, encoding);
  codings.delete(encoding);
  return made;
};
