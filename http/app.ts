/** The Hono app: one route per address, each answered by `answer.ts`; nothing is computed per request. */
import { HonoBase as Hono } from "hono/hono-base";
import { LinearRouter } from "hono/router/linear-router";
import { type Answer, answersOf, BAD_REQUEST, basePathOf, INTERNAL_ERROR, problemAnswer } from "./answer.ts";
import { edgeKeeps } from "./encoding.ts";
import type { Build } from "./table.ts";
import { pathOf } from "./request-path.ts";

/**
 * The addresses a build answers (those it serves and those past their sunset, 410), and each with the base URL's path
 * in front too when it has one: some platforms strip a stage or a base-path mapping before the function sees the
 * request, others keep it.
 */
export function addressesOf(build: Pick<Build, "routes" | "gone" | "meta">): string[] {
  return withBasePath([...build.routes.keys(), ...build.gone.keys()], build.meta.baseUrl);
}

/** `paths`, and each with `baseUrl`'s path in front when it has one. */
export function withBasePath(paths: readonly string[], baseUrl: string): string[] {
  const prefix = basePathOf(baseUrl);
  return prefix === "" ? [...paths] : [...paths, ...paths.map((p) => `${prefix}${p}`)];
}

/**
 * Makes the app that serves `build`: one route per address (`addressesOf`), each answered from the precomputed table by
 * `fetchHandler`, as is any other path (its 404). Given a function instead, with the addresses it will serve, the app
 * calls it once, on the first request, and answers from its result: how `handler.ts` defers hashing and compressing
 * until a runtime allows them.
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
  const handle = fetchHandler(build);
  const app = new Hono({ router: new LinearRouter() });
  // Each route answers through the table, which knows the methods, conditions and codings; Hono names the addresses. A
  // deferred build given no addresses (a JavaScript caller) routes them all.
  const paths = addresses ?? (typeof build === "function" ? ["*"] : addressesOf(build));
  for (const path of paths) app.all(path, (c) => handle(c.req.raw));
  app.notFound((c) => handle(c.req.raw));
  // fetchHandler answers its own failures; these are Hono's own (a request it cannot route).
  app.onError(() => toResponse(problemAnswer(INTERNAL_ERROR)));
  const route = app.fetch;
  app.fetch = (request, ...rest) => {
    try {
      return route(request, ...rest);
    } catch {
      return toResponse(problemAnswer(INTERNAL_ERROR));
    }
  };
  return app;
}

/**
 * The app's answering: a web `Request` in, a `Response` out, never a thrown error. Every route of the app above answers
 * through it.
 *
 * @example
 * ```ts
 * import type { Build } from "./table.ts";
 * function serve(build: Build): Promise<Response> {
 *   const handle = fetchHandler(build);
 *   return Promise.resolve(handle(new Request("https://registry.example.org/vaults.json")));
 * }
 * ```
 */
export function fetchHandler(
  build: Build | (() => Promise<Build>),
): (request: Request) => Response | Promise<Response> {
  const answers = answersOf(build);
  return (raw) => {
    // Whatever throws (a runtime's request object, a build function, an answer) is a bare 500, never an exception out
    // of the runtime's fetch: HEAD's without its body.
    let method: string | undefined;
    const failed = (): Response => toResponse(problemAnswer(INTERNAL_ERROR, method));
    try {
      method = raw.method;
      // Cloudflare (and wrangler dev) hand a Worker `Accept-Encoding: br, gzip` whatever the client sent, keeping the
      // client's own in `request.cf.clientAcceptEncoding`: answer with the coding the edge will keep for that client,
      // so it gets this build's own bytes and ETag for it.
      const client = (raw as { cf?: { clientAcceptEncoding?: unknown } }).cf?.clientAcceptEncoding;
      const kept = typeof client === "string" ? edgeKeeps(client) : undefined;
      const header = kept === undefined
        ? (name: string) => raw.headers.get(name)
        : (name: string) => (name === "accept-encoding" ? kept : raw.headers.get(name));
      // The raw URL, not a decoded path: the path rule never decodes (request-path.ts).
      const path = pathOf(raw.url);
      if (path === null) return toResponse(problemAnswer(BAD_REQUEST, method));
      const answer = answers.current();
      if (answer !== undefined) return toResponse(answer(method, path, header));
      const asked = method;
      return answers.ready().then((a): Response => toResponse(a(asked, path, header))).catch(failed);
    } catch {
      return failed();
    }
  };
}

/** An answer as a web Response. */
export function toResponse(answer: Answer): Response {
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
