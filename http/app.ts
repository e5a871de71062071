/** The Hono app: one route per address, each answered by its precomputed answer; nothing is computed per request. */
import { HonoBase as Hono } from "hono/hono-base";
import type { Params, Result, Router } from "hono/router";
import {
  type AddressAnswer,
  addressAnswers,
  type Answer,
  answersOf,
  BAD_REQUEST,
  basePathOf,
  type HeaderReader,
  INTERNAL_ERROR,
  notFoundAnswer,
  problemAnswer,
} from "./answer.ts";
import { edgeKeeps } from "./encoding.ts";
import type { Build } from "./table.ts";
import { pathOf } from "./request-path.ts";

/** The addresses `addressAnswers` (answer.ts) answers: served and gone paths, each under the base URL's path too. */
export function addressesOf(build: Pick<Build, "routes" | "gone" | "meta">): string[] {
  return withBasePath([...build.routes.keys(), ...build.gone.keys()], build.meta.baseUrl);
}

/** `paths`, and each with `baseUrl`'s path in front when it has one. */
export function withBasePath(paths: readonly string[], baseUrl: string): string[] {
  const prefix = basePathOf(baseUrl);
  return prefix === "" ? [...paths] : [...paths, ...paths.map((p) => `${prefix}${p}`)];
}

/**
 * Makes the app that serves `build`: Hono routes each address (`addressesOf`) to that address's precomputed answer,
 * and answers any other path with 404 (400 for a target with no path). Given a function instead, with the addresses
 * it will serve, the app calls it once, on the first request to an address, and answers from its result: how
 * `handler.ts` defers hashing and compressing until a runtime allows them. No route throws: a failure is a bare 500.
 *
 * @example
 * ```ts
 * import type { Build } from "./table.ts";
 * function documentOf(build: Build): Response | Promise<Response> {
 *   return createApp(build).request("/vaults.json");
 * }
 * ```
 */
export function createApp(build: Build): Hono;
export function createApp(build: () => Promise<Build>, addresses: readonly string[]): Hono;
export function createApp(build: Build | (() => Promise<Build>), addresses?: readonly string[]): Hono {
  const answers = answersOf(build, addressAnswers);
  const app = new Hono({ router: new AddressRouter(), getPath: targetPath });
  // A deferred build given no addresses (a JavaScript caller) routes them all, each to its own answer once built.
  const paths = addresses ?? (typeof build === "function" ? [ANY] : addressesOf(build));
  for (const path of new Set(paths)) {
    const address = path === ANY ? undefined : path;
    const answerIn = (table: ReadonlyMap<string, AddressAnswer>, requested: string) =>
      table.get(address ?? requested) ?? notFoundAnswer;
    // The address's own answer, bound once its build is ready: no lookup per request.
    let bound: AddressAnswer | undefined;
    app.all(path, (c) => {
      if (bound !== undefined) return respond(c.req.raw, bound);
      const table = answers.current();
      if (table === undefined) return answers.ready().then((t) => respond(c.req.raw, answerIn(t, c.req.path)), failure);
      const answer = answerIn(table, c.req.path);
      if (address !== undefined) bound = answer;
      return respond(c.req.raw, answer);
    });
  }
  app.notFound((c) => {
    const path = c.req.path;
    if (path === UNREADABLE) return failure();
    return respond(c.req.raw, path === NO_PATH ? badRequestAnswer : notFoundAnswer);
  });
  // Hono's own failures (a request it cannot route); the routes above answer theirs.
  app.onError(() => failure());
  // Hono reads `request.method` before any handler or onError can catch: a request object that fails there (or none
  // at all) is a bare 500 too, never an exception out of the runtime's fetch.
  const route = app.fetch;
  app.fetch = (request, ...rest) => {
    try {
      return route(request, ...rest);
    } catch {
      return failure();
    }
  };
  return app;
}

/** A route that matches every address (a deferred build given none). */
const ANY = "/*";
/** What `targetPath` routes a target with no path (`*`, another scheme, a URL the parser refuses) to: no address. */
const NO_PATH = "";
/** What `targetPath` routes a request whose URL cannot be read to: no address. */
const UNREADABLE = "?";

/** Hono's path of a request: the path rule's (request-path.ts), never decoded, not Hono's own (which decodes). */
function targetPath(request: Request): string {
  try {
    return pathOf(request.url) ?? NO_PATH;
  } catch {
    return UNREADABLE;
  }
}

const badRequestAnswer: AddressAnswer = (method) => problemAnswer(BAD_REQUEST, method);

/**
 * Hono's router for this app: an address is one exact string, matched by one lookup. Hono's linear router also matches
 * an address with a trailing slash, which the path rule makes another path (404). Exported for the bench's router rows.
 */
export class AddressRouter<T> implements Router<T> {
  readonly name = "AddressRouter";
  readonly #routes = new Map<string, [T, Params][]>();
  #any: [T, Params][] = [];

  add(_method: string, path: string, handler: T): void {
    if (path === ANY) this.#any = [[handler, {}]];
    else this.#routes.set(path, [[handler, {}]]);
  }

  match(_method: string, path: string): Result<T> {
    // Only a path (it starts with "/") is any address: NO_PATH and UNREADABLE reach the not-found handler.
    return [this.#routes.get(path) ?? (path.startsWith("/") ? this.#any : [])];
  }
}

/**
 * `answer` to `raw` as a web Response; whatever throws (a runtime's request object, an answer) is a bare 500, never an
 * exception out of the runtime's fetch.
 */
function respond(raw: Request, answer: AddressAnswer): Response {
  try {
    return toResponse(answer(raw.method, headerReader(raw)));
  } catch {
    return failure();
  }
}

/** A bare 500; Hono sends a HEAD answer without its body. */
function failure(): Response {
  return toResponse(problemAnswer(INTERNAL_ERROR));
}

/**
 * The request's headers. Cloudflare (and wrangler dev) hand a Worker `Accept-Encoding: br, gzip` whatever the client
 * sent, keeping the client's own in `request.cf.clientAcceptEncoding`: answer with the coding the edge will keep for
 * that client, so it gets this build's own bytes and ETag for it.
 */
function headerReader(raw: Request): HeaderReader {
  const client = (raw as { cf?: { clientAcceptEncoding?: unknown } }).cf?.clientAcceptEncoding;
  const kept = typeof client === "string" ? edgeKeeps(client) : undefined;
  return kept === undefined
    ? (name) => raw.headers.get(name)
    : (name) => (name === "accept-encoding" ? kept : raw.headers.get(name));
}

function toResponse(answer: Answer): Response {
  return new Response(answer.body, responseInit(answer));
}

/**
 * The `ResponseInit` of an answer. A precompressed body says `encodeBody: "manual"`, so that Cloudflare Workers send it
 * as is instead of compressing it a second time; other runtimes ignore the option (and a `Response` does not show it,
 * so this is where it is tested).
 */
export function responseInit(answer: Answer): ResponseInit & { encodeBody?: "manual" } {
  const init = { status: answer.status, headers: answer.headers as Record<string, string> };
  return answer.headers["content-encoding"] === undefined ? init : { ...init, encodeBody: "manual" };
}
