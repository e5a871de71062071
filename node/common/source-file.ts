import { readFileSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { shownPath } from "../../contract/config.ts";
import { BASE_RECORDS, MAX_SOURCE_BYTES, maxRecords, RECORD_BYTES, sizeOf } from "../../contract/limits.ts";
import { capProblems, summarizeWarnings } from "../../contract/messages.ts";
import { type Source, validateSource } from "../../contract/source.ts";
import { readJson, scanSourceText, type TextScan } from "./json-error.ts";
import { oneLine } from "./printable.ts";

/**
 * Reads, parses and validates `path`, with `internalKeys` declared beside the source's own list (named in messages
 * by their `place`); a key repeated within one object is refused too. Each line is prefixed with `named` (a newline
 * in it escaped, so that a file name cannot start a line of its own). Never throws.
 */
export async function readSourceFile(
  path: string,
  named = shownPath(path),
  internalKeys: { readonly names: readonly string[]; readonly place: string; readonly problems?: readonly string[] } = {
    names: [],
    place: "--internal-keys",
  },
): Promise<{ ok: Source; warnings: string[] } | { problems: string[] }> {
  const name = oneLine(named);
  const read = await readParsed(path);
  if ("error" in read) {
    const hint = read.error.endsWith("(ENOENT)")
      ? "; registry-endpoint init writes a starter source to begin from"
      : "";
    return { problems: [`${name}: ${read.error}${hint}`] };
  }
  const { value, scan } = read;
  const result = validateSource(value, {
    withheldVaults: scan.vaultsWithRepeatedKeys,
    repeatedAtTop: scan.repeatedAtTop,
    internalKeys: internalKeys.names,
    internalKeysPlace: internalKeys.place,
    nameUndeclared: (internalKeys.problems ?? []).length === 0,
  });
  if (result.ok && scan.duplicateCount === 0) {
    return { ok: result.source, warnings: summarizeWarnings(result.warnings).map((w) => `${name}: warning: ${w}`) };
  }
  const problems = [...scan.duplicates, ...(result.ok ? [] : result.problems)];
  const total = scan.duplicateCount + (result.ok ? 0 : result.problems.length + result.omitted);
  return { problems: capProblems(problems, total).map((p) => `${name}: ${p}`) };
}

/** The file read within its limits, scanned and parsed: its text lives only in here, not held through validation. */
async function readParsed(path: string): Promise<{ value: unknown; scan: TextScan } | { error: string }> {
  const read = await readLimited(path, MAX_SOURCE_BYTES);
  if ("error" in read) return read;
  // A UTF-8 byte order mark is not part of the JSON text (RFC 8259 §8.1): readLimited dropped one; a second is text.
  const scan = scanSourceText(read.text, read.bytes);
  if (scan.limit !== undefined) return { error: scan.limit };
  const parsed = readJson(read.text);
  if ("error" in parsed) return parsed;
  const records = recordsOf(parsed.ok);
  const allowed = maxRecords(read.bytes);
  if (records > allowed) {
    return {
      error: `too many vaults and edges for the file's size: ${records}; the limit for ${
        sizeOf(read.bytes)
      } is ${allowed} (${BASE_RECORDS} plus one per ${RECORD_BYTES} bytes)`,
    };
  }
  return { value: parsed.ok, scan };
}

/** The entries of the source's `vaults` and `edges` arrays, whatever they hold (`contract/limits.ts`, BASE_RECORDS). */
function recordsOf(value: unknown): number {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return 0;
  const lengthOf = (key: string): number => {
    const list: unknown = Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
    return Array.isArray(list) ? list.length : 0;
  };
  return lengthOf("vaults") + lengthOf("edges");
}

/**
 * The text of the file at `path` (UTF-8, one byte order mark dropped) and its length in bytes, at most `limit`. A
 * regular file over the limit is refused unread, else read whole by Node and refused if it grew past the limit
 * meanwhile (only a writer appending as it is read makes it read more: the price of leaving no buffer behind). A pipe
 * or a device (size 0) is counted as it is read, never read whole. `it` names the file when it cannot be read.
 */
export async function readLimited(
  path: string,
  limit: number,
  it = "the file",
): Promise<{ text: string; bytes: number } | { error: string }> {
  let file: FileHandle | undefined;
  try {
    file = await open(path, "r");
    const stats = await file.stat();
    const { size } = stats;
    if (size > limit) return { error: `the file is ${sizeOf(size)}; the limit is ${sizeOf(limit)}` };
    const regular = stats.isFile() && size > 0;
    const whole = regular ? readRegularFile(file.fd, limit) : undefined;
    if (whole !== undefined) return whole;
    // Counted in a buffer of the stated size (plus one byte, to see a file that grew); pipes and
    // devices (size 0) start at 1 MiB and double.
    let buffer = Buffer.allocUnsafe(Math.min(limit + 1, size + 1 > 1 ? size + 1 : 1 << 20));
    let total = 0;
    for (;;) {
      if (total === buffer.byteLength) {
        const grown = Buffer.allocUnsafe(Math.min(limit + 1, buffer.byteLength * 2));
        buffer.copy(grown, 0, 0, total);
        buffer = grown;
      }
      const { bytesRead } = await file.read(buffer, total, buffer.byteLength - total, regular ? total : null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > limit) {
        return { error: `the file is over ${sizeOf(limit)} (reading stopped there); the limit is ${sizeOf(limit)}` };
      }
    }
    const bytes = buffer.subarray(0, total);
    try {
      return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), bytes: total };
    } catch {
      // Decoding with replacement would publish U+FFFD where the source has something else.
      const at = firstInvalidUtf8(bytes);
      return {
        error: `not UTF-8: the byte at offset ${at} (line ${
          lineAt(bytes, at)
        }) is not part of a UTF-8 character; save the file as UTF-8`,
      };
    }
  } catch (error: unknown) {
    const code = error instanceof Error && "code" in error ? String(error.code) : "unreadable";
    return { error: `cannot read ${it} (${code})` };
  } finally {
    await file?.close().catch(() => undefined);
  }
}

/** The bytes of a file `readLimited` read: its text encoded again, with the byte order mark it dropped put back. */
export function fileBytes(read: { readonly text: string; readonly bytes: number }): Uint8Array<ArrayBuffer> {
  const text = new TextEncoder().encode(read.text);
  if (text.byteLength === read.bytes) return text;
  const bytes = new Uint8Array(3 + text.byteLength);
  bytes.set([0xef, 0xbb, 0xbf]);
  bytes.set(text, 3);
  return bytes;
}

/**
 * A regular file read and decoded by Node in one step: no buffer of ours outlives the decoding (a 64 MiB one stayed
 * resident through the parse that follows). Undefined when the text holds U+FFFD, which may stand for bytes that
 * are not UTF-8: the counted read decodes strictly and names the first.
 */
function readRegularFile(fd: number, limit: number): { text: string; bytes: number } | { error: string } | undefined {
  const read = readFileSync(fd, "utf8");
  if (read.includes("\ufffd")) return undefined;
  const bytes = Buffer.byteLength(read, "utf8");
  if (bytes > limit) return { error: `the file is over ${sizeOf(limit)}; the limit is ${sizeOf(limit)}` };
  // The one byte order mark the strict decoder drops, dropped alike.
  return { text: read.charCodeAt(0) === 0xfeff ? read.slice(1) : read, bytes };
}

/** The offset of the first byte not part of a valid UTF-8 sequence, by halving to the longest prefix that decodes. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let [valid, invalid] = [0, bytes.byteLength];
  while (invalid - valid > 1) {
    const mid = Math.floor((valid + invalid) / 2);
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, mid), { stream: true });
      valid = mid;
    } catch {
      invalid = mid;
    }
  }
  // The first `valid` bytes decode, perhaps ending inside a character: the fault is that
  // character's first byte when it is cut short, else the byte after them.
  let lead = valid - 1;
  while (lead > valid - 4 && lead >= 0 && (bytes[lead] as number) >= 0x80 && (bytes[lead] as number) < 0xc0) lead--;
  const first = lead >= 0 ? (bytes[lead] as number) : 0;
  const length = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  return lead >= 0 && first >= 0xc0 && lead + length > valid ? lead : valid;
}

function lineAt(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
  return line;
}
