/**
 * One source validated as every command reads it (`readSourceFile`), in a process of its own so
 * that its peak resident memory is its own: prints `{ ms, peakMiB, outcome }` as JSON on stdout.
 * With `--build`, a valid source is also built and serialized as `registry` does. Used by the
 * "hostile sources" rows of bench/run.ts.
 */
import { readFileSync } from "node:fs";
import { LimitError } from "../contract/limits.ts";
import { contextOf } from "../contract/version-policy.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { parseProcessArgs } from "../node/common/args.ts";
import { readSourceFile } from "../node/common/source-file.ts";
import { buildRegistry, serializeRegistry } from "../registry.ts";

const { values, positionals } = parseProcessArgs({
  usage: "node --import tsx bench/validate-source.ts FILE [--build]",
  help: `
Validates FILE as every command does and prints its time, peak resident memory and outcome as one
line of JSON.

Exit codes: 0 measured (valid or refused); 2 a bad flag.`,
  flags: { build: { type: "boolean", help: "also builds and serializes a valid source" } },
  positionals: { min: 1, max: 1 },
});

const started = performance.now();
const read = await readSourceFile(positionals[0] as string, "source");
let outcome = "problems" in read ? `refused: ${read.problems[0] ?? ""}` : "valid";
if ("ok" in read && values["build"] === true) {
  try {
    const bytes = serializeRegistry(
      buildRegistry(
        read.ok,
        contextOf(VERSIONS[0]!, { baseUrl: "https://registry.example.org", builtAt: "2026-11-21T12:00:00Z" }),
      ),
    );
    outcome = `valid, built ${bytes.byteLength} bytes`;
  } catch (error: unknown) {
    if (!(error instanceof LimitError)) throw error;
    outcome = `valid, build refused: ${error.message}`;
  }
}
const ms = performance.now() - started;
console.log(JSON.stringify({ ms, peakMiB: peakMiB(), outcome: outcome.slice(0, 160) }));

/**
 * This process's peak resident memory: Linux's VmHWM, which starts anew at exec. Not getrusage's
 * maxRSS: Linux carries that over from the parent across fork and exec, so a child of a large
 * bench process would report the parent's peak.
 */
function peakMiB(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (hwm !== undefined) return Number(hwm) / 1024;
  } catch {
    // not Linux: fall back below
  }
  return process.resourceUsage().maxRSS / 1024;
}
