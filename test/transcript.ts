/**
 * HTTP answers as golden text: each request, then its status, its headers sorted by name, and its
 * body's length and SHA-256. A header change then shows in a diff like a byte change.
 */
import { createHash } from "node:crypto";
import type { Answerer } from "../http/answer.ts";

/** One request of a transcript: a method, a path, and request headers. */
export interface Exchange {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The transcript of `requests` answered by `answer`. */
export function transcript(answer: Answerer, requests: readonly Exchange[]): string {
  return requests
    .map(({ method, path, headers = {} }) => {
      const a = answer(method, path, (name) => headers[name]);
      const sent = Object.entries(headers).map(([n, v]) => ` ${n}: ${v}`).join(";");
      const body = a.body === null
        ? "none"
        : `${a.body.byteLength} bytes, sha256 ${createHash("sha256").update(a.body).digest("hex")}`;
      const lines = Object.entries(a.headers).sort(([x], [y]) => (x < y ? -1 : 1)).map(([n, v]) => `  ${n}: ${v}`);
      return [
        `${method} ${path}${sent === "" ? "" : ` (${sent.trim()})`}`,
        `  status: ${a.status}`,
        ...lines,
        `  body: ${body}`,
      ].join("\n");
    })
    .join("\n\n") + "\n";
}
