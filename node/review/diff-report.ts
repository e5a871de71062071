/** Markdown groups the changes by what a reviewer asks first: does the contract move, does privacy, then data. */
import type { ChangeClass } from "../../feed/change.ts";
import { type Change, CLASSES, RULES } from "../common/diff.ts";
import { jsonText } from "../common/json-deep.ts";
import { codeSpan, escapeMarkdown } from "../common/markdown.ts";
import { escapeC1InJson, printable } from "../common/printable.ts";

const SECTIONS: readonly { readonly title: string; readonly rules: readonly string[] }[] = [
  // Every rule of another class than data, in RULES' order.
  { title: "Contract", rules: Object.keys(RULES).filter((rule) => RULES[rule]?.class !== "data") },
  { title: "Privacy: rows turning minimal or full", rules: ["vault.minimal", "vault.full"] },
  { title: "Envelope", rules: ["envelope.value"] },
  { title: "Vaults added and removed", rules: ["vault.added", "vault.removed"] },
  { title: "Tier moves", rules: ["vault.tier"] },
  { title: "Field changes", rules: ["vault.field"] },
  { title: "Edges added and removed", rules: ["edge.added", "edge.removed"] },
  { title: "Counts and coverage", rules: ["count.changed", "coverage.changed"] },
];

const TABLE_RULE = "| --- | --- | --- | --- | --- |";

const harmful = (k: ChangeClass) => k === "breaking" || k === "dangerous";

/** How many of each class, most harmful first, as `{ breaking: 1, ... }`. */
function classCounts(changes: readonly Change[]): Record<ChangeClass, number> {
  const counts = CLASSES.map((k) => [k, changes.filter((c) => c.class === k).length]);
  return Object.fromEntries(counts) as Record<ChangeClass, number>;
}

/** One line: the count of each class and of privacy-relevant changes, the worst in bold. */
export function summaryLine(changes: readonly Change[]): string {
  const counts = classCounts(changes);
  const privacy = changes.filter((c) => c.privacy === true).length;
  const parts = CLASSES.map((k) => (counts[k] > 0 && harmful(k) ? `**${counts[k]} ${k}**` : `${counts[k]} ${k}`));
  return `${parts.join(" · ")}${privacy > 0 ? ` · **${privacy} privacy-relevant**` : ""}`;
}

/** The Markdown of a diff under a `###` heading naming `oldLabel → newLabel`, at most `limit` changes a group. */
export function markdownReport(changes: readonly Change[], oldLabel: string, newLabel: string, limit = 20): string {
  const lines = [`### registry diff: ${code(oldLabel)} → ${code(newLabel)}`, "", summaryLine(changes), ""];
  if (changes.length === 0) return [...lines, "No change: the two documents are equal.", ""].join("\n");
  for (const section of SECTIONS) {
    const rows = changes.filter((c) => section.rules.includes(c.rule));
    if (rows.length === 0) continue;
    lines.push(`#### ${section.title} (${rows.length})`, "", "| class | rule | where | old | new |", TABLE_RULE);
    for (const c of rows.slice(0, limit)) {
      const cls = harmful(c.class) ? `**${c.class}**` : c.class;
      const [old, now] = typeof c.old === "string" && typeof c.new === "string"
        ? differingParts(c.old, c.new)
        : [value(c.old), value(c.new)];
      lines.push(
        `| ${cls}${c.privacy === true ? " (privacy)" : ""} | \`${c.rule}\` | ${cell(c.where)} | ${old} | ${now} |`,
      );
    }
    if (rows.length > limit) lines.push("", `… and ${rows.length - limit} more (\`--json\` lists them all).`);
    lines.push("");
  }
  return lines.join("\n");
}

/** The diff as JSON: the labels, the counts per class, and every change. */
export function jsonReport(changes: readonly Change[], oldLabel: string, newLabel: string): string {
  // JSON escapes C0 itself; C1 and DEL are escaped too, so no raw control reaches a terminal.
  return `${escapeC1InJson(jsonText({ old: oldLabel, new: newLabel, counts: classCounts(changes), changes }, 2))}\n`;
}

/** Two long strings cut to where they differ, with a little context either side. */
function differingParts(a: string, b: string, context = 30): [string, string] {
  if (a.length <= 80 && b.length <= 80) return [value(a), value(b)];
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const cut = (text: string) => {
    const from = Math.max(0, start - context);
    const to = Math.min(text.length, text.length - end + context);
    const middle = text.slice(from, to);
    const shown = middle.length > 160 ? `${middle.slice(0, 157)}…` : `${middle}${to < text.length ? "…" : ""}`;
    return cell(`${from > 0 ? "…" : ""}${shown}`);
  };
  return [cut(a), cut(b)];
}

function value(v: unknown): string {
  if (v === undefined) return "";
  const text = typeof v === "string" ? v : jsonText(v, 0, 80);
  return text.length > 80 ? `${cell(text.slice(0, 77))}…` : cell(text);
}

/** A value as one Markdown cell: no terminal control (printable.ts), no syntax, one line. */
const cell = (text: string) => escapeMarkdown(printable(text));

const code = (text: string) => codeSpan(printable(text));
