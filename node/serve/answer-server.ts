/**
 * A plain node:http request listener over the answer function: what `dist/node/server.mjs` runs.
 * No framework, no Request or Response objects: a request looks its path up and writes
 * precomputed headers and bytes.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Answerer } from "../../http/answer.ts";
import { pathOf } from "../../http/request-path.ts";

/** The listener answering every request through `answer`; the query string is never read. */
export function answerListener(answer: Answerer): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const a = answer(req.method ?? "GET", pathOf(req.url ?? "/") ?? (req.url ?? "/"), (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(", ") : value;
    });
    res.writeHead(a.status, a.headers);
    res.end(a.body ?? undefined);
  };
}
