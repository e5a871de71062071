/**
 * Serves handler.ts's default export with Bun on 127.0.0.1 and a free port, then prints its URL.
 * (Run by test/runtimes.test.ts; `bun handler.ts` alone would listen on every interface.)
 */
import app from "../../handler.ts";

declare const Bun: { serve(options: { hostname: string; port: number; fetch: typeof app.fetch }): { port: number } };

const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
console.log(`bun listening on http://127.0.0.1:${server.port}/`);
