/**
 * Serves a fetch artifact's default export with Bun on 127.0.0.1 and a free port, then prints its
 * URL. (Run by test/platforms.test.ts; `bun dist/fetch/index.mjs` alone would listen on every
 * interface.) Usage: bun test/runtimes/bun-serve.ts <module>
 */
declare const Bun: {
  serve(
    options: { hostname: string; port: number; fetch: (request: Request) => Response | Promise<Response> },
  ): { port: number };
};

const mod = (await import(String(process.argv[2]))) as {
  default: { fetch: (request: Request) => Response | Promise<Response> };
};
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: mod.default.fetch });
console.log(`bun listening on http://127.0.0.1:${server.port}/`);
