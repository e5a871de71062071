/** Reading `--previous-document FILE`: bounded as it is read (a pipe or a device reports no size), parsed as JSON. */
import { resolve } from "node:path";
import { open } from "node:fs/promises";
import { sizeOf } from "../../contract/limits.ts";

/**
 * The JSON value of the file at `path`, read at most `cap` bytes (counted as they are read), or one
 * line saying why not: unreadable (with the system's code), too large, not JSON. The line names the
 * file as given and quotes nothing of its content.
 */
export async function readJsonFile(path: string, cap: number, cwd = ""): Promise<{ ok: unknown } | { error: string }> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    // Messages name the file as it was given; a relative one is read from `cwd`.
    const file = await open(resolve(cwd, path), "r");
    try {
      for (;;) {
        const chunk = Buffer.alloc(1024 * 1024);
        const { bytesRead } = await file.read(chunk, 0, chunk.length, null);
        if (bytesRead === 0) break;
        total += bytesRead;
        if (total > cap) return { error: `${path}: larger than ${sizeOf(cap)}, the most verify reads` };
        chunks.push(chunk.subarray(0, bytesRead));
      }
    } finally {
      await file.close();
    }
  } catch (error: unknown) {
    return { error: `${path}: cannot be read (${(error as { code?: string }).code ?? "error"})` };
  }
  try {
    return { ok: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
  } catch {
    // The parser's message quotes the text, which may not be public (a source file given by mistake).
    return { error: `${path}: not JSON` };
  }
}
