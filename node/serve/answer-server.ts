// No framework and no Request or Response objects: the Hono app through @hono/node-server serves as fast, but
// creating a Request loads Node's fetch implementation at start, which slows the cold start (bench/RESULTS.md).
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { answerer, BAD_REQUEST, problemAnswer } from "../../http/answer.ts";
import { pathOf } from "../../http/request-path.ts";
import type { Build } from "../../http/table.ts";
import { headerLines, writeAnswer } from "./request-guard.ts";

/** The listener answering every request from `build`'s answers; the query string is never read. */
export function answerListener(build: Pick<Build, "routes" | "gone" | "meta">): RequestListener {
  const answer = answerer(build);
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = pathOf(req.url ?? "");
    if (path === null) return writeAnswer(res, problemAnswer(BAD_REQUEST, req.method));
    // Every line of a header, joined as Headers join them: node:http's `headers` keeps only the first of some.
    writeAnswer(res, answer(req.method ?? "GET", path, (name) => headerLines(req.rawHeaders, name)));
  };
}
