/** So that the Node server answers every request form as docs/http.md, "Request forms", states. */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { type Answer, BAD_REQUEST, METHOD_NOT_ALLOWED, problemAnswer } from "../../http/answer.ts";
import { pathOf, plainAuthority } from "../../http/request-path.ts";
import { type Problem, problem } from "../../http/responses.ts";
import { nodeHttp } from "../common/builtins.ts";

/** Writes one answer on a node:http response. */
export function writeAnswer(res: ServerResponse, answer: Answer): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body ?? undefined);
}

/** The 400 a request gets before it reaches the app, or undefined when it may go on. */
function refusalOf(req: IncomingMessage): Answer | undefined {
  const target = req.url ?? "";
  // From the raw lines: `headers` would build an object of every header for each request.
  const plain = oneHostLine(req.rawHeaders) && judgedHost(headerLines(req.rawHeaders, "host"));
  return plain && pathOf(target) !== null && !backslashInPath(target)
    ? undefined
    : problemAnswer(BAD_REQUEST, req.method);
}

/** `listener`, behind the refusals of `refusalOf`. */
export function guarded(listener: RequestListener): RequestListener {
  return (req, res) => {
    const refusal = refusalOf(req);
    if (refusal === undefined) return listener(req, res);
    writeAnswer(res, refusal);
  };
}

/** Answers CONNECT (node:http's 'connect' event hands over the bare socket): 405 with `Allow`, connection closed. */
export function answerConnect(_req: IncomingMessage, socket: Duplex): void {
  writeRaw(socket, METHOD_NOT_ALLOWED);
}

const REQUEST_TIMEOUT = problem(408, "Request Timeout");
const HEADERS_TOO_LARGE = problem(431, "Request Header Fields Too Large");

/** Answers what node:http could not parse ('clientError') with its status (408, 431, else 400) as a problem. */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || answering?.headersSent === true) {
    socket.destroy();
    return;
  }
  writeRaw(
    socket,
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? REQUEST_TIMEOUT
      : error.code === "HPE_HEADER_OVERFLOW"
      ? HEADERS_TOO_LARGE
      : BAD_REQUEST,
  );
}

/** Writes a problem on a bare socket, as node:http would write it, and closes the connection. */
function writeRaw(socket: Duplex, p: Problem): void {
  const head = [
    `HTTP/1.1 ${p.status} ${nodeHttp.STATUS_CODES[p.status] ?? ""}`,
    ...Object.entries(p.headers).map(([name, value]) => `${name}: ${value}`),
    `date: ${new Date().toUTCString()}`,
    "connection: close",
  ];
  socket.on("error", () => undefined);
  // Closed once written, whatever the client still sends (a body that drips, a tunnel's bytes).
  socket.end(Buffer.concat([Buffer.from(`${head.join("\r\n")}\r\n\r\n`, "latin1"), p.body]), () => socket.destroy());
}

/** The last `Host` judged and its verdict: a client's requests repeat theirs, and the judging runs a long pattern. */
let lastHost: string | undefined;
let lastHostPlain = false;

/** `plainHost`, asked again only when the `Host` differs from the last one. */
function judgedHost(host: string | undefined): boolean {
  if (host !== lastHost) [lastHost, lastHostPlain] = [host, plainHost(host)];
  return lastHostPlain;
}

/** A `Host` a URL parser reads back unchanged: host and port, nothing it rewrites (`1.2.3`, non-ASCII, `%41`). */
function plainHost(host: string | undefined): boolean {
  if (host === undefined || host === "" || host.includes("@")) return false;
  // Nearly every request: no URL parse.
  if (plainAuthority(host)) return true;
  let url: URL;
  try {
    url = new URL(`http://${host}/`);
  } catch {
    return false;
  }
  return url.pathname === "/" && url.search === "" && url.hash === "" &&
    url.hostname === host.replace(/:\d+$/, "").toLowerCase();
}

/** The `rawHeaders` entries node:http's `headers` and `headersDistinct` read: 1000 lines (`maxHeadersCount` unset). */
const HEADER_ENTRIES = 2000;

/**
 * Every line of the header `name` (lower case) in `raw` (names and values, as received), joined as Headers join them:
 * what `headersDistinct[name]` joins, without the object of every header that it builds for each request.
 */
export function headerLines(raw: readonly string[], name: string): string | undefined {
  let joined: string | undefined;
  // Only the lines `headersDistinct` reads: Node 20 keeps more in `rawHeaders` (Node 22 answers 431 to them).
  const end = Math.min(raw.length, HEADER_ENTRIES);
  for (let i = 0; i < end; i += 2) {
    const key = raw[i] as string;
    if (key.length === name.length && (key === name || key.toLowerCase() === name)) {
      joined = joined === undefined ? (raw[i + 1] as string) : `${joined}, ${raw[i + 1] as string}`;
    }
  }
  return joined;
}

/** At most one `Host` line: RFC 9112 (3.2) asks 400 for more; node:http keeps the first, so two could differ unseen. */
function oneHostLine(raw: readonly string[]): boolean {
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 4 && name.toLowerCase() === "host" && ++seen > 1) return false;
  }
  return true;
}

/** A `\` before the query: a URL parser reads it as `/`, so the path asked for is not the path answered. */
function backslashInPath(target: string): boolean {
  const backslash = target.indexOf("\\");
  if (backslash === -1) return false;
  const query = target.indexOf("?");
  return query === -1 || backslash < query;
}
