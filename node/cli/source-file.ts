/**
 * Reads a source file from disk and validates it: the one way every Node entry point (CLI, server,
 * build) loads a registry. Problems come back prefixed with the file's path, one per line.
 */
import { readFile, stat } from "node:fs/promises";
import { MAX_SOURCE_BYTES, sizeOf } from "../../contract/limits.ts";
import { capProblems, summarizeWarnings } from "../../contract/messages.ts";
import { validateSource, type Source } from "../../contract/source.ts";
import { findDuplicateKeys, locateJsonError } from "./json-error.ts";

/**
 * Reads, parses and validates `path`; a key repeated within one object is refused too. Problems
 * are cut after 50 lines and warnings summarized per kind (`contract/messages.ts`), each line
 * prefixed with `name` (the path itself unless the caller names the file otherwise). Never throws.
 */
export async function readSourceFile(path: string, name = path): Promise<{ ok: Source; warnings: string[] } | { problems: string[] }> {
  let text: string;
  try {
    // Size first: a file over the limit is never read.
    const { size } = await stat(path);
    if (size > MAX_SOURCE_BYTES) return { problems: [`${name}: the file is ${sizeOf(size)}; the limit is ${sizeOf(MAX_SOURCE_BYTES)}`] };
    // A UTF-8 byte order mark, as some editors write, is not part of the JSON text (RFC 8259 §8.1).
    text = (await readFile(path, "utf8")).replace(/^\uFEFF/, "");
  } catch (error: unknown) {
    const code = error instanceof Error && "code" in error ? String(error.code) : "unreadable";
    return { problems: [`${name}: cannot read the file (${code})`] };
  }
  const parsed = parseJson(text);
  if ("error" in parsed) return { problems: [`${name}: ${parsed.error}`] };
  const duplicates = findDuplicateKeys(text);
  const result = validateSource(parsed.ok);
  const problems = [...duplicates, ...(result.ok ? [] : result.problems)];
  if (result.ok && problems.length === 0) return { ok: result.source, warnings: summarizeWarnings(result.warnings).map((w) => `${name}: warning: ${w}`) };
  return { problems: capProblems(problems).map((p) => `${name}: ${p}`) };
}

/**
 * Parses JSON text; on a syntax error, says where it is (line and column) and what was found.
 */
export function parseJson(text: string): { ok: unknown } | { error: string } {
  if (text.trim() === "") return { error: "not valid JSON: the file is empty" };
  try {
    return { ok: JSON.parse(text) };
  } catch {
    let where: ReturnType<typeof locateJsonError>;
    try {
      where = locateJsonError(text);
    } catch {
      where = null; // nested deeper than the locator's stack: say less rather than fail
    }
    return { error: where === null ? "not valid JSON" : `not valid JSON at line ${where.line}, column ${where.column}: ${where.reason}` };
  }
}
