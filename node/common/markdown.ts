/**
 * The characters that can start syntax mid-line in GitHub's Markdown (emphasis, code, links, HTML, entities, tables,
 * strikethrough, math); CommonMark lets each be backslash-escaped.
 */
const SYNTAX = /[\\`*_[\]<>|~&$]/g;

/** `text` as plain Markdown text on one line: syntax escaped, line breaks as spaces. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\r\n\t]+/g, " ").replace(SYNTAX, (c) => `\\${c}`);
}

/** `text` as an inline code span on one line; in a table cell (`inTable`), `|` escaped as GFM asks, even in code. */
export function codeSpan(text: string, inTable = false): string {
  const flat = text.replace(/[\r\n\t]+/g, " ");
  const fence = "`".repeat(longestRun(flat) + 1);
  const padded = flat.startsWith("`") || flat.endsWith("`") || flat.startsWith(" ") ? ` ${flat} ` : flat;
  return `${fence}${inTable ? padded.replaceAll("|", "\\|") : padded}${fence}`;
}

/** A code fence (three backticks or more) that no line of `lines` can close. */
export function fenceFor(lines: readonly string[]): string {
  return "`".repeat(lines.reduce((most, line) => Math.max(most, longestRun(line) + 1), 3));
}

/** `text` with the characters HTML gives meaning to replaced by references. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function longestRun(text: string): number {
  return (text.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 0);
}
