/**
 * The document's compact size, counted without making its text (contract/json-length.ts), and the two limit
 * checks of serializeRegistry at their exact boundaries.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { jsonTextLength } from "../contract/json-length.ts";
import { LimitError, sizeOf } from "../contract/limits.ts";
import { contextOf } from "../contract/version-policy.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { buildRegistry, serializeRegistry, validateSource } from "../registry.ts";
import { fcParams } from "./arbitraries.ts";

/** Every UTF-16 unit (lone surrogates too), and each character JSON escapes, often. */
const unit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)),
  fc.constantFrom(
    '"',
    "\\",
    "\b",
    "\f",
    "\n",
    "\r",
    "\t",
    "\u0000",
    "\u001f",
    "\u007f",
    "\ud800",
    "\udbff",
    "\udc00",
    "\udfff",
    "\ud83d\ude00",
    "é",
    "a",
  ),
);

test("law: jsonTextLength is the length of JSON.stringify's text, for any JSON value", () => {
  fc.assert(
    fc.property(fc.jsonValue({ stringUnit: unit, maxDepth: 4 }), (value) => {
      assert.is(jsonTextLength(value), JSON.stringify(value).length);
    }),
    { ...fcParams, numRuns: fcParams.numRuns * 4 },
  );
});

test("law: a string's length counts each escape as JSON.stringify writes it", () => {
  fc.assert(
    fc.property(fc.string({ unit, maxLength: 40 }), (text) => {
      assert.is(jsonTextLength(text), JSON.stringify(text).length);
      assert.is(jsonTextLength({ [text]: text }), JSON.stringify({ [text]: text }).length);
    }),
    { ...fcParams, numRuns: fcParams.numRuns * 4 },
  );
});

test("jsonTextLength: the cases a reader checks by eye", () => {
  const cases: [unknown, number][] = [
    ["", 2],
    ["\n", 4],
    ["\u0001", 8],
    ["\ud800", 8],
    ["\udc00", 8],
    ["\ud83d\ude00", 4],
    ["\udc00\ud800", 14],
    [[], 2],
    [{}, 2],
    [[1], 3],
    [[1, 22], 6],
    [{ a: 1 }, 7],
    [{ a: 1, b: [] }, 14],
    [true, 4],
    [false, 5],
    [null, 4],
    [-0, 1],
    [1.5e300, 8],
  ];
  for (const [value, length] of cases) assert.is(jsonTextLength(value), length, JSON.stringify(value));
});

const OPTIONS = contextOf(VERSIONS[0]!, { baseUrl: "https://registry.example.org", builtAt: "2026-11-21T12:00:00Z" });

test("serializeRegistry: the limit is inclusive, and each check says which it is at its boundary", () => {
  const result = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
  assert.ok(result.ok);
  if (!result.ok) return;
  const document = buildRegistry(result.source, OPTIONS);
  const served = serializeRegistry(document).byteLength;
  const compact = JSON.stringify(document).length;
  assert.ok(compact < served - 1, "the pretty text is longer than the compact one");
  // At the limit: served. One byte under: the text was made, and its size is named.
  assert.is(serializeRegistry(document, served).byteLength, served);
  const refusal = (limit: number): string => {
    try {
      serializeRegistry(document, limit);
    } catch (error: unknown) {
      assert.ok(error instanceof LimitError);
      return (error as LimitError).message;
    }
    return "served";
  };
  assert.is(refusal(served - 1), `the document is ${sizeOf(served)}; the limit is ${sizeOf(served - 1)}`);
  // Between the compact and the pretty length, only the second check refuses.
  assert.is(refusal(compact), `the document is ${sizeOf(served)}; the limit is ${sizeOf(compact)}`);
  // Under the compact length, the refusal names the compact length, counted without making the whole text.
  assert.is(refusal(compact - 1), `the document would be over ${sizeOf(compact)}; the limit is ${sizeOf(compact - 1)}`);
});

test.run();
