/** The bounds of one HTTP exchange, for the client, `verify`, `--previous` and signing alike: its time and its body. */
import { sizeOf } from "../contract/limits.ts";

/**
 * A signal that aborts with a `TimeoutError` after `ms`. Its timer holds the controller strongly:
 * on Node 20, `AbortSignal.timeout` inside `AbortSignal.any` is held only weakly, so a garbage
 * collection during a stalled request removed the timer and the request waited for ever.
 */
export function timeout(ms: number): { readonly signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${ms} ms`, "TimeoutError")), ms);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/**
 * The body of a fetch `Response`, read in full within `cap` bytes: refused early by a Content-Length over the cap (a
 * HEAD answer's and a coded body's say nothing of what is read), else as soon as what is read passes it, the rest
 * cancelled. `tooLarge` makes the error thrown for a body over the cap from its size in words ("5 MiB", "over 4 MiB");
 * a failure while reading is thrown as it is.
 */
export async function readCapped(
  res: Response,
  cap: number,
  tooLarge: (size: string) => Error,
  head = false,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = head || res.headers.get("content-encoding") !== null
    ? 0
    : Number(res.headers.get("content-length") ?? 0);
  if (declared > cap) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge(sizeOf(declared));
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body?.getReader();
  for (;;) {
    const read = reader === undefined ? { done: true as const } : await reader.read();
    if (read.done) break;
    total += read.value.byteLength;
    if (total > cap) {
      await reader?.cancel().catch(() => {});
      throw tooLarge(`over ${sizeOf(cap)}`);
    }
    chunks.push(read.value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
