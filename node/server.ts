/**
 * `npm start`: the registry on a plain Node server.
 *
 * Environment: HOST (default 127.0.0.1), PORT (default 8787; 0 picks a free port), REGISTRY_SOURCE
 * (a source file; default the embedded snapshot), BASE_URL, SOURCE_DATE_EPOCH. Any problem is
 * printed to stderr and the process exits 1 before listening. SIGTERM and SIGINT stop accepting
 * connections, let in-flight requests finish, and exit 0.
 */
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { createApp } from "../http/app.ts";
import { prepareBuild } from "../http/prepare.ts";
import { PATHS } from "../registry.ts";
import { zlibCompress } from "./compress.ts";
import { loadInputs, SNAPSHOT } from "./inputs.ts";

/** How long a graceful stop may wait for in-flight requests before it closes what is left. */
const DRAIN_MS = 10_000;

const env = process.env;
const problems: string[] = [];
const host = env["HOST"] || "127.0.0.1";
const port = Number(env["PORT"] || "8787");
if (!/^\d+$/.test(env["PORT"] || "8787") || port > 65535) problems.push(`PORT: expected a port number from 0 to 65535, got ${JSON.stringify(env["PORT"])}`);
const inputs = await loadInputs(env["REGISTRY_SOURCE"] || SNAPSHOT, env);
if ("problems" in inputs) problems.push(...inputs.problems);
if ("problems" in inputs || problems.length > 0) {
  process.stderr.write(problems.map((p) => `${p}\n`).join(""));
  process.exit(1);
}
const { source, config } = inputs.ok;

const app = createApp(await prepareBuild(source, config, { compress: zlibCompress }));
const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
  const origin = `http://${info.family === "IPv6" ? `[${info.address}]` : info.address}:${info.port}`;
  console.log(`registry listening on ${origin}${PATHS.canonical} and ${origin}${PATHS.versioned} (base URL ${config.baseUrl}, built_at ${config.builtAt})`);
});
server.on("error", (error: Error) => {
  process.stderr.write(`cannot listen on ${host}:${port}: ${error.message}\n`);
  process.exit(1);
});

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  server.close(() => process.exit(0));
  // Idle keep-alive connections would hold close() open; in-flight requests are left to finish.
  if ("closeIdleConnections" in server) server.closeIdleConnections();
  setTimeout(() => {
    if ("closeAllConnections" in server) server.closeAllConnections();
  }, DRAIN_MS).unref();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

