/**
 * Golden files: the exact bytes a case must produce. A mismatch fails with a line diff; a missing
 * golden fails. `UPDATE_GOLDEN=1` writes goldens instead, and is refused when `CI` is set.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

export const GOLDEN_DIR = "golden";

const updating = process.env["UPDATE_GOLDEN"] === "1";
if (updating && (process.env["CI"] ?? "") !== "") {
  process.stderr.write("UPDATE_GOLDEN=1 is refused when CI is set: goldens change only in a reviewed commit\n");
  process.exit(2);
}

/** Compares `actual` with `golden/<name>` byte for byte; throws a readable diff on mismatch. */
export function assertGolden(name: string, actual: Uint8Array | string): void {
  const path = join(GOLDEN_DIR, name);
  const bytes = typeof actual === "string" ? Buffer.from(actual, "utf8") : Buffer.from(actual);
  const exists = existsSync(path);
  const expected = exists ? readFileSync(path) : undefined;
  if (expected !== undefined && expected.equals(bytes)) return;
  if (updating) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
    return;
  }
  if (expected === undefined) {
    throw new Error(`${path} is missing. Review the output, then write it with UPDATE_GOLDEN=1 npm test.`);
  }
  throw new Error(
    `${path} differs from the output (- golden, + actual):\n${
      lineDiff(expected.toString("utf8"), bytes.toString("utf8"))
    }`,
  );
}

/** Every file under `golden/`, as names relative to it, sorted. */
export function listGoldens(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : [relative(GOLDEN_DIR, join(dir, entry.name))]
    );
  return existsSync(GOLDEN_DIR) ? walk(GOLDEN_DIR).sort() : [];
}

/**
 * The lines that differ between two texts, after their common first and last lines, with the line
 * number where the difference starts. Invisible differences (CR, a missing final newline) are shown.
 */
export function lineDiff(expected: string, actual: string, limit = 30): string {
  const a = expected.split("\n");
  const b = actual.split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const show = (
    line: string,
  ): string => (/[\u0000-\u001f\u007f]/.test(line) || line === "" ? JSON.stringify(line) : line);
  const removed = a.slice(start, endA).map((l) => `- ${show(l)}`);
  const added = b.slice(start, endB).map((l) => `+ ${show(l)}`);
  const clip = (lines: string[]): string[] =>
    lines.length > limit ? [...lines.slice(0, limit), `  ... ${lines.length - limit} more lines`] : lines;
  return [`@@ line ${start + 1} @@`, ...clip(removed), ...clip(added)].join("\n");
}
