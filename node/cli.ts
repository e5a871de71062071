/**
 * The registry CLI: `npm run --silent registry -- <source.json> [--base-url URL] [--built-at RFC3339]`.
 * Writes the exact v1 bytes to stdout and exits 0; on any problem, writes every problem to stderr,
 * one per line, nothing to stdout, and exits 1.
 */
import { parseArgs } from "node:util";
import type { Env } from "../contract/config.ts";
import { buildRegistry, serializeRegistry } from "../registry.ts";
import { loadInputs } from "./inputs.ts";

const USAGE = "usage: registry <source.json> [--base-url URL] [--built-at RFC3339]";

/** The outcome of one CLI run, kept in memory so tests can check it without a process. */
export interface CliResult {
  readonly code: 0 | 1;
  readonly stdout: Uint8Array;
  readonly stderr: string;
}

/** Runs the CLI on `args` with `env`, without touching the process's streams. */
export async function runCli(args: readonly string[], env: Env): Promise<CliResult> {
  const fail = (problems: readonly string[]): CliResult => ({
    code: 1,
    stdout: new Uint8Array(),
    stderr: problems.map((p) => `${p}\n`).join(""),
  });
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: { "base-url": { type: "string" }, "built-at": { type: "string" } },
    });
  } catch (error: unknown) {
    return fail([`${error instanceof Error ? error.message : String(error)}`, USAGE]);
  }
  if (parsed.positionals.length !== 1) return fail([USAGE]);
  const [path] = parsed.positionals as [string];

  const inputs = await loadInputs(path, env, { baseUrl: parsed.values["base-url"], builtAt: parsed.values["built-at"] });
  if ("problems" in inputs) return fail(inputs.problems);
  const { source, config } = inputs.ok;
  return { code: 0, stdout: serializeRegistry(buildRegistry(source, config)), stderr: "" };
}
