/**
 * Runs a Netlify site folder through @netlify/dev in this process (`new NetlifyDev(...)`, then
 * `handle(request)` per request) and exposes it on 127.0.0.1 and a free port, so the platform
 * tests can speak HTTP to it like to every other runtime. Bodies pass through untouched. A request
 * Netlify does not route answers 404 with `x-test-netlify: no match` (Netlify's own 404 page).
 * Usage: <node 22> --import tsx test/runtimes/netlify-serve.ts <site folder> [--static]
 * (`--static`: serve the site's publish folder too, with its `_headers`, as Netlify's CDN does).
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// @netlify/dev lives in deploy/tools/ with netlify-cli (it needs Node 22.12, as they do), so this
// runs under the Node 22 that npm ci brings, and loads its ES module entry by its package's exports.
const pkg = join(
  resolve(dirname(fileURLToPath(import.meta.url)), "../.."),
  "deploy",
  "tools",
  "node_modules",
  "@netlify",
  "dev",
);
const entry =
  (JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { exports: { ".": { import: { default: string } } } })
    .exports["."].import.default;
interface Dev {
  start(): Promise<unknown>;
  handle(request: Request): Promise<Response | undefined>;
  stop(): Promise<unknown>;
}
const { NetlifyDev } = (await import(pathToFileURL(join(pkg, entry)).href)) as {
  NetlifyDev: new (options: Record<string, unknown>) => Dev;
};

const off = { enabled: false };
const dev = new NetlifyDev({
  projectRoot: String(process.argv[2]),
  // Only functions: no network look-ups (geolocation, AI gateway), no other emulated features.
  aiGateway: off,
  blobs: off,
  database: off,
  edgeFunctions: off,
  environmentVariables: off,
  geolocation: off,
  images: off,
  staticFiles: process.argv[3] === "--static" ? { enabled: true } : off,
  serverAddress: "http://127.0.0.1:9", // required by the API; used only by edge functions and images, both off
  logger: {
    log: () => undefined,
    warn: (...args: unknown[]) => console.error(...args),
    error: (...args: unknown[]) => console.error(...args),
  } as never,
});
await dev.start();
const server = createServer((req, res) => {
  const headers = Object.entries(req.headers).flatMap((
    [k, v],
  ) => (typeof v === "string" ? [[k, v] as [string, string]] : []));
  dev
    .handle(new Request(`http://localhost${req.url ?? "/"}`, { method: req.method ?? "GET", headers }))
    .then(async (response) => {
      if (response === undefined) {
        res.writeHead(404, { "x-test-netlify": "no match" }).end();
        return;
      }
      const body = Buffer.from(await response.arrayBuffer());
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(req.method === "HEAD" ? undefined : body);
    })
    .catch((error: unknown) => {
      res.writeHead(599).end(String(error));
    });
});
server.listen(
  0,
  "127.0.0.1",
  () => console.log(`netlify dev listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/`),
);
const stop = () => server.close(() => void dev.stop().then(() => process.exit(0)));
process.on("SIGTERM", stop);
