/**
 * The stated limits of every input and output (docs/source-format.md, "Limits"), each checked before the work that
 * would exceed it and refused in one line naming the figure and the limit. Web standards only.
 */

/** A source file, in bytes: read only after its size is checked. */
export const MAX_SOURCE_BYTES = 64 * 1024 * 1024;

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

/** `n` bytes as a person reads them: 8 MiB, 1.5 GiB, 900 bytes. */
export function sizeOf(n: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} bytes` : `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}
