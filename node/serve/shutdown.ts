import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Env } from "../../contract/config.ts";
import { CANONICAL_PATH } from "../../contract/version-policy.ts";
import type { BuildMeta } from "../../assembly/prepare.ts";
import { pathOf } from "../../http/request-path.ts";
import type { Io } from "../common/args.ts";
import { nodeDiagnostics, nodeHttp, nodeNet } from "../common/builtins.ts";
import { oneLine } from "../common/printable.ts";
import { answerClientError, answerConnect, guarded } from "./request-guard.ts";

/** docs/http.md, "Slow clients" (Node checks every 30 s by default); a missing `Host` is left to `request-guard.ts`. */
const HTTP_LIMITS = {
  headersTimeout: 10_000,
  requestTimeout: 15_000,
  connectionsCheckingInterval: 1_000,
  keepAliveTimeout: 5_000,
  requireHostHeader: false,
} as const;

const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;

/** How long a graceful stop may wait for in-flight requests before it closes what is left. */
const DRAIN_MS = 10_000;

/** Where a server listens and what it says. */
export interface ServerOptions {
  readonly host: string;
  readonly port: number;
  /** The source file the build was made from, for the start line. */
  readonly sourceName: string;
  readonly meta: BuildMeta;
  /** LOG_REQUESTS=1: one JSON line per request on `io.stdout`. */
  readonly logRequests: boolean;
}

/** HOST, PORT and LOG_REQUESTS from the environment, or every problem with them. */
export function serverEnv(
  env: Env,
): { ok: { host: string; port: number; logRequests: boolean } } | { problems: string[] } {
  const problems: string[] = [];
  const rawPort = env["PORT"] || "8787";
  if (!/^\d{1,5}$/.test(rawPort) || Number(rawPort) > 65535) {
    problems.push(`PORT: expected a port number from 0 to 65535, got ${JSON.stringify(env["PORT"])}`);
  }
  const log = env["LOG_REQUESTS"] ?? "";
  if (!["", "0", "1"].includes(log)) {
    problems.push(`LOG_REQUESTS: expected 1 (log each request) or 0, got ${JSON.stringify(log)}`);
  }
  if (problems.length > 0) return { problems };
  return { ok: { host: env["HOST"] || "127.0.0.1", port: Number(rawPort), logRequests: log === "1" } };
}

/** Serves `listener` behind `request-guard.ts` until SIGTERM, SIGINT or `until` aborts; resolves with the exit code. */
export function runServer(
  listener: RequestListener,
  options: ServerOptions,
  io: Io,
  until?: AbortSignal,
): Promise<number> {
  if (until?.aborted === true) return Promise.resolve(0);
  return new Promise((resolve) => {
    const server = nodeHttp.createServer(HTTP_LIMITS, guarded(listener));
    server.on("connect", answerConnect);
    server.on("clientError", answerClientError);
    // Before the app's own listener, which may answer synchronously.
    if (options.logRequests) server.prependListener("request", (req, res) => logRequest(req, res, io));
    let drain: NodeJS.Timeout | undefined;
    let sweep: NodeJS.Timeout | undefined;
    let done = false;
    let stopping = false;
    const finish = (code: number): void => {
      if (done) return;
      done = true;
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
      until?.removeEventListener("abort", onAbort);
      clearTimeout(drain);
      clearInterval(sweep);
      resolve(code);
    };
    server.on("error", (error: Error) => {
      io.stderr(`cannot listen on ${oneLine(options.host)}:${options.port}: ${oneLine(error.message)}\n`);
      server.close(() => finish(1));
    });
    server.once("listening", () => {
      const info = server.address() as AddressInfo;
      const origin = `http://${info.family === "IPv6" ? `[${info.address}]` : info.address}:${info.port}`;
      const { meta } = options;
      io.stdout(
        `registry: serving ${options.sourceName} (${meta.vaultCount} vaults, ${meta.edgeCount} edges, built_at ${meta.builtAt}, ` +
          `base URL ${meta.baseUrl}, ETag ${meta.etag}) on ${origin}${CANONICAL_PATH} and ${origin}${meta.canonicalOf} (pid ${process.pid})\n`,
      );
    });
    listen(server, options.port, options.host);
    const stop = (why: string): void => {
      if (stopping || done) return;
      stopping = true;
      // Once stopping, no connection is kept alive past its answer (it would hold the stop): an answer begun after says
      // Connection: close, one begun before is swept once sent. Added only now: serving runs one request listener.
      server.prependListener("request", (_req: IncomingMessage, res: ServerResponse) => {
        res.shouldKeepAlive = false;
      });
      // Asked before it listens: the stop waits for the listening (or for the error that ends it).
      if (!server.listening) {
        server.once("listening", () => stopListening(why));
        return;
      }
      stopListening(why);
    };
    const stopListening = (why: string): void => {
      const started = Date.now();
      io.stdout(
        `registry: ${why}: stopping; no new connections, requests under way may finish (at most ${
          DRAIN_MS / 1000
        } s)\n`,
      );
      server.close(() => {
        io.stdout(`registry: stopped after ${Date.now() - started} ms\n`);
        finish(0);
      });
      // Idle keep-alive connections would hold close() open: in-flight ones are closed once idle.
      server.closeIdleConnections();
      sweep = setInterval(() => server.closeIdleConnections(), 50);
      sweep.unref();
      drain = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
      drain.unref();
    };
    const onSignal = (signal: NodeJS.Signals): void => stop(signal);
    const onAbort = (): void => stop("stop requested");
    for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
    until?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Node's own step of `listen` once it knows the address (`net.js`' `setupListenHandle`, kept as `_listen2`). */
type ListenHandle = (address: string, port: number, family: 4, backlog?: number, fd?: number, flags?: number) => void;

/**
 * `server.listen(port, host)`, without what Node does first for a host that is an IPv4 address: a DNS lookup of it (the
 * dns module), the IPv6 test of its answer (a regular expression whose first use takes 6 to 8 ms) and the cluster
 * module (with child_process), about 10 ms of the server's start. Node, given the address, only binds it: its own
 * `_listen2` step, which `listen` calls next (Node 20 to 26; their code names it a kept alias). Any other host, a process
 * with an IPC channel (a cluster worker, whose primary holds the socket: Node deletes NODE_UNIQUE_ID from its
 * environment, so the channel is what tells), a process whose listens are traced (`listen` publishes the start of the
 * trace that `_listen2` ends) and a runtime without that step go through `listen`.
 */
export function listen(server: Server, port: number, host: string): void {
  const bind = (server as Server & { _listen2?: ListenHandle })._listen2;
  if (nodeNet.isIPv4(host) && typeof bind === "function" && process.send === undefined && !traced()) {
    bind.call(server, host, port, 4);
    return;
  }
  server.listen(port, host);
}

/** True when something traces listens: `diagnostics_channel`'s tracing channel that `listen` starts. */
function traced(): boolean {
  return nodeDiagnostics.hasSubscribers("tracing:net.server.listen:asyncStart");
}

/**
 * For a process that serves: `until` for `runServer`, aborting on SIGTERM or SIGINT. Its listeners stay, so a second
 * signal while the process ends leaves the exit code 0; a signal before `runServer` listens ends the process.
 */
export function processStopSignal(): AbortSignal {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!controller.signal.aborted && process.listenerCount(signal) === 1) {
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
      process.kill(process.pid, signal);
      return;
    }
    // After runServer's own listener, so that its stop line names the signal.
    setImmediate(() => controller.abort());
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  return controller.signal;
}

/**
 * One JSON line per request: method, path, status, bytes sent, duration. Never the query string, userinfo or host
 * of the target, headers or bodies: only the path (see `http/request-path.ts`).
 */
function logRequest(req: IncomingMessage, res: ServerResponse, io: Io): void {
  const started = performance.now();
  // Count the body bytes as they are written: headers given to writeHead are not kept for getHeader.
  let bytes = 0;
  const count = (chunk: unknown): void => {
    if (typeof chunk === "string") bytes += Buffer.byteLength(chunk);
    else if (chunk instanceof Uint8Array) bytes += chunk.byteLength;
  };
  const { write, end } = res;
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    count(chunk);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof res.write;
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    if (typeof chunk !== "function") count(chunk);
    return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as typeof res.end;
  res.on("finish", () => {
    const line = {
      time: new Date().toISOString(),
      method: req.method,
      path: pathOf(req.url ?? "") ?? "(not a path)",
      status: res.statusCode,
      bytes,
      ms: Math.round((performance.now() - started) * 100) / 100,
    };
    io.stdout(`${JSON.stringify(line)}\n`);
  });
}
