/**
 * The Hono app: the registry's addresses over precomputed answers (docs/choices.md). One Hono app
 * serves every fetch runtime; a request is answered by `answer.ts`, the same function the Lambda
 * mapping and the Node server use. Nothing is serialized, hashed or assembled per request.
 */
import { HonoBase as Hono } from "hono/hono-base";
import { LinearRouter } from "hono/router/linear-router";
import { answersOf, BAD_REQUEST, INTERNAL_ERROR, problemAnswer, type Answer } from "./answer.ts";
import { edgeKeeps } from "./encoding.ts";
import type { Build } from "./prepare.ts";
import { pathOf } from "./request-path.ts";

/**
 * Makes the app that serves `build`: `/vaults.json`, and each served version's document (the
 * same bytes, for the version `/vaults.json` serves) and schema. Paths match exactly (a trailing
 * slash is another path).
 * Given a function instead, the app calls it once, on the first request, and answers from its
 * result: how `handler.ts` defers hashing and compressing until a runtime allows them.
 *
 * @example
 * const app = createApp(await prepareBuild(source, { baseUrl, builtAt }));
 * const res = await app.request("/vaults.json");
 */
export function createApp(build: Build | (() => Promise<Build>)): Hono {
  const handle = fetchHandler(build);
  const app = new Hono({ router: new LinearRouter() });
  // One catch-all route: the paths are static, so no router needs to do more.
  // fetchHandler answers every failure itself, so the app needs no onError.
  app.all("*", (c) => handle(c.req.raw));
  return app;
}

/**
 * The app's answering without the framework: a web `Request` in, a `Response` out. The deploy
 * artifact `dist/fetch/index.mjs` exports it as its `fetch`, so a request there costs no router,
 * context or middleware chain (Deno serves it at the rate of a bare `Deno.serve`); the Hono app
 * above routes every request to it, so both answer alike.
 *
 * @example
 * export default { fetch: fetchHandler(restoreBuild(stamp)) };
 */
export function fetchHandler(build: Build | (() => Promise<Build>)): (request: Request) => Response | Promise<Response> {
  const answers = answersOf(build);
  return (raw) => {
    // Whatever throws (a runtime's request object, a build function, an answer) is a bare 500,
    // never an exception out of the runtime's fetch: HEAD's without its body.
    const failed = (): Response => toResponse(problemAnswer(INTERNAL_ERROR, raw.method));
    try {
      // Cloudflare (and wrangler dev) hand a Worker `Accept-Encoding: br, gzip` whatever the client
      // sent, keeping the client's own in `request.cf.clientAcceptEncoding`: answer with the coding
      // the edge will keep for that client, so it gets this build's own bytes and ETag for it.
      const client = (raw as { cf?: { clientAcceptEncoding?: unknown } }).cf?.clientAcceptEncoding;
      const kept = typeof client === "string" ? edgeKeeps(client) : undefined;
      const header = kept === undefined ? (name: string) => raw.headers.get(name) : (name: string) => (name === "accept-encoding" ? kept : raw.headers.get(name));
      // The raw URL, not a decoded path: the path rule never decodes (request-path.ts).
      const path = pathOf(raw.url);
      if (path === null) return toResponse(problemAnswer(BAD_REQUEST, raw.method));
      const answer = answers.current();
      if (answer !== undefined) return toResponse(answer(raw.method, path, header));
      return answers.ready().then((a): Response => toResponse(a(raw.method, path, header))).catch(failed);
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
 * The `ResponseInit` of an answer. A precompressed body says `encodeBody: "manual"`, so that
 * Cloudflare Workers send it as is instead of compressing it a second time; other runtimes ignore
 * the option (and a `Response` does not show it, so this is where it is tested).
 */
export function responseInit(answer: Answer): ResponseInit & { encodeBody?: "manual" } {
  const init = { status: answer.status, headers: answer.headers as Record<string, string> };
  return answer.headers["content-encoding"] === undefined ? init : { ...init, encodeBody: "manual" };
}
