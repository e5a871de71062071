/** A source file, in bytes: counted as they are read (a pipe or a device has no size to ask). */
export const MAX_SOURCE_BYTES = 64 * 1024 * 1024;

/** A declared internal key name, in UTF-16 code units: longer than any name a schema needs. */
export const MAX_INTERNAL_KEY_LENGTH = 128;

/** Declared internal key names, the source's list and the build's flag together. */
export const MAX_INTERNAL_KEYS = 1024;

/** Objects and arrays open at once anywhere in a source, the outermost object counting 1. */
export const MAX_NESTING_DEPTH = 64;

/**
 * The values a source may hold, weighed before it is parsed: a parsed value costs memory out of all proportion to its
 * text (an empty object: 3 bytes of text, about 100 bytes parsed). A container weighs VALUE_WEIGHT_OF_CONTAINER, any
 * other value 1, in all at most BASE_VALUE_WEIGHT plus one per VALUE_WEIGHT_BYTES bytes. 100,000 vaults with eleven
 * internal keys each (51 MiB) weigh 3.86 million of their 4.85 million; rows of three short fields stop at 184,000.
 */
export const BASE_VALUE_WEIGHT = 400_000;
/** See BASE_VALUE_WEIGHT. */
export const VALUE_WEIGHT_BYTES = 12;
/** See BASE_VALUE_WEIGHT. */
export const VALUE_WEIGHT_OF_CONTAINER = 4;

/** The most weight (see BASE_VALUE_WEIGHT) a source of `bytes` bytes may hold. */
export function maxValueWeight(bytes: number): number {
  return BASE_VALUE_WEIGHT + Math.floor(bytes / VALUE_WEIGHT_BYTES);
}

/**
 * The vaults and edges a source may declare, counted before validation: BASE_RECORDS plus one per RECORD_BYTES bytes.
 * Validation keeps about 500 bytes per record at its peak, ten times a row of three short fields, which the value
 * weight alone allows; so a source needs at most 4x its size + 100 MB. Small rows stop at about 42,000; 100k vaults
 * with eleven internal keys each (51 MiB) may have 240,000.
 */
export const BASE_RECORDS = 32_768;
/** See BASE_RECORDS. */
export const RECORD_BYTES = 256;

/** The most vaults and edges (see BASE_RECORDS) a source of `bytes` bytes may declare. */
export function maxRecords(bytes: number): number {
  return BASE_RECORDS + Math.floor(bytes / RECORD_BYTES);
}

/** Any one published string of a source (a name, a note, a label, an edge type), in UTF-16 code units. */
export const MAX_STRING_LENGTH = 65_536;

/** A document the CLI and `npm start` make, in bytes: well inside what one JavaScript string can hold. */
export const MAX_DOCUMENT_BYTES = 128 * 1024 * 1024;

/**
 * A document `npm run build` packages, in bytes: every artifact embeds it, and an AWS Lambda
 * function of 128 MB holds the answers with room to spare (measured: 7.5 MB of document, 81 MB
 * resident after the first answer on Node 20; 15 MB took 119 MB).
 */
export const MAX_DEPLOY_DOCUMENT_BYTES = 8 * 1024 * 1024;

/** A limit exceeded: its message names the figure and the limit, and nothing of the content. */
export class LimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LimitError";
  }
}

/**
 * `n` bytes as a person reads them: 900 bytes, 8 MiB, 1.5 GiB. A size that is not a whole number
 * of its unit but would read as one to a tenth (64 MiB and one byte: "64.0 MiB") is given in bytes,
 * so that a size just over a limit never reads as the limit.
 */
export function sizeOf(n: number): string {
  if (n === 1) return "1 byte";
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = n;
  let unit = -1;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit < 0 || !Number.isSafeInteger(n)) return `${n} bytes`;
  if (Number.isInteger(value)) return `${value} ${units[unit]}`;
  const tenths = value.toFixed(1);
  return tenths.endsWith(".0") ? `${n} bytes` : `${tenths} ${units[unit]}`;
}
