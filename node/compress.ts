/**
 * Precompression on Node with zlib: gzip at level 9 and brotli at quality 11, once per build.
 * Deterministic for a given zlib, so every instance of a build serves the same encoded bytes.
 */
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { Compress } from "../encoding.ts";

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Compresses `bytes` with the best settings of each coding: build-time cost buys wire bytes. */
export const zlibCompress: Compress = async (bytes, encoding) => {
  const out =
    encoding === "gzip"
      ? await gzipAsync(bytes, { level: 9 })
      : await brotliAsync(bytes, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: 11,
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
          },
        });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength) as Uint8Array<ArrayBuffer>;
};
