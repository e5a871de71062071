/**
 * The figures every refusal names, in process: sizes as a person reads them, the weight and record
 * limits at their edges, and the problem and warning caps.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  BASE_RECORDS,
  BASE_VALUE_WEIGHT,
  LimitError,
  MAX_DEPLOY_DOCUMENT_BYTES,
  MAX_DOCUMENT_BYTES,
  maxRecords,
  maxValueWeight,
  RECORD_BYTES,
  sizeOf,
  VALUE_WEIGHT_BYTES,
} from "../contract/limits.ts";
import { capProblems, MAX_PROBLEMS, summarizeWarnings } from "../contract/messages.ts";

test("sizeOf: bytes up to 1023, then KiB, MiB, GiB and TiB, whole or to one decimal, in bytes when a tenth would hide that it is not whole", () => {
  const cases: [number, string][] = [
    [0, "0 bytes"],
    [1, "1 byte"],
    [900, "900 bytes"],
    [1023, "1023 bytes"],
    [1024, "1 KiB"],
    [1536, "1.5 KiB"],
    [1127, "1.1 KiB"],
    [1025, "1025 bytes"],
    [1048575, "1048575 bytes"],
    [64 * 1024 ** 2 + 1, "67108865 bytes"],
    [64 * 1024 ** 2 + 52_428, "67161292 bytes"],
    [64 * 1024 ** 2 + 52_429, "64.1 MiB"],
    [8 * 1024 * 1024, "8 MiB"],
    [MAX_DOCUMENT_BYTES, "128 MiB"],
    [1.5 * 1024 ** 3, "1.5 GiB"],
    [1024 ** 4, "1 TiB"],
    [2048 * 1024 ** 4, "2048 TiB"],
    [Number.NaN, "NaN bytes"],
    [2 ** 60 + 0.5, `${2 ** 60 + 0.5} bytes`],
  ];
  for (const [n, text] of cases) assert.is(sizeOf(n), text, String(n));
  assert.is(MAX_DEPLOY_DOCUMENT_BYTES, 8_388_608);
});

test("the weight and record limits: a base, plus one per so many whole bytes", () => {
  assert.is(maxValueWeight(0), BASE_VALUE_WEIGHT);
  assert.is(maxValueWeight(VALUE_WEIGHT_BYTES - 1), BASE_VALUE_WEIGHT);
  assert.is(maxValueWeight(5 * VALUE_WEIGHT_BYTES), BASE_VALUE_WEIGHT + 5);
  assert.is(maxRecords(0), BASE_RECORDS);
  assert.is(maxRecords(3 * RECORD_BYTES + RECORD_BYTES - 1), BASE_RECORDS + 3);
  const error = new LimitError("the document is 9 MiB; the limit is 8 MiB");
  assert.is(error.name, "LimitError");
  assert.is(error.message, "the document is 9 MiB; the limit is 8 MiB");
});

test("problems: all up to the cap; past it, the first ones and a line counting the rest, found or only counted", () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `p${i}`);
  assert.equal(capProblems(lines(MAX_PROBLEMS)), lines(MAX_PROBLEMS));
  assert.equal(capProblems(lines(MAX_PROBLEMS + 1)), [
    ...lines(MAX_PROBLEMS),
    `and 1 more problems (the first ${MAX_PROBLEMS} are shown)`,
  ]);
  assert.equal(capProblems(lines(3), MAX_PROBLEMS), lines(3));
  assert.equal(capProblems(lines(MAX_PROBLEMS), 70), [
    ...lines(MAX_PROBLEMS),
    `and 20 more problems (the first ${MAX_PROBLEMS} are shown)`,
  ]);
});

test("warnings: each kind up to its cap, in order, then one line per kind that passed it", () => {
  const of = (kind: "status-case" | "public-name", n: number) =>
    Array.from({ length: n }, (_, i) => ({ kind, line: `${kind} ${i}` }));
  // The stated cap: ten of each kind.
  const MAX_WARNINGS_PER_KIND = 10;
  const atCap = of("status-case", MAX_WARNINGS_PER_KIND);
  assert.equal(summarizeWarnings(atCap), atCap.map((w) => w.line));
  const over = [...of("status-case", MAX_WARNINGS_PER_KIND + 2), ...of("public-name", 1)];
  assert.equal(summarizeWarnings(over), [
    ...over.filter((w, i) => i < MAX_WARNINGS_PER_KIND || w.kind === "public-name").map((w) => w.line),
    `and 2 more places with a status that is "active" or "pending" only up to case or spaces (the first ${MAX_WARNINGS_PER_KIND} are shown)`,
  ]);
});

test.run();
