// No framework and no Request or Response objects: the Hono app through @hono/node-server serves as fast, but
// creating a Request loads Node's fetch implementation at start, which slows the cold start (bench/RESULTS.md).
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { answerer, BAD_REQUEST, problemAnswer } from "../../http/answer.ts";
import { pathOf } from "../../http/request-path.ts";
import type { Build } from "../../http/table.ts";
import { writeAnswer } from "./request-guard.ts";

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

/**
 * Every line of the header `name` (lower case) in `raw` (names and values, as received), joined as Headers join them:
 * what `headersDistinct[name]` joins, without the object of every header that it builds for each request.
 */
export function headerLines(raw: readonly string[], name: string): string | undefined {
  let joined: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i] as string;
    if (key.length === name.length && key.toLowerCase() === name) {
      joined = joined === undefined ? (raw[i + 1] as string) : `${joined}, ${raw[i + 1] as string}`;
    }
  }
  return joined;
}
