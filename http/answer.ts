/** The one answer function (docs/choices.md); builds no `Request`/`Headers`/`Response` (slow first use on Lambda). */
import type { Build } from "./table.ts";
import {
  ALLOWED_METHODS,
  COMMON_HEADERS,
  isNotModified,
  PREFLIGHT_HEADERS,
  type Problem,
  problem,
  type Resource,
  type Variant,
} from "./responses.ts";

/** One answer: what a runtime adapter writes out. `body` is null for HEAD, 204, 304. */
export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array<ArrayBuffer> | null;
  /** `body` as text, where the variant knows it so: read it instead of `body`, which may then never be made. */
  readonly text?: string | undefined;
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

const NOT_FOUND = problem(404, "Not Found");
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

/** Answers one request at an address the build knows. */
export type AddressAnswer = (method: string, header: HeaderReader) => Answer;

/** The answer to any address a build does not know. */
export const notFoundAnswer: AddressAnswer = (method) => problemAnswer(NOT_FOUND, method);

/**
 * Each address a build answers and its answer: the build's `routes` (path to resource) and `gone` paths (path to its
 * 410), and, when its base URL has a path, each with that path in front too (some platforms strip a stage or a
 * base-path mapping before the function sees the request, others keep it); a path the build names itself wins. Paths
 * match exactly: a trailing slash or another case is another path, and a query string is never part of one.
 */
export function addressAnswers({ routes, gone, meta }: Pick<Build, "routes" | "gone" | "meta">): Map<
  string,
  AddressAnswer
> {
  const table = new Map<string, AddressAnswer>();
  for (const [path, resource] of routes) table.set(path, resourceAnswer(resource));
  for (const [path, sunset] of gone) table.set(path, goneAnswer(sunset));
  const prefix = basePathOf(meta.baseUrl);
  if (prefix !== "") {
    for (const [path, answer] of [...table]) if (!table.has(`${prefix}${path}`)) table.set(`${prefix}${path}`, answer);
  }
  return table;
}

/**
 * Makes the answer function of a build: the address's answer (`addressAnswers`), or 404.
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
export function answerer(build: Pick<Build, "routes" | "gone" | "meta">): Answerer {
  const table = addressAnswers(build);
  return (method, path, header) => (table.get(path) ?? notFoundAnswer)(method, header);
}

/** The three answers of one variant (200, the same for HEAD, 304): made once, on first use, and given to every request. */
interface VariantAnswers {
  readonly ok: Answer;
  readonly head: Answer;
  readonly notModified: Answer;
}

const variantAnswers = new WeakMap<Variant, VariantAnswers>();

function answersOfVariant(variant: Variant): VariantAnswers {
  let answers = variantAnswers.get(variant);
  if (answers === undefined) {
    // Frozen: every request of the variant gets these very objects.
    answers = Object.freeze({
      // Read on demand: Lambda, which sends text, takes `text`, and a restored body is then never encoded.
      ok: Object.freeze({
        status: 200,
        headers: variant.ok,
        get body() {
          return variant.body;
        },
        get text() {
          return variant.text;
        },
      }),
      head: Object.freeze({ status: 200, headers: variant.ok, body: null }),
      notModified: Object.freeze({ status: 304, headers: variant.notModified, body: null }),
    });
    variantAnswers.set(variant, answers);
  }
  return answers;
}

function resourceAnswer(resource: Resource): AddressAnswer {
  return (method, header) => {
    switch (method) {
      case "GET":
      case "HEAD": {
        const variant = resource.select(header("accept-encoding") ?? null);
        const answers = answersOfVariant(variant);
        if (isNotModified(header, variant, resource.lastModified)) return answers.notModified;
        return method === "HEAD" ? answers.head : answers.ok;
      }
      case "OPTIONS":
        return PREFLIGHT;
      default:
        return problemAnswer(METHOD_NOT_ALLOWED, method);
    }
  };
}

function goneAnswer(sunset: Problem): AddressAnswer {
  return (method) => {
    if (method === "OPTIONS") return PREFLIGHT;
    return problemAnswer(method === "GET" || method === "HEAD" ? sunset : METHOD_NOT_ALLOWED, method);
  };
}

/** What `make` gives of a build, now or once a deferred build is ready. */
export interface Answers<T> {
  /** What `make` gave, when the build is ready. */
  current(): T | undefined;
  /** What `make` gives, making the build on the first call (once, however many ask). */
  ready(): Promise<T>;
}

/**
 * `make` of `build`, or of the build a function makes when first asked: how `handler.ts` defers hashing and
 * compressing until a runtime allows them (Workers forbid both at import).
 */
export function answersOf<T>(build: Build | (() => Promise<Build>), make: (build: Build) => T): Answers<T> {
  if (typeof build !== "function") {
    const made = make(build);
    return { current: () => made, ready: () => Promise.resolve(made) };
  }
  let made: T | undefined;
  let pending: Promise<T> | undefined;
  return {
    current: () => made,
    // A build function that throws at once fails the promise too, as one that rejects does.
    ready: () => (pending ??= (async () => (made = make(await build())))()),
  };
}
