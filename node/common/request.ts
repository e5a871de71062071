import { sizeOf } from "../../contract/limits.ts";
import { boundedFetch, readCapped } from "../../client/bounds.ts";

/** How long one request may take, headers to last byte. */
export const REQUEST_TIMEOUT_MS = 10_000;
/** How long the whole run may take, against any server. */
export const RUN_DEADLINE_MS = 60_000;

/** An answer, its body read in full within the cap. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer;
}

/** A request of a path of the deployment (GET unless `method` says otherwise), bounded as the run's requests are. */
export type Get = (path: string, headers?: Record<string, string>, method?: string, cap?: number) => Promise<Answer>;

/** The bounds of one request: its method and headers, its body cap, its own timeout, and the run's deadline. */
export interface RequestBounds {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly cap: number;
  readonly timeoutMs: number;
  readonly deadline: AbortSignal;
  /** What the deadline is, for the message. */
  readonly deadlineMs: number;
  /** Who reads, for the message about a body over `cap` (default: verify). */
  readonly reader?: string;
  /** The URL as messages name it, when `url` carries what no message shows (a query, a token) or the caller's own query. */
  readonly shownAs?: string;
}

/** A request that got no complete answer: the message says which request and what failed. */
export class RequestFailure extends Error {}

/** An answer whose body passes the reader's cap: it was answered, too large to read. */
export class BodyTooLarge extends RequestFailure {}

/** A signal that aborts with a `TimeoutError` after `ms`, for a run's deadline. */
export { timeout } from "../../client/bounds.ts";

/** One request within `o`'s bounds, no redirect followed; a `RequestFailure` names the request and what went wrong. */
export function request(url: string, o: RequestBounds): Promise<Answer> {
  const what = `${o.method} ${o.shownAs ?? url}`;
  // `failure` names the host and port only, so it reads them from the URL itself, whatever `shownAs` says.
  const failed = (error: unknown) =>
    error instanceof RequestFailure ? error : new RequestFailure(`${what}: ${failure(url, error, o)}`);
  const tooLarge = (n: string) =>
    new BodyTooLarge(`${what}: the body is ${n}; ${o.reader ?? "verify"} reads at most ${sizeOf(o.cap)}`);
  return boundedFetch(url, { ...o, signal: o.deadline, failed }, async (res) => {
    const body = await readCapped(res, o.cap, tooLarge, o.method === "HEAD");
    return { status: res.status, headers: res.headers, body: Buffer.from(body.buffer, 0, body.byteLength) };
  });
}

/** What went wrong with a request, in words: which host and port, refused or timed out. */
function failure(url: string, error: unknown, { timeoutMs, deadline, deadlineMs }: RequestBounds): string {
  const { hostname, port, protocol } = new URL(url);
  const at = `${hostname} port ${port || (protocol === "https:" ? "443" : "80")}`;
  if (deadline.aborted) return `the whole run passed its limit of ${deadlineMs / 1000} s`;
  if (error instanceof Error && error.name === "TimeoutError") return `no complete answer within ${timeoutMs / 1000} s`;
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  const code = cause?.code ?? (error as { code?: string } | undefined)?.code;
  const words: Record<string, string> = {
    ECONNREFUSED: `connection refused (${at})`,
    ENOTFOUND: `host not found (${hostname})`,
    EAI_AGAIN: `host name lookup failed (${hostname})`,
    ETIMEDOUT: `connection timed out (${at})`,
    UND_ERR_CONNECT_TIMEOUT: `connection timed out (${at})`,
    ECONNRESET: `connection reset by the server (${at})`,
    UND_ERR_SOCKET: `the server closed the connection before answering in full (${at})`,
    UND_ERR_HEADERS_OVERFLOW: "the answer's headers are larger than a client accepts (16 KiB)",
    HPE_HEADER_OVERFLOW: "the answer's headers are larger than a client accepts (16 KiB)",
  };
  if (code !== undefined && words[code] !== undefined) return words[code] as string;
  // TLS: the code says it; the library's own text (OpenSSL's) says nothing more to an operator.
  if (code !== undefined && /SSL|TLS|CERT|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME/.test(code)) {
    return `TLS failed (${code}, ${at})`;
  }
  return `${cause?.message ?? (error instanceof Error ? error.message : String(error))}${
    code === undefined ? "" : ` (${code})`
  }`.slice(0, 200);
}

/** True when a location given on the command line (`--previous`, `--keys`) is an http(s) URL, read over HTTP, not a file. */
export function isRemote(location: string): boolean {
  return /^https?:\/\//i.test(location);
}
