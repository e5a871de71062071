/** A usage error exits 2 (1 is kept for "the source or the deployment is wrong"), in one line, never a stack trace. */
import type { ParseArgsConfig } from "node:util";
import { type Env, shownArgument } from "../../contract/config.ts";
import { editDistance } from "../../contract/source.ts";
import { nodeUtil } from "./builtins.ts";
import { printable } from "./printable.ts";

const { parseArgs } = nodeUtil;

/** A command's flags and help text. */
export interface CommandSpec {
  /** How to run it, e.g. `npm run build -- [flags]`. */
  readonly usage: string;
  /** The rest of `--help`: what it does, every flag, environment, exit codes. */
  readonly help: string;
  readonly options: NonNullable<ParseArgsConfig["options"]>;
  readonly positionals: { readonly min: number; readonly max: number };
}

type Args = { values: Record<string, string | boolean | undefined>; positionals: string[] };

/** Parsed flags and positionals, or what to print and the exit code. */
export type Parsed = { readonly ok: Args } | { readonly exit: 0 | 2; readonly text: string };

/** How usage lines name a command: as the npm scripts run it, unless a dispatcher renames it. */
let usageOf = (spec: CommandSpec): string => spec.usage;

/** Renames every usage line printed from now on: the package's `registry-endpoint` names its subcommands. */
export function renameUsage(rename: (usage: string) => string): void {
  usageOf = (spec) => rename(spec.usage);
}

/** Parses `args` against `spec` without touching the process. */
export function parseCommand(spec: CommandSpec, args: readonly string[]): Parsed {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { ...spec.options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error: unknown) {
    // Node's message goes on with advice that quotes unevenly; its first sentence says it all.
    // It quotes the argument: no terminal control of it reaches the terminal, and no more than 200 characters.
    const said = (error instanceof Error ? error.message : String(error)).split(/\.\s|\n/)[0] as string;
    const message = [...printable(said, "")].slice(0, 200).join("");
    const unknown = (error as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION"
      ? /'--([^'=]+)/.exec(message)?.[1]
      : undefined;
    const near = unknown === undefined ? undefined : closest(unknown, Object.keys(spec.options));
    const hint = near === undefined ? "" : `; did you mean --${near}?`;
    return { exit: 2, text: `${message}${hint} (usage: ${usageOf(spec)}; --help for more)\n` };
  }
  if (parsed.values["help"] === true) return { exit: 0, text: `usage: ${usageOf(spec)}\n\n${spec.help.trim()}\n` };
  const count = parsed.positionals.length;
  if (count < spec.positionals.min || count > spec.positionals.max) {
    const what = count > spec.positionals.max
      ? `unexpected argument ${shownArgument(parsed.positionals[spec.positionals.max] as string)}`
      : "missing argument";
    return { exit: 2, text: `${what} (usage: ${usageOf(spec)}; --help for more)\n` };
  }
  return { ok: { values: parsed.values as Args["values"], positionals: parsed.positionals } };
}

/** Of `known`, the name closest to `given` within two edits (a misspelt flag or command), if one is. */
export function closest(given: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(given, name, 2);
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Where a command writes and the folder it works in: the process's, or a test's. */
export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd: string;
}

/** A command: its arguments, environment and streams in, its exit code out. It never exits the process. */
export type Command = (argv: readonly string[], env: Env, io: Io) => Promise<number>;

/** The process's own streams and folder. */
export function processIo(): Io {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    cwd: process.cwd(),
  };
}

/** Runs `command` as this process: its arguments, environment and streams; its exit code. */
export async function runAsProcess(command: Command): Promise<void> {
  process.exitCode = await command(process.argv.slice(2), process.env, processIo());
}

/** Parses `argv` against `spec`; on `--help` or a usage error, writes the text to `io` and gives the exit code. */
export function parseOrExit(spec: CommandSpec, argv: readonly string[], io: Io): Args | number {
  const parsed = parseCommand(spec, argv);
  if ("ok" in parsed) return parsed.ok;
  (parsed.exit === 0 ? io.stdout : io.stderr)(parsed.text);
  return parsed.exit;
}

/** Parses the process's own arguments; prints and exits on `--help` or a usage error. */
export function parseProcessArgs(spec: CommandSpec): Args {
  const parsed = parseCommand(spec, process.argv.slice(2));
  if ("ok" in parsed) return parsed.ok;
  (parsed.exit === 0 ? process.stdout : process.stderr).write(parsed.text);
  process.exit(parsed.exit);
}
