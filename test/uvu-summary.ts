/** uvu's summary of a run (Total, Passed, Skipped, Duration), read and written by `run-all.ts`. */

/** One run's counts. */
export interface Counts {
  readonly total: number;
  readonly passed: number;
  readonly skipped: number;
}

/** A line of uvu's summary, in colour or not. */
// deno-lint-ignore no-control-regex -- ANSI colour codes may open the line
export const SUMMARY_LINE = /^\s*(?:\x1b\[[0-9;]*m)*\s*(?:Total|Passed|Skipped|Duration):/;

/**
 * The counts of uvu's summary in `output` (colours removed): its last one, since a test may print
 * a child's summary before; undefined when it printed none.
 */
export function countsOf(output: string): Counts | undefined {
  // deno-lint-ignore no-control-regex -- ANSI colour codes are what is removed
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  const count = (label: string) => [...plain.matchAll(new RegExp(`^\\s*${label}:\\s+(\\d+)\\s*$`, "gm"))].at(-1)?.[1];
  const [total, passed, skipped] = [count("Total"), count("Passed"), count("Skipped")];
  if (total === undefined || passed === undefined || skipped === undefined) return undefined;
  return { total: Number(total), passed: Number(passed), skipped: Number(skipped) };
}

/** The summary of a whole run, in uvu's words, so that `.ci/run` reads it as it reads uvu's. */
export function summaryOf(counts: Counts, seconds: number): string {
  return `\n  Total:     ${counts.total}\n  Passed:    ${counts.passed}\n  Skipped:   ${counts.skipped}\n  Duration:  ${
    seconds.toFixed(2)
  }s\n\n`;
}
