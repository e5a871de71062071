/**
 * A plain node:http request listener over the answer function: what `dist/node/server.mjs` runs.
 * No framework, no Request or Response objects: a request looks its path up and writes
 * precomputed headers and bytes.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { type Answerer, BAD_REQUEST, problemAnswer } from "../../http/answer.ts";
import { pathOf } from "../../http/request-path.ts";
import { writeAnswer } from "./request-guard.ts";

/** The listener answering every request through `answer`; the query string is never read. */
export function answerListener(answer: Answerer): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = pathOf(req.url ?? "");
    if (path === null) return writeAnswer(res, problemAnswer(BAD_REQUEST, req.method));
    writeAnswer(
      res,
      answer(req.method ?? "GET", path, (name) => {
        const value = req.headers[name];
        return Array.isArray(value) ? value.join(", ") : value;
      }),
    );
  };
}
