/** Runs a command to completion with a time limit, capturing its output as bytes. */
import { spawn } from "node:child_process";
import type { Command } from "../node/common/args.ts";
import { runRegistry } from "../node/review/registry-command.ts";

export interface Finished {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** Spawns `command args` (no shell), stops it after `timeoutMs`, and resolves with what it wrote. */
export function run(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString("utf8") });
    });
  });
}

/** The environment of this process without the variables that change a build's output. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { BASE_URL: _b, SOURCE_DATE_EPOCH: _s, ...rest } = process.env;
  return { ...rest, ...extra };
}

/** Runs a command function in this process, capturing what it writes, shaped like `run`'s result. */
export async function runCommand(
  command: Command,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<Finished> {
  const out: Buffer[] = [];
  let err = "";
  const io = {
    stdout: (text: string | Uint8Array) => void out.push(Buffer.from(text)),
    stderr: (text: string) => void (err += text),
    cwd: options.cwd ?? process.cwd(),
  };
  const code = await command(args, options.env ?? process.env, io);
  return { code, stdout: Buffer.concat(out), stderr: err };
}

/** `npm run registry` (and `registry diff`) in this process with `env`, its output captured. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<Finished> {
  return runCommand(runRegistry, args, { env });
}
