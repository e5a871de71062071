/**
 * The registry CLI: `npm run --silent registry -- <source.json> [--base-url URL] [--built-at RFC3339]`.
 * Writes the exact bytes /vaults.json would serve to stdout and exits 0; on any problem, writes every problem to stderr,
 * one per line, nothing to stdout, and exits 1.
 */
import type { Env } from "../contract/config.ts";
import { contextOf, planAt } from "../http/lifecycle.ts";
import { VERSIONS } from "../http/versions.ts";
import { parseCommand, type CommandSpec } from "./args.ts";
import { loadInputs } from "./inputs.ts";

const COMMAND: CommandSpec = {
  usage: "npm run --silent registry -- <source.json> [--base-url URL] [--built-at RFC3339]",
  help: `

Builds the registry document from a source file and writes its exact bytes to stdout: the
version /vaults.json serves at built_at (see the README's version table).
Warnings (a status that is "active" or "pending" only up to case or spaces) go to stderr and
do not change the exit code.

Flags:
  --base-url URL      the public base of every URL (default BASE_URL, else http://localhost:8787)
  --built-at RFC3339  built_at, like 2026-11-14T08:30:00Z (default SOURCE_DATE_EPOCH, else now)
  -h, --help          this text

Exit codes: 0 written; 1 the source or a setting is wrong (every problem on stderr, one per
line, nothing on stdout); 2 a bad flag or argument.`,
  options: { "base-url": { type: "string" }, "built-at": { type: "string" } },
  positionals: { min: 1, max: 1 },
};

/** The outcome of one CLI run, kept in memory so tests can check it without a process. */
export interface CliResult {
  readonly code: 0 | 1 | 2;
  readonly stdout: Uint8Array;
  readonly stderr: string;
}

/** Runs the CLI on `args` with `env`, without touching the process's streams. */
export async function runCli(args: readonly string[], env: Env): Promise<CliResult> {
  const parsed = parseCommand(COMMAND, args);
  if (!("ok" in parsed)) {
    return parsed.exit === 0 ? { code: 0, stdout: new TextEncoder().encode(parsed.text), stderr: "" } : { code: 2, stdout: new Uint8Array(), stderr: parsed.text };
  }
  const [path] = parsed.ok.positionals as [string];
  const { values } = parsed.ok;
  const inputs = await loadInputs(path, env, { baseUrl: values["base-url"] as string | undefined, builtAt: values["built-at"] as string | undefined });
  if ("problems" in inputs) return { code: 1, stdout: new Uint8Array(), stderr: inputs.problems.map((p) => `${p}\n`).join("") };
  const { source, config, warnings } = inputs.ok;
  const plan = planAt(VERSIONS, config.builtAt);
  if ("problems" in plan) return { code: 1, stdout: new Uint8Array(), stderr: plan.problems.map((p) => `${p}\n`).join("") };
  const { canonical } = plan.ok;
  return { code: 0, stdout: canonical.build(source, contextOf(canonical, config)).bytes, stderr: warnings.map((w) => `${w}\n`).join("") };
}

