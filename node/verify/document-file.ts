import { resolve } from "node:path";
import { strongEtag } from "../../http/responses.ts";
import { readJson } from "../common/json-error.ts";
import { oneLine } from "../common/printable.ts";
import { fileBytes, readLimited } from "../common/source-file.ts";

/**
 * The JSON value of the file at `path` (relative to `cwd`), at most `cap` bytes, and the identity ETag of its bytes,
 * or one line saying why not, naming the file as given and quoting nothing of its content.
 */
export async function readJsonFile(
  path: string,
  cap: number,
  cwd = "",
): Promise<{ ok: unknown; etag: string } | { error: string }> {
  const read = await readLimited(resolve(cwd, path), cap);
  if ("error" in read) return { error: `${oneLine(path)}: ${read.error}` };
  // Not located: the reason quotes a character of the text, which may be a source given by mistake, not public.
  const parsed = readJson(read.text, { place: oneLine(path), says: "not JSON", locate: false });
  if ("error" in parsed) return parsed;
  // The text is checked UTF-8: encoded again, with a byte order mark the reader dropped, it is the file's bytes.
  return { ok: parsed.ok, etag: await strongEtag(fileBytes(read)) };
}
