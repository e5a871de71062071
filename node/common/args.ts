/** A usage error exits 2 (1 is kept for "the source or the deployment is wrong"), in one line, never a stack trace. */
import type { ParseArgsConfig } from "node:util";
import { type Env, shownArgument } from "../../contract/config.ts";
import { editDistance } from "../../contract/source.ts";
import { nodeUtil } from "./builtins.ts";
import { printable, terminalSafe } from "./printable.ts";

/** One flag: how it parses and what `--help` says of it. */
export interface Flag {
  readonly type: "string" | "boolean";
  /** What `--help` shows after the flag's name, e.g. `FILE`. */
  readonly value?: string;
  /** What it does: `--help` wraps it; a newline starts a new line. */
  readonly help: string;
  /** A command line `--help` shows whole, on a line of its own, after the text. */
  readonly example?: string;
}

/** A command: its flags, declared once (parsing, `--help` and the "did you mean" come from them), and its help text. */
export interface CommandSpec {
  /** How to run it, e.g. `npm run build -- [flags]`. */
  readonly usage: string;
  /** `--help` before the flags: what it does. */
  readonly help: string;
  readonly flags: Readonly<Record<string, Flag>>;
  /** `--help` after the flags: environment, limits, exit codes. */
  readonly notes?: string;
  readonly positionals: { readonly min: number; readonly max: number };
}

type Args = { values: Record<string, string | boolean | undefined>; positionals: string[] };

/** Parsed flags and positionals, or what to print and the exit code. */
export type Parsed = { readonly ok: Args } | { readonly exit: 0 | 2; readonly text: string };

/** How usage lines name a command: as written, or as a dispatcher names it. */
export type RenameUsage = (usage: string) => string;

/** Parses `args` against `spec` without touching the process; `usage` is the usage line its messages name. */
function parseCommand(spec: CommandSpec, args: readonly string[], usage: string): Parsed {
  const options: NonNullable<ParseArgsConfig["options"]> = { help: { type: "boolean", short: "h" } };
  for (const [name, flag] of Object.entries(spec.flags)) options[name] = { type: flag.type };
  let parsed;
  try {
    // Read when parsing: node:util loads its argument parser on first read, which a server run without arguments skips.
    parsed = nodeUtil.parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error: unknown) {
    // Node's message goes on with advice that quotes unevenly; its first sentence says it all.
    // It quotes the argument: no terminal control of it reaches the terminal, and no more than 200 characters.
    const said = (error instanceof Error ? error.message : String(error)).split(/\.\s|\n/)[0] as string;
    const message = firstChars(printable(said, ""));
    const unknown = (error as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION"
      ? /'--([^'=]+)/.exec(message)?.[1]
      : undefined;
    const near = unknown === undefined ? undefined : closest(unknown, Object.keys(spec.flags));
    const hint = near === undefined ? "" : `; did you mean --${near}?`;
    return { exit: 2, text: `${message}${hint} (usage: ${usage}; --help for more)\n` };
  }
  if (parsed.values["help"] === true) return { exit: 0, text: helpText(spec, usage) };
  const count = parsed.positionals.length;
  if (count < spec.positionals.min || count > spec.positionals.max) {
    const what = count > spec.positionals.max
      ? `unexpected argument ${shownCapped(parsed.positionals[spec.positionals.max] as string)}`
      : "missing argument";
    return { exit: 2, text: `${what} (usage: ${usage}; --help for more)\n` };
  }
  return { ok: { values: parsed.values as Args["values"], positionals: parsed.positionals } };
}

/** The most of a message's quote of an argument, in characters. */
const QUOTED_CHARS = 200;

/** `text`'s first QUOTED_CHARS characters (code points, never half a pair). */
function firstChars(text: string): string {
  return [...text].slice(0, QUOTED_CHARS).join("");
}

/** An argument as a message quotes it: at most QUOTED_CHARS characters, then `…` if cut (stderr escapes the rest). */
export function shownCapped(raw: string): string {
  const shown = shownArgument(raw);
  const cut = firstChars(shown);
  return cut.length < shown.length ? `${cut}…` : shown;
}

const HELP_WIDTH = 100;
/** A flag shown longer than this stands on a line of its own, so it does not push every other flag's text right. */
const INLINE_FLAG = 20;

/** `--help`: the usage line, what the command does, its flags from `spec.flags` and `-h`, then the notes. */
function helpText(spec: CommandSpec, usage: string): string {
  const parts = [`usage: ${usage}`, spec.help.trim()];
  const flags = Object.entries(spec.flags);
  if (flags.length > 0) {
    const shown = flags.map(([name, flag]) => ({
      ...flag,
      left: flag.value ? `--${name} ${flag.value}` : `--${name}`,
    }));
    shown.push({ type: "boolean", left: "-h, --help", help: "this text" });
    const column = 4 + Math.max(...shown.map((f) => f.left.length).filter((n) => n <= INLINE_FLAG));
    const indent = " ".repeat(column);
    const lines = shown.map((flag) => {
      const text = wrap(flag.help, HELP_WIDTH - column).map((line) => indent + line);
      if (flag.example !== undefined) text.push(indent + flag.example);
      const first = text[0] as string;
      return flag.left.length <= INLINE_FLAG
        ? [`  ${flag.left}`.padEnd(column) + first.slice(column), ...text.slice(1)]
        : [`  ${flag.left}`, ...text];
    });
    parts.push(`Flags:\n${lines.flat().join("\n")}`);
  }
  if (spec.notes !== undefined) parts.push(spec.notes.trim());
  return `${parts.join("\n\n")}\n`;
}

/** `text`'s lines, each paragraph filled to `width` at spaces (a word longer than that stands alone). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(" ").filter((w) => w !== "")) {
      if (line !== "" && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line === "" ? word : `${line} ${word}`;
    }
    lines.push(line);
  }
  return lines;
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
  readonly stdout: (text: string | Uint8Array) => void;
  readonly stderr: (text: string) => void;
  readonly cwd: string;
  /** How usage lines name the command, when a dispatcher runs it under its own name. */
  readonly renameUsage?: RenameUsage | undefined;
}

/** A command: its arguments, environment and streams in, its exit code out. It never exits the process. */
export type Command = (argv: readonly string[], env: Env, io: Io) => Promise<number>;

let stdoutGuarded = false;

/** The process's own streams and folder. A stdout that fails ends the process in one line, never a stack trace. */
export function processIo(): Io {
  if (!stdoutGuarded) {
    stdoutGuarded = true;
    // A reader gone (EPIPE: `| head`) ends the run quietly; any other failure (ENOSPC: a full disk) in one line.
    // Exit 1 either way: what was written is cut short.
    process.stdout.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") process.stderr.write(`stdout: cannot write (${error.code ?? error.message})\n`);
      process.exit(1);
    });
  }
  return {
    stdout: (text) => void process.stdout.write(text),
    // Every message, whatever value it quotes, reaches the terminal without a control character.
    stderr: (text) => void process.stderr.write(terminalSafe(text)),
    cwd: process.cwd(),
  };
}

/** Runs `command` as this process (its arguments by default, environment and streams) and sets its exit code. */
export async function runAsProcess(
  command: Command,
  argv: readonly string[] = process.argv.slice(2),
  renameUsage?: RenameUsage,
): Promise<void> {
  process.exitCode = await command(argv, process.env, { ...processIo(), renameUsage });
}

/** `spec`'s usage line as `io` names the command (the dispatcher's name for it, or the npm script's). */
export function usageLine(spec: CommandSpec, io: Io): string {
  return io.renameUsage?.(spec.usage) ?? spec.usage;
}

/** Parses `argv` against `spec`; on `--help` or a usage error, writes the text to `io` and gives the exit code. */
export function parseOrExit(spec: CommandSpec, argv: readonly string[], io: Io): Args | number {
  const parsed = parseCommand(spec, argv, usageLine(spec, io));
  if ("ok" in parsed) return parsed.ok;
  (parsed.exit === 0 ? io.stdout : io.stderr)(parsed.text);
  return parsed.exit;
}

/** Parses the process's own arguments; prints and exits on `--help` or a usage error. */
export function parseProcessArgs(spec: CommandSpec): Args {
  const parsed = parseCommand(spec, process.argv.slice(2), spec.usage);
  if ("ok" in parsed) return parsed.ok;
  const io = processIo();
  (parsed.exit === 0 ? io.stdout : io.stderr)(parsed.text);
  process.exit(parsed.exit);
}
