import { test } from "uvu";
import * as assert from "uvu/assert";
import fc from "fast-check";
import { countsOf, SUMMARY_LINE, summaryOf } from "./uvu-summary.ts";

test("uvu's own summary, in colour, is read: Total, Passed and Skipped", () => {
  const coloured =
    "\u001b[1m  Total:     \u001b[22m12\n\u001b[32m  Passed:    \u001b[39m11\n  Skipped:   1\n  Duration:  1.2s\n";
  assert.equal(countsOf(coloured), { total: 12, passed: 11, skipped: 1 });
  assert.is(countsOf("• • •   (3 / 3)\n"), undefined, "no summary: no counts");
  assert.is(countsOf("  Total:     3\n  Passed:    3\n"), undefined, "a summary cut short: no counts");
  const child = "  Total:     1\n  Passed:    1\n  Skipped:   0\n";
  assert.equal(countsOf(`${child}• ✘\n  Total:     2\n  Passed:    1\n  Skipped:   0\n`), {
    total: 2,
    passed: 1,
    skipped: 0,
  });
});

test("the run's summary reads back as the counts it was made from, and each of its lines is a summary line", () => {
  const count = fc.nat({ max: 100_000 });
  fc.assert(
    fc.property(count, count, count, fc.double({ min: 0, max: 1e4, noNaN: true }), (total, passed, skipped, s) => {
      const text = summaryOf({ total, passed, skipped }, s);
      assert.equal(countsOf(text), { total, passed, skipped });
      const lines = text.split("\n").filter((line) => line.trim() !== "");
      assert.is(lines.length, 4);
      assert.ok(lines.every((line) => SUMMARY_LINE.test(line)));
    }),
  );
});

test.run();
