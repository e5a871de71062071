/**
 * Run by test/verify-bounds.test.ts under `--expose-gc` on each Node line: verify against a server
 * that stalls (`headers`: sends nothing; `body`: sends headers and one byte), with collections forced
 * while the request waits. Prints the checks as JSON.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { verify } from "../node/verify/verify.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --expose-gc");
const stall = process.argv[2];
const server = createServer((_req, res) => {
  if (stall === "body") res.writeHead(200, { "content-type": "application/json" }).write("{");
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const collect = setInterval(gc, 25);
try {
  const checks = await verify(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {
    timeoutMs: 500,
    deadlineMs: 6_000,
  });
  process.stdout.write(`${JSON.stringify(checks)}\n`);
} finally {
  clearInterval(collect);
  server.closeAllConnections();
  server.close();
}
