import { LimitError, MAX_DOCUMENT_BYTES } from "../../contract/limits.ts";
import type { Env } from "../../contract/config.ts";
import { contextOf, planAt } from "../../contract/version-policy.ts";
import { VERSIONS } from "../../assembly/versions.ts";
import { type CommandSpec, parseCommand } from "../common/args.ts";
import { asDocument, diffDocuments, type Document, type FailOn, failsOn, worstClass } from "../common/diff.ts";
import { jsonReport, markdownReport } from "./diff-report.ts";
import { printable } from "../common/printable.ts";
import { INTERNAL_KEYS_HELP, loadInputs } from "../common/inputs.ts";
import { readJson } from "../common/json-error.ts";
import { readLimited } from "../common/source-file.ts";

const COMMAND: CommandSpec = {
  usage: "npm run --silent registry -- <source.json> [--base-url URL] [--built-at RFC3339] [--internal-keys NAMES]",
  help: `
(Or: npm run --silent registry -- diff OLD.json NEW.json: see diff --help.)

Builds the registry document from a source file and writes its exact bytes to stdout: the
version /vaults.json serves at built_at (see the version table in docs/document.md).
Warnings (a status that is "active" or "pending" only up to case or spaces) go to stderr and
do not change the exit code.

Flags:
  --base-url URL      the public base of every URL (default BASE_URL, else http://localhost:8787)
  --built-at RFC3339  built_at, like 2026-11-14T08:30:00Z (default SOURCE_DATE_EPOCH, else now)
${INTERNAL_KEYS_HELP}
  -h, --help          this text

Exit codes: 0 written; 1 the source or a setting is wrong (every problem on stderr, one per
line, nothing on stdout); 2 a bad flag or argument.`,
  options: { "base-url": { type: "string" }, "built-at": { type: "string" }, "internal-keys": { type: "string" } },
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
  if (args[0] === "diff") return runDiff(args.slice(1));
  const parsed = parseCommand(COMMAND, args);
  if (!("ok" in parsed)) {
    return parsed.exit === 0
      ? { code: 0, stdout: new TextEncoder().encode(parsed.text), stderr: "" }
      : { code: 2, stdout: new Uint8Array(), stderr: parsed.text };
  }
  const [path] = parsed.ok.positionals as [string];
  const { values } = parsed.ok;
  const explicit = {
    baseUrl: values["base-url"] as string | undefined,
    builtAt: values["built-at"] as string | undefined,
  };
  const inputs = await loadInputs(path, env, explicit, undefined, values["internal-keys"] as string | undefined);
  const refused = (problems: readonly string[]): CliResult => ({
    code: 1,
    stdout: new Uint8Array(),
    stderr: problems.map((p) => `${p}\n`).join(""),
  });
  if ("problems" in inputs) return refused(inputs.problems);
  const { source, config, warnings } = inputs.ok;
  const plan = planAt(VERSIONS, config.builtAt);
  if ("problems" in plan) return refused(plan.problems);
  const { canonical } = plan.ok;
  const said = warnings.map((w) => `${w}\n`).join("");
  try {
    return { code: 0, stdout: canonical.build(source, contextOf(canonical, config)).bytes, stderr: said };
  } catch (error: unknown) {
    if (!(error instanceof LimitError)) throw error;
    return { code: 1, stdout: new Uint8Array(), stderr: `${said}${path}: ${error.message}\n` };
  }
}

const FAIL_ON: readonly FailOn[] = ["breaking", "dangerous", "privacy"];

const DIFF: CommandSpec = {
  usage:
    "npm run --silent registry -- diff OLD.json NEW.json [--json] [--fail-on breaking,dangerous,privacy] [--limit N]",
  help: `
Compares two built registry documents (what \`registry\` or the server writes; a source file
is refused, unread) and classifies every change (docs/goldens.md, "Reading a registry diff"): rows
matched by vault_slug, edges by (source, target, type). Each change has a class, from harmless
to harmful data, additive, dangerous, breaking, and a stable rule id; rows turning minimal or
full, and minimal rows added or removed, are flagged privacy-relevant, with the fields that
become public or are withdrawn.

Flags:
  --json           the changes as JSON instead of Markdown
  --fail-on LIST   exit 1 when a change meets one of a comma-separated LIST: breaking, dangerous
                   (that harmful or worse), privacy (any change in what is withheld)
  --limit N        Markdown shows at most N changes per group (default 20)
  -h, --help       this text

Exit codes: 0 compared; 1 --fail-on met; 2 a bad flag, or a file that is missing or not a
built registry document.`,
  options: { json: { type: "boolean" }, "fail-on": { type: "string" }, limit: { type: "string" } },
  positionals: { min: 2, max: 2 },
};

/** `registry diff OLD NEW`: a semantic diff of two documents (see `diff.ts`). */
async function runDiff(args: readonly string[]): Promise<CliResult> {
  const usage = (text: string): CliResult => ({ code: 2, stdout: new Uint8Array(), stderr: text });
  const parsed = parseCommand(DIFF, args);
  if (!("ok" in parsed)) {
    return parsed.exit === 0
      ? { code: 0, stdout: new TextEncoder().encode(parsed.text), stderr: "" }
      : usage(parsed.text);
  }
  const { values, positionals } = parsed.ok;
  const failOnText = values["fail-on"] as string | undefined;
  const failOn = failOnText === undefined ? [] : failOnText.split(",").map((f) => f.trim());
  const unknown = failOn.find((f) => !FAIL_ON.includes(f as FailOn));
  if (unknown !== undefined) {
    return usage(
      `--fail-on: expected a comma-separated list of ${FAIL_ON.join(", ")}, got ${
        JSON.stringify(unknown)
      } (usage: ${DIFF.usage})\n`,
    );
  }
  const limit = values["limit"] === undefined ? 20 : Number(values["limit"]);
  if (!Number.isInteger(limit) || limit < 1) {
    return usage(
      `--limit: expected a whole number of 1 or more, got ${JSON.stringify(values["limit"])} (usage: ${DIFF.usage})\n`,
    );
  }
  const documents = [];
  for (const path of positionals as [string, string]) {
    const read = await readDocument(path);
    if ("error" in read) return usage(`${printable(path)}: ${read.error}\n`);
    documents.push(read.ok);
  }
  const [oldPath, newPath] = positionals as [string, string];
  const changes = diffDocuments(documents[0]!, documents[1]!);
  const text = values["json"] === true
    ? jsonReport(changes, oldPath, newPath)
    : markdownReport(changes, oldPath, newPath, limit);
  const failed = failsOn(changes, failOn as FailOn[]);
  const privacy = changes.filter((c) => c.privacy === true).length;
  const found = `${worstClass(changes)} changes${privacy > 0 ? `, ${privacy} privacy-relevant` : ""}`;
  return {
    code: failed ? 1 : 0,
    stdout: new TextEncoder().encode(text),
    stderr: failed ? `registry diff: ${found} (--fail-on ${printable(failOnText ?? "")})\n` : "",
  };
}

async function readDocument(path: string): Promise<{ ok: Document } | { error: string }> {
  // Counted as it is read: a pipe or a device (`<(...)`, `/dev/stdin`) reports no size, and a
  // regular file over the limit is refused unread.
  const read = await readLimited(path, MAX_DOCUMENT_BYTES, "it");
  if ("error" in read) return read;
  const parsed = readJson(read.text, { says: "not JSON" });
  if ("error" in parsed) return parsed;
  return asDocument(parsed.ok);
}
