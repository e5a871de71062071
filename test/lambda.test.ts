/**
 * The Lambda adapter in process: the one log line of an event that is not an HTTP request names
 * at most its first ten top-level keys, each cut to 64 characters, and says "none" or the type
 * where there are none. Exact, so that the mutation run (which runs only in-process tests) sees
 * every cap; the hostile-event laws are in hostile-requests.test.ts.
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { lambdaHandlerFor } from "../http/lambda.ts";
import { prepareBuild } from "../http/prepare.ts";
import { validateSource } from "../registry.ts";
import { GOLDEN_OPTIONS } from "./cases.ts";

const source = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
if (!source.ok) throw new Error("fixture invalid");
const build = await prepareBuild(source.source, GOLDEN_OPTIONS);

/** The log line of one event, and its answer's status. */
async function logOf(event: unknown): Promise<{ line: string; status: number }> {
  const logged: string[] = [];
  const result = await lambdaHandlerFor(build, (line) => logged.push(line))(event as never);
  assert.is(logged.length, 1, "one line per malformed event");
  return { line: logged[0] as string, status: result.statusCode };
}

test("Lambda log: names the first ten top-level keys, in order, and no more", async () => {
  const keys = Array.from({ length: 25 }, (_, i) => `key${String(i).padStart(2, "0")}`);
  const { line, status } = await logOf(Object.fromEntries(keys.map((k) => [k, 1])));
  assert.is(status, 400);
  const named = /\(top-level keys: (.*)\)$/.exec(line)?.[1];
  assert.is(named, keys.slice(0, 10).map((k) => `"${k}"`).join(", "));
});

test("Lambda log: each key is cut to 64 characters", async () => {
  const { line } = await logOf({ ["k".repeat(64) + "TAIL"]: 1 });
  assert.ok(line.includes(`"${"k".repeat(64)}"`), line);
  assert.not.ok(line.includes("TAIL"), line);
});

test("Lambda log: an empty object says none; a non-object says its type", async () => {
  assert.match((await logOf({})).line, /\(top-level keys: none\)$/);
  assert.match((await logOf("a string")).line, /\(top-level keys: string\)$/);
  assert.match((await logOf(null)).line, /\(top-level keys: object\)$/);
});

test.run();
