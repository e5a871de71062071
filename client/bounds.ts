/** The one bounded fetch, for the client, `verify`, `--previous` and signing alike, each failure in its caller's words. */
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

/** The bounds of one fetch, and what its failures read as. */
export interface FetchBounds {
  readonly method: string;
  readonly headers: Record<string, string>;
  /** Its own timeout, headers to last byte. */
  readonly timeoutMs: number;
  /** The caller's signal (a run's deadline, a consumer's abort). */
  readonly signal?: AbortSignal | undefined;
  /** Whatever the fetch or `use` throws, as the caller's error (`timedOut`: its own timeout passed). */
  failed(error: unknown, timedOut: boolean): Error;
}

/**
 * One fetch within `o`'s bounds, no redirect followed; `use` reads the answer (with `readCapped`) while the bounds
 * still hold, and whatever either throws passes through `o.failed`.
 */
export async function boundedFetch<T>(url: string, o: FetchBounds, use: (res: Response) => Promise<T>): Promise<T> {
  const own = timeout(o.timeoutMs);
  const both = new AbortController();
  const stopOwn = () => both.abort(own.signal.reason);
  // No reason of the caller's passes on: the caller's `failed` says "aborted" in its own words, whatever the reason.
  const stopOuter = () => both.abort();
  own.signal.addEventListener("abort", stopOwn, { once: true });
  if (o.signal?.aborted) stopOuter();
  else o.signal?.addEventListener("abort", stopOuter, { once: true });
  try {
    const res = await fetch(url, { method: o.method, headers: o.headers, signal: both.signal, redirect: "manual" });
    return await use(res);
  } catch (error: unknown) {
    throw o.failed(error, own.signal.aborted);
  } finally {
    own.clear();
    own.signal.removeEventListener("abort", stopOwn);
    o.signal?.removeEventListener("abort", stopOuter);
  }
}

/**
 * The body of a fetch `Response`, read in full within `cap` bytes: refused early by a Content-Length over the cap (a
 * HEAD answer's and a coded body's say nothing of what is read; `identity` is no coding), else as soon as what is read
 * passes it, the rest cancelled. `tooLarge` makes the error thrown for a body over the cap from its size in words
 * ("5 MiB", "over 4 MiB"); a failure while reading is thrown as it is.
 */
export async function readCapped(
  res: Response,
  cap: number,
  tooLarge: (size: string) => Error,
  head = false,
): Promise<Uint8Array<ArrayBuffer>> {
  const coded = !/^\s*(identity)?\s*$/i.test(res.headers.get("content-encoding") ?? "");
  const declared = head || coded ? 0 : Number(res.headers.get("content-length") ?? 0);
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
  // Joined by hand: a Blob would copy the chunks twice (into itself, then out), at up to 128 MiB.
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
