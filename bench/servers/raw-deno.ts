/** The limit on Deno: a raw Deno.serve of precomputed bytes and headers. Args: <spec.json>. */
declare const Deno: {
  args: string[];
  readTextFileSync(path: string): string;
  readFileSync(path: string): Uint8Array<ArrayBuffer>;
  serve(
    options: { hostname: string; port: number; onListen(addr: { port: number }): void },
    handler: () => Response,
  ): unknown;
};

const spec = JSON.parse(Deno.readTextFileSync(Deno.args[0] as string)) as {
  body: string;
  headers: Record<string, string>;
};
const body = Deno.readFileSync(spec.body);
Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log(`raw Deno.serve on http://127.0.0.1:${port}`) },
  () => new Response(body, { headers: spec.headers }),
);
