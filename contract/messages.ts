/** One warning: where, what, and its kind (warnings of one kind are summarized together). */
export interface Warning {
  readonly kind: "status-case" | "public-name";
  readonly line: string;
}

/** A problem list stops after this many lines, then says how many more there are. */
export const MAX_PROBLEMS = 50;
/** Warnings of one kind show this many places, then a count of the rest. */
const MAX_WARNINGS_PER_KIND = 10;

/** What each kind of warning is about, for the line that counts the ones left out. */
const KIND_TEXT: Readonly<Record<Warning["kind"], string>> = {
  "status-case": 'a status that is "active" or "pending" only up to case or spaces',
  "public-name": "a declared internal key name that the format publishes at some level",
};

/**
 * The first `MAX_PROBLEMS` problems, then a line counting the rest; `total` counts those found but not kept too.
 *
 * @example
 * ```ts
 * const lines: string[] = capProblems(["a", "b"]); // ["a", "b"]
 * ```
 */
export function capProblems(problems: readonly string[], total = problems.length): string[] {
  if (total <= MAX_PROBLEMS) return [...problems];
  return [
    ...problems.slice(0, MAX_PROBLEMS),
    `and ${total - MAX_PROBLEMS} more problems (the first ${MAX_PROBLEMS} are shown)`,
  ];
}

/** Warnings in their order, at most `MAX_WARNINGS_PER_KIND` of each kind, then a line counting each kind's rest. */
export function summarizeWarnings(warnings: readonly Warning[]): string[] {
  const shown = new Map<Warning["kind"], number>();
  const lines: string[] = [];
  for (const w of warnings) {
    const count = (shown.get(w.kind) ?? 0) + 1;
    shown.set(w.kind, count);
    if (count <= MAX_WARNINGS_PER_KIND) lines.push(w.line);
  }
  for (const [kind, count] of shown) {
    const more = count - MAX_WARNINGS_PER_KIND;
    if (more > 0) {
      lines.push(`and ${more} more places with ${KIND_TEXT[kind]} (the first ${MAX_WARNINGS_PER_KIND} are shown)`);
    }
  }
  return lines;
}
