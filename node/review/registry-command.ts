import { LimitError, MAX_DOCUMENT_BYTES } from "../../contract/limits.ts";
import type { Env } from "../../contract/config.ts";
import { contextOf, planAt } from "../../contract/version-policy.ts";
import { VERSIONS } from "../../assembly/versions.ts";
import { type Command, type CommandSpec, type Io, parseOrExit, usageLine } from "../common/args.ts";
import { asDocument, diffDocuments, type Document, type FailOn, failsOn, worstClass } from "../common/diff.ts";
import { jsonReport, markdownReport } from "./diff-report.ts";
import { oneLine, printable } from "../common/printable.ts";
import { INTERNAL_KEYS_FLAG, loadInputs } from "../common/inputs.ts";
import { readJson } from "../common/json-error.ts";
import { readLimited } from "../common/source-file.ts";

const COMMAND: CommandSpec = {
  usage: "npm run --silent registry -- <source.json> [--base-url URL] [--built-at RFC3339] [--internal-keys NAMES]",
  help: `
(Or: npm run --silent registry -- diff OLD.json NEW.json: see diff --help.)

Builds the registry document from a source file and writes its exact bytes to stdout: the
version /vaults.json serves at built_at (see the version table in docs/document.md).
Warnings (a status that is "active" or "pending" only up to case or spaces) go to stderr and
do not change the exit code.`,
  flags: {
    "base-url": {
      type: "string",
      value: "URL",
      help: "the public base of every URL (default BASE_URL, else http://localhost:8787)",
    },
    "built-at": {
      type: "string",
      value: "RFC3339",
      help: "built_at, like 2026-11-14T08:30:00Z (default SOURCE_DATE_EPOCH, else now)",
    },
    "internal-keys": INTERNAL_KEYS_FLAG,
  },
  notes: `
Exit codes: 0 written; 1 the source or a setting is wrong (every problem on stderr, one per
line, nothing on stdout); 2 a bad flag or argument.`,
  positionals: { min: 1, max: 1 },
};

/** `registry SOURCE` writes the document's exact bytes; `registry diff OLD NEW` compares two documents. */
export const runRegistry: Command = (argv, env, io) =>
  argv[0] === "diff" ? runDiff(argv.slice(1), io) : runPreview(argv, env, io);

async function runPreview(argv: readonly string[], env: Env, io: Io): Promise<number> {
  const parsed = parseOrExit(COMMAND, argv, io);
  if (typeof parsed === "number") return parsed;
  const [path] = parsed.positionals as [string];
  const { values } = parsed;
  const explicit = {
    baseUrl: values["base-url"] as string | undefined,
    builtAt: values["built-at"] as string | undefined,
  };
  const inputs = await loadInputs(path, env, explicit, undefined, values["internal-keys"] as string | undefined);
  const refused = (problems: readonly string[]): number => {
    io.stderr(problems.map((p) => `${p}\n`).join(""));
    return 1;
  };
  if ("problems" in inputs) return refused(inputs.problems);
  const { source, config, warnings } = inputs.ok;
  const plan = planAt(VERSIONS, config.builtAt);
  if ("problems" in plan) return refused(plan.problems);
  const { canonical } = plan.ok;
  const said = warnings.map((w) => `${w}\n`).join("");
  let bytes;
  try {
    bytes = canonical.build(source, contextOf(canonical, config)).bytes;
  } catch (error: unknown) {
    if (!(error instanceof LimitError)) throw error;
    return refused([`${said}${path}: ${error.message}`]);
  }
  if (said !== "") io.stderr(said);
  io.stdout(bytes);
  return 0;
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
become public or are withdrawn.`,
  flags: {
    json: { type: "boolean", help: "the changes as JSON instead of Markdown" },
    "fail-on": {
      type: "string",
      value: "LIST",
      help:
        "exit 1 when a change meets one of a comma-separated LIST: breaking, dangerous (that harmful or worse), privacy (any change in what is withheld)",
    },
    limit: { type: "string", value: "N", help: "Markdown shows at most N changes per group (default 20)" },
  },
  notes: `
Exit codes: 0 compared; 1 --fail-on met; 2 a bad flag, or a file that is missing or not a
built registry document.`,
  positionals: { min: 2, max: 2 },
};

/** `registry diff OLD NEW`: a semantic diff of two documents (see `diff.ts`). */
async function runDiff(argv: readonly string[], io: Io): Promise<number> {
  const usage = (text: string): number => {
    io.stderr(text);
    return 2;
  };
  const parsed = parseOrExit(DIFF, argv, io);
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const named = usageLine(DIFF, io);
  const failOnText = values["fail-on"] as string | undefined;
  const failOn = failOnText === undefined ? [] : failOnText.split(",").map((f) => f.trim());
  const unknown = failOn.find((f) => !FAIL_ON.includes(f as FailOn));
  if (unknown !== undefined) {
    return usage(
      `--fail-on: expected a comma-separated list of ${FAIL_ON.join(", ")}, got ${
        JSON.stringify(unknown)
      } (usage: ${named})\n`,
    );
  }
  const limit = values["limit"] === undefined ? 20 : Number(values["limit"]);
  if (!Number.isInteger(limit) || limit < 1) {
    return usage(
      `--limit: expected a whole number of 1 or more, got ${JSON.stringify(values["limit"])} (usage: ${named})\n`,
    );
  }
  const documents = [];
  for (const path of positionals as [string, string]) {
    const read = await readDocument(path);
    if ("error" in read) return usage(`${oneLine(printable(path))}: ${read.error}\n`);
    documents.push(read.ok);
  }
  const [oldPath, newPath] = positionals as [string, string];
  const changes = diffDocuments(documents[0]!, documents[1]!);
  const failed = failsOn(changes, failOn as FailOn[]);
  if (failed) {
    const privacy = changes.filter((c) => c.privacy === true).length;
    const found = `${worstClass(changes)} changes${privacy > 0 ? `, ${privacy} privacy-relevant` : ""}`;
    io.stderr(`registry diff: ${found} (--fail-on ${printable(failOnText ?? "")})\n`);
  }
  io.stdout(
    values["json"] === true ? jsonReport(changes, oldPath, newPath) : markdownReport(changes, oldPath, newPath, limit),
  );
  return failed ? 1 : 0;
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
