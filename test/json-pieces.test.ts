/** The document's text made in pieces (contract/json-pieces.ts): the same bytes as one JSON.stringify, in bounded pieces. */
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { prettyJsonPieces } from "../contract/json-pieces.ts";
import { fcParams } from "./arbitraries.ts";

/** Keys JSON escapes, keys that look like indexes, and ordinary ones; values of any JSON, long arrays often. */
const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("__proto__", "0", "7", "a\nb", '"', "\\", "\ud800"));
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 12 }),
  fc.constantFrom(undefined, [], {}, [[]], [{}]),
);

test("law: the pieces of any object of JSON values, cut at any size, join to JSON.stringify(value, null, 2)", () => {
  fc.assert(
    fc.property(fc.dictionary(key, value, { maxKeys: 6 }), fc.integer({ min: 1, max: 5 }), (object, items) => {
      const pieces = [...prettyJsonPieces(object, items)];
      assert.is(pieces.join(""), JSON.stringify(object, null, 2));
    }),
    { ...fcParams, numRuns: fcParams.numRuns * 4 },
  );
});

test("law: a long array is cut every `items` items, so no piece holds more than that many", () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ maxLength: 4 }), { minLength: 0, maxLength: 40 }),
      fc.integer({ min: 1, max: 8 }),
      (
        rows,
        items,
      ) => {
        const marked = rows.map((row) => `<${row}>`);
        const pieces = [...prettyJsonPieces({ head: 1, rows: marked, tail: null }, items)];
        for (const piece of pieces) assert.ok((piece.match(/"</g) ?? []).length <= items, piece);
        // The whole is still one JSON text, whose rows are all there in order.
        assert.equal(JSON.parse(pieces.join("")), { head: 1, rows: marked, tail: null });
      },
    ),
    fcParams,
  );
});

test("the cases a reader checks by eye: empty, one member, a member left out, an array cut in two", () => {
  assert.equal([...prettyJsonPieces({})], ["{}"]);
  assert.equal([...prettyJsonPieces({ gone: undefined })], ["{}"]);
  assert.equal([...prettyJsonPieces({ a: [] })], ["{\n", '  "a": []\n}']);
  assert.equal([...prettyJsonPieces({ a: [1, 2, 3], b: "x" }, 2)], [
    "{\n",
    '  "a": [\n',
    "    1,\n    2,\n",
    "    3\n",
    "  ],\n",
    '  "b": "x"\n}',
  ]);
});

test.run();
