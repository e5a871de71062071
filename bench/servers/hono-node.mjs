// The alternative to the one Node listener: the fetch artifact's Hono app (its default export)
// through @hono/node-server. Args: <dist/fetch/index.mjs>. Plain JavaScript, as dist/node/server.mjs
// runs, so that its cold start compares: a TypeScript loader's start-up would inflate it.
import { getRequestListener } from "@hono/node-server";
import { createServer } from "node:http";

const app = (await import(process.argv[2])).default;
const server = createServer(getRequestListener(app.fetch));
server.listen(
  0,
  "127.0.0.1",
  () => console.log(`hono on @hono/node-server on http://127.0.0.1:${server.address().port}`),
);
process.on("SIGTERM", () => server.close(() => process.exit(0)));
