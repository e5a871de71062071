/** The one answer function (docs/choices.md); builds no `Request`/`Headers`/`Response` (slow first use on Lambda). */
import type { Build } from "./table.ts";
import {
  ALLOWED_METHODS,
  COMMON_HEADERS,
  isNotModified,
  PREFLIGHT_HEADERS,
  type Problem,
  problem,
} from "./responses.ts";

/** One answer: what a runtime adapter writes out. `body` is null for HEAD, 204, 304. */
export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array<ArrayBuffer> | null;
}

/** Reads one request header by its lower-case name; null or undefined when absent. */
export type HeaderReader = (name: string) => string | null | undefined;

/** Answers one request. */
export type Answerer = (method: string, path: string, header: HeaderReader) => Answer;

const PREFLIGHT: Answer = {
  status: 204,
  headers: {
    ...COMMON_HEADERS,
    allow: ALLOWED_METHODS,
    ...PREFLIGHT_HEADERS,
  },
  body: null,
};

/** A problem document as an answer (HEAD gets its headers without the body). */
export function problemAnswer(p: Problem, method?: string): Answer {
  return { status: p.status, headers: p.headers, body: method === "HEAD" ? null : p.body };
}

export const NOT_FOUND = problem(404, "Not Found");
export const METHOD_NOT_ALLOWED = problem(405, "Method Not Allowed", { allow: ALLOWED_METHODS });
export const BAD_REQUEST = problem(400, "Bad Request");
export const INTERNAL_ERROR = problem(500, "Internal Server Error");

/**
 * The path of a base URL, without a trailing slash: `/prod` for `https://api.example.org/prod`, and "" when the base is
 * a bare origin. As a WHATWG pathname, it is compared undecoded, like request paths.
 */
export function basePathOf(baseUrl: string): string {
  return new URL(baseUrl).pathname.replace(/\/+$/, "");
}

/**
 * Makes the answer function over a build's `routes` (path to resource) and `gone` paths (path to its 410). Paths match
 * exactly: a trailing slash or another case is another path, and a query string is never part of `path`. When the
 * build's base URL has a path, each address answers with that path in front too, with the same answer: some platforms
 * strip a stage or a base-path mapping before the function sees the request, others keep it.
 *
 * @example
 * ```ts
 * import type { Build } from "./table.ts";
 * function answerOf(build: Build, request: Request) {
 *   const answer = answerer(build);
 *   return answer(request.method, new URL(request.url).pathname, (name) => request.headers.get(name));
 * }
 * ```
 */
export function answerer({ routes, gone, meta }: Pick<Build, "routes" | "gone" | "meta">): Answerer {
  const prefix = basePathOf(meta.baseUrl);
  return (method, requested, header) => {
    // With no base path, every path starts with "/" and slicing nothing off leaves it as it is.
    const path = requested.startsWith(`${prefix}/`) && !routes.has(requested) && !gone.has(requested)
      ? requested.slice(prefix.length)
      : requested;
    const resource = routes.get(path);
    if (resource === undefined) {
      const sunset = gone.get(path);
      if (sunset === undefined) return problemAnswer(NOT_FOUND, method);
      if (method === "OPTIONS") return PREFLIGHT;
      return problemAnswer(method === "GET" || method === "HEAD" ? sunset : METHOD_NOT_ALLOWED, method);
    }
    switch (method) {
      case "GET":
      case "HEAD": {
        const variant = resource.select(header("accept-encoding") ?? null);
        if (isNotModified(header, variant, resource.lastModified)) {
          return { status: 304, headers: variant.notModified, body: null };
        }
        return { status: 200, headers: variant.ok, body: method === "HEAD" ? null : variant.body };
      }
      case "OPTIONS":
        return PREFLIGHT;
      default:
        return problemAnswer(METHOD_NOT_ALLOWED, method);
    }
  };
}

/** The answer function of a build, now or once a deferred build is ready. */
export interface Answers {
  /** The answer function, when the build is ready. */
  current(): Answerer | undefined;
  /** The answer function, making the build on the first call (once, however many ask). */
  ready(): Promise<Answerer>;
}

/**
 * The answers of `build`, or of the build a function makes when first asked: how `handler.ts` defers hashing and
 * compressing until a runtime allows them (Workers forbid both at import).
 */
export function answersOf(build: Build | (() => Promise<Build>)): Answers {
  if (typeof build !== "function") {
    const answer = answerer(build);
    return { current: () => answer, ready: () => Promise.resolve(answer) };
  }
  let answer: Answerer | undefined;
  let pending: Promise<Answerer> | undefined;
  return {
    current: () => answer,
    ready: () => (pending ??= build().then((b) => (answer = answerer(b)))),
  };
}
