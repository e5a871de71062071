import { execFileSync } from "node:child_process";
import { isObject } from "../../contract/json.ts";
import { VERSIONS } from "../../assembly/versions.ts";
import { diffDocuments, type Document, documentShape, worstClass } from "../common/diff.ts";
import { readJson } from "../common/json-error.ts";
import { markdownReport, summaryLine } from "./diff-report.ts";
import { codeSpan, escapeHtml, fenceFor } from "../common/markdown.ts";

/** The outcome: the Markdown for the job summary, and whether the review fails. */
export interface Review {
  readonly markdown: string;
  readonly fails: boolean;
}

/** A git problem (not a repository, an unknown commit): the review cannot run. */
export class ReviewInputError extends Error {}

/** One changed golden, and its two sides parsed as documents (null: absent, or not a document). */
interface Entry {
  readonly path: string;
  readonly status: "added" | "removed" | "changed";
  readonly before: Document | null;
  readonly after: Document | null;
}

/**
 * Reviews the goldens that `head` changed since it left `base` (from their merge base, as a pull request shows them: a
 * base that moved on changes nothing here) in the git repository at `repo`, running git with `env`.
 */
export function reviewGoldens(
  repo: string,
  base: string,
  head: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  limit = 20,
): Review {
  const git = (...args: string[]): string => {
    try {
      return execFileSync("git", ["--literal-pathspecs", "-C", repo, ...args], {
        env,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        maxBuffer: 1 << 28,
      });
    } catch (error: unknown) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim().split("\n")[0];
      throw new ReviewInputError(`git ${args.join(" ")}: ${stderr || (error as Error).message}`);
    }
  };
  const headSha = git("rev-parse", "--verify", `${head}^{commit}`).trim();
  // Three dots: what the head changed since it left the base, not what the base did since.
  const baseSha = git("merge-base", git("rev-parse", "--verify", `${base}^{commit}`).trim(), headSha).trim();
  // -z: paths as they are, never quoted (a quoted path handed back to git names no file).
  const fields = git("diff", "--name-status", "-z", "--no-renames", baseSha, headSha, "--", "golden/").split("\0");
  const changed: [string, string][] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) changed.push([fields[i] as string, fields[i + 1] as string]);
  const entries: Entry[] = changed
    .map(([code, path]): Entry => {
      const status: Entry["status"] = code === "A" ? "added" : code === "D" ? "removed" : "changed";
      return {
        path,
        status,
        before: status === "added" ? null : documentOf(git("show", `${baseSha}:${path}`)),
        after: status === "removed" ? null : documentOf(git("show", `${headSha}:${path}`)),
      };
    })
    // Documents first: they are what pinned consumers read.
    .sort((x, y) =>
      Number((y.before ?? y.after) !== null) - Number((x.before ?? x.after) !== null) || (x.path < y.path ? -1 : 1)
    );

  const short = (sha: string) => sha.slice(0, 7);
  const lines = [`## Golden review: ${short(baseSha)} → ${short(headSha)}`, ""];
  if (entries.length === 0) {
    return { markdown: [...lines, "No golden file changed: no public byte moves.", ""].join("\n"), fails: false };
  }

  const table = ["| golden | what it is | verdict |", "| --- | --- | --- |"];
  const details: string[] = [];
  const failing: string[] = [];
  for (const entry of entries) {
    const { before, after } = entry;
    const name = codeSpan(entry.path, true);
    if (before !== null && after !== null) {
      const changes = diffDocuments(before, after);
      const version = versionOf(before);
      const shipped = version !== undefined;
      const breaking = worstClass(changes) === "breaking";
      if (shipped && breaking) failing.push(`${codeSpan(entry.path)} (${version})`);
      const what = shipped ? `document of ${version}, shipped` : "document of no shipped version";
      table.push(`| ${name} | ${what} | ${summaryLine(changes)}${shipped && breaking ? " **(fails)**" : ""} |`);
      const at = (sha: string) => `${entry.path} @ ${short(sha)}`;
      details.push(markdownReport(changes, at(baseSha), at(headSha), limit));
    } else if (entry.status !== "changed" && (before !== null || after !== null)) {
      table.push(`| ${name} | document, ${entry.status} | nothing to compare it with |`);
    } else {
      // A change feed's items are already the changes, classified: its line diff shows them.
      const kind = /\.changes\.(json|atom)$/.test(entry.path) ? "change feed" : "bytes";
      const changed = entry.status === "changed";
      const what = changed ? kind : `${kind === "bytes" ? "file" : kind}, ${entry.status}`;
      table.push(
        `| ${name} | ${what} | ${changed ? "read the line diff below" : "see the file list of the pull request"} |`,
      );
      if (changed) {
        details.push(
          lineDiffBlock(entry.path, git("diff", "--no-color", "--unified=1", baseSha, headSha, "--", entry.path)),
        );
      }
    }
  }
  const fails = failing.length > 0;
  const verdict = fails
    ? `**Fails:** a breaking change to a shipped versioned path: ${
      failing.join(", ")
    }. Publish it at a new versioned path (a new row of the version table) instead.`
    : "**Passes:** no breaking change to a shipped versioned path.";
  return { markdown: [...lines, verdict, "", ...table, "", ...details].join("\n"), fails };
}

/** The shipped version a golden document is of, by the versioned URL its `about` names. */
function versionOf(document: Document): string | undefined {
  const about = document["about"];
  const url = isObject(about) ? about["versioned_url"] : undefined;
  const version = typeof url === "string" ? VERSIONS.find((v) => url.endsWith(v.path)) : undefined;
  return version === undefined ? undefined : `v${version.number}, ${version.path}`;
}

function documentOf(text: string): Document | null {
  const read = readJson(text, { locate: false });
  // Committed goldens of any version: their shape is compared (and a breaking one fails), not refused.
  const parsed = "ok" in read ? documentShape(read.ok) : read;
  return "ok" in parsed ? parsed.ok : null;
}

function lineDiffBlock(path: string, diff: string, maxLines = 80): string {
  const body = diff.split("\n").filter((l) => !/^(diff --git|index |--- |\+\+\+ )/.test(l));
  const cut = body.length > maxLines ? [...body.slice(0, maxLines), `… ${body.length - maxLines} more lines`] : body;
  const fence = fenceFor(cut);
  const summary = `<details><summary><code>${escapeHtml(path)}</code>: line diff</summary>`;
  return [summary, "", `${fence}diff`, ...cut, fence, "", "</details>", ""].join("\n");
}
