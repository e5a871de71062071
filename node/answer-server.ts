/**
 * A plain node:http request listener over the answer function: what `dist/node/server.mjs` runs.
 * No framework, no Request or Response objects: a request looks its path up and writes
 * precomputed headers and bytes.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Answerer } from "../http/answer.ts";

/** The listener answering every request through `answer`; the query string is never read. */
export function answerListener(answer: Answerer): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const a = answer(req.method ?? "GET", pathOf(req.url ?? "/"), (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(", ") : value;
    });
    res.writeHead(a.status, a.headers);
    res.end(a.body ?? undefined);
  };
}

/** The path of a request target: origin-form up to `?`, or the path of an absolute-form URL. */
function pathOf(target: string): string {
  if (!target.startsWith("/")) {
    try {
      return new URL(target).pathname;
    } catch {
      return target;
    }
  }
  const query = target.indexOf("?");
  return query === -1 ? target : target.slice(0, query);
}
