/**
 * Servers under test, as child processes or in this process: each listens on 127.0.0.1 on a free
 * port (port 0), is found by the URL it prints, and is stopped through its own handle. Every wait
 * is bounded.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { request } from "node:http";
import { join, resolve } from "node:path";
import { type AddressInfo, connect, createServer as createNetServer } from "node:net";
import type { Env } from "../contract/config.ts";
import type { Io } from "../node/common/args.ts";

export interface Running {
  readonly origin: string;
  readonly child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Sends `signal` and resolves with the exit code, killing it outright after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

/**
 * Starts `command` and waits (at most `timeoutMs`) for it to print an http://127.0.0.1:PORT URL, or
 * a line matching `options.ready` whose first group is the origin.
 */
export function startServer(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
  options: { cwd?: string; ready?: RegExp } = {},
): Promise<Running> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env,
      stdio: ["ignore", "pipe", "pipe"],
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    let text = "";
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    const running = (origin: string): Running => ({
      origin,
      child,
      output: () => text,
      stop: async (signal = "SIGTERM", graceMs = 10_000) => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
        const code = await exited;
        clearTimeout(timer);
        return code;
      },
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} did not print a URL within ${timeoutMs} ms:\n${text}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      text += chunk.toString("utf8");
      if (options.ready !== undefined) {
        const ready = options.ready.exec(text);
        if (ready?.[1] !== undefined) {
          clearTimeout(timer);
          resolve(running(ready[1]));
        }
        return;
      }
      const match = /http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
      if (match !== null && match[1] !== "0") {
        clearTimeout(timer);
        resolve(running(`http://127.0.0.1:${match[1]}`));
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${code}) before listening:\n${text}`));
    });
  });
}

/** A command that serves until its signal aborts, as `runServe` (`npm start`) does. */
export type ServeCommand = (argv: readonly string[], env: Env, io: Io, until?: AbortSignal) => Promise<number>;

/** A server running in this process. */
export interface InProcess {
  readonly origin: string;
  /** Everything it wrote to its io.stdout and io.stderr so far. */
  output(): string;
  /** Aborts its signal and resolves with the exit code it returns. */
  stop(): Promise<number>;
}

/**
 * Runs `command` in this process with an AbortSignal and waits (at most `timeoutMs`) for it to
 * print an http://127.0.0.1:PORT URL. If it returns or throws first, or the time runs out, the
 * promise rejects with what it wrote (and a server still starting is stopped).
 */
export async function serveInProcess(
  command: ServeCommand,
  argv: readonly string[],
  env: Env,
  timeoutMs = 30_000,
): Promise<InProcess> {
  const controller = new AbortController();
  let text = "";
  let listening: ((origin: string) => void) | undefined;
  const write = (chunk: string | Uint8Array): void => {
    text += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
    const match = /http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
    if (match !== null && match[1] !== "0") listening?.(`http://127.0.0.1:${match[1]}`);
  };
  const exited = command(argv, env, { stdout: write, stderr: write, cwd: process.cwd() }, controller.signal);
  const origin = await new Promise<string>((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      controller.abort();
      void exited.finally(() => reject(error)).catch(() => undefined);
    };
    const timer = setTimeout(() => fail(new Error(`no URL printed within ${timeoutMs} ms:\n${text}`)), timeoutMs);
    listening = (found) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(found);
    };
    exited.then((code) => fail(new Error(`returned ${code} before listening:\n${text}`)), fail);
  });
  return {
    origin,
    output: () => text,
    stop: async () => {
      controller.abort();
      return await exited;
    },
  };
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** One HTTP/1.1 request with node:http, so headers arrive exactly as the server wrote them. */
export function fetchRaw(
  url: string,
  init: { method?: string; headers?: Record<string, string> } = {},
  timeoutMs = 10_000,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: init.method ?? "GET",
      headers: init.headers ?? {},
      timeout: timeoutMs,
      agent: false,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end();
  });
}

/** A port on 127.0.0.1 that was free a moment ago, for a tool that cannot be given port 0. */
export function freePort(): Promise<number> {
  return new Promise((done, reject) => {
    const probe = createNetServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => done(port));
    });
  });
}

/**
 * Sends `bytes` as they are over one connection to 127.0.0.1:`port` and resolves with every byte
 * that came back before the server closed it, or after a 5 s limit.
 */
export function rawExchange(port: number, bytes: string): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.setTimeout(5_000, () => socket.destroy());
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("close", () => resolve(Buffer.concat(chunks)));
    socket.on("error", () => undefined);
    socket.on("connect", () => socket.end(bytes));
  });
}

/**
 * workerd serving `dir/config.capnp` (its socket `http` on 127.0.0.1:0), its port read back from
 * its control fd; stopped by its own handle.
 */
export async function serveWorkerd(
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ origin: string; output: () => string; stop: () => Promise<void> }> {
  const child = spawn(resolve("node_modules/.bin/workerd"), ["serve", join(dir, "config.capnp"), "--control-fd=3"], {
    env,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((done) => child.on("exit", () => done()));
  const stop = async () => {
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const port = await new Promise<number>((resolvePort, reject) => {
      const timer = setTimeout(() => reject(new Error(`workerd did not listen within 30 s:\n${output}`)), 30_000);
      let control = "";
      (child.stdio[3] as NodeJS.ReadableStream).on("data", (chunk: Buffer) => {
        control += chunk.toString();
        for (const line of control.split("\n").filter((l) => l.trim() !== "")) {
          const event = JSON.parse(line) as { event: string; socket?: string; port?: number };
          if (event.event === "listen" && event.socket === "http" && event.port !== undefined) {
            clearTimeout(timer);
            resolvePort(event.port);
          }
        }
      });
      child.on("exit", (code) => reject(new Error(`workerd exited (${code}):\n${output}`)));
    });
    return { origin: `http://127.0.0.1:${port}`, output: () => output, stop };
  } catch (error: unknown) {
    await stop();
    throw error;
  }
}
