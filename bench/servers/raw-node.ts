/** The limit: raw node:http writing precomputed bytes and headers, no routing. Args: <spec.json>. */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const spec = JSON.parse(readFileSync(process.argv[2] as string, "utf8")) as {
  body: string;
  headers: Record<string, string>;
};
const body = readFileSync(spec.body);
const server = createServer((_req, res) => {
  res.writeHead(200, spec.headers);
  res.end(body);
});
server.listen(
  0,
  "127.0.0.1",
  () => console.log(`raw node:http on http://127.0.0.1:${(server.address() as AddressInfo).port}`),
);
process.on("SIGTERM", () => server.close(() => process.exit(0)));
