/** Reading JSON text: where a syntax error is, and keys repeated within one object. */
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_NESTING_DEPTH, maxValueWeight, VALUE_WEIGHT_OF_CONTAINER } from "../contract/limits.ts";
import { findDuplicateKeys, locateJsonError, readJson, scanSourceText } from "../node/common/json-error.ts";
import { readSourceFile } from "../node/common/source-file.ts";
import { fcParams } from "./arbitraries.ts";

test("duplicate keys: found at any depth, by decoded name, with line and column; only the format's keys are named", () => {
  const unknown = (path: string, where: string) =>
    `${path}: a key the format does not name is repeated (${where}; its name is not printed); JSON keeps only the last one`;
  const inside = (path: string, where: string) =>
    `${path}: a key inside an internal value is repeated (${where}; its name is not printed); JSON keeps only the last one`;
  const cases: [string, string[]][] = [
    ['{"a":1,"a":2}', [unknown("$", "line 1, column 8")]],
    ['{"edges":[],\n "edges":[]}', ['$: duplicate key "edges" (line 2, column 2); JSON keeps only the last one']],
    ['{"vaults":[{"s":1},{"s":1,"t":"a\\"b","s":3}]}', [unknown("vaults[1]", "line 1, column 38")]],
    ['{"vaults":[{"note":1},{"note":1,"note":3}]}', [
      'vaults[1]: duplicate key "note" (line 1, column 33); JSON keeps only the last one',
    ]],
    ['{"k\\u0061":1,"ka":2}', [unknown("$", "line 1, column 14")]],
    ['{"odd key":{"z":1,"z":1}}', [inside("$", "line 1, column 19")]],
    ['{"vaults":[{"tagline":{"z":{"y":1,"y":2}}}]}', [inside("vaults[0]", "line 1, column 35")]],
    ['{"labels":{"class":{"x":"X","x":"Y"}}}', [
      "labels.class: a raw value is repeated (line 1, column 29; its name is not printed); JSON keeps only the last one",
    ]],
    ['{"a":"{\\"a\\":1,\\"a\\":2}"}', []],
    ['[{"x":1},{"x":2}]', []],
    ['{"\\\\":1,"\\\\":2}', [unknown("$", "line 1, column 9")]],
  ];
  for (const [text, expected] of cases) assert.equal(findDuplicateKeys(text), expected, text);
});

test("duplicate keys: JSON.stringify never writes one; repeating any member of any object is found", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const text = JSON.stringify(value);
      assert.equal(findDuplicateKeys(text), []);
      // Repeat the first member of the outermost object that has one.
      const member = /\{("(?:[^"\\]|\\.)*":(?:null|true|false|-?\d[^,}\]]*|"(?:[^"\\]|\\.)*"))/.exec(text);
      if (member !== null) {
        const doubled = text.replace(member[0], () => `{${member[1]},${member[1]}`); // a function: keys may hold "$'"
        assert.ok(findDuplicateKeys(doubled).length > 0, doubled);
      }
    }),
    fcParams,
  );
});

test("syntax errors: line, column and what was found, in the same words on every runtime", () => {
  assert.equal(locateJsonError('{"a": 1,\n  "b": }'), { line: 2, column: 8, reason: 'unexpected "}"' });
  assert.equal(locateJsonError("[1, 2"), {
    line: 1,
    column: 6,
    reason: "expected ',' or ']', found the end of the text",
  });
  assert.equal(locateJsonError('{"a" 1}'), { line: 1, column: 6, reason: "expected ':', found \"1\"" });
  assert.equal(locateJsonError('"\\x"'), { line: 1, column: 2, reason: "invalid escape in string" });
  assert.equal(locateJsonError("{} {}"), { line: 1, column: 4, reason: 'unexpected "{" after the JSON value' });
  assert.is(locateJsonError('{"a": [1, 2.5e3, "x", null, true]}'), null);
});

test("readJson: every text either parses or says where it breaks; never throws, even nested 100k deep", () => {
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.json().map((j) => j.slice(0, Math.max(0, j.length - 1)))), (text) => {
      const result = readJson(text);
      if ("ok" in result) assert.equal(result.ok, JSON.parse(text));
      else assert.match(result.error, /^not valid JSON/);
    }),
    fcParams,
  );
  const deep = `${"[".repeat(100_000)}${"]".repeat(99_999)}`;
  assert.match((readJson(deep) as { error: string }).error, /^not valid JSON/);
  assert.equal(findDuplicateKeys(`${"[".repeat(100_000)}${"]".repeat(100_000)}`), []);
});

test("the text scan weighs every value: an object or array by VALUE_WEIGHT_OF_CONTAINER, any other value 1", () => {
  const weigh = (v: unknown): number =>
    typeof v !== "object" || v === null
      ? 1
      : VALUE_WEIGHT_OF_CONTAINER + Object.values(v).reduce((n: number, c) => n + weigh(c), 0);
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 6 }), fc.boolean(), (value, pretty) => {
      const scan = scanSourceText(JSON.stringify(value, null, pretty ? 2 : undefined));
      assert.is(scan.limit, undefined);
      assert.is(scan.weight, weigh(value));
    }),
    fcParams,
  );
  // Over the weight for the file's size: refused in one line naming both figures.
  const text = `{"x":[${"{},".repeat(200_000)}{}]}`;
  const scan = scanSourceText(text);
  assert.is(scan.weight, 4 * 200_003);
  assert.is(
    scan.limit,
    `too many values for the file's size: they weigh 800012 (an object or array 4, any other value 1); the limit for 585.9 KiB is ${
      maxValueWeight(text.length)
    }`,
  );
});

test("the text scan stops at the nesting limit, wherever the nesting is, and says where", () => {
  const nested = (depth: number) => `{"vaults":[],"internal":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;
  assert.is(scanSourceText(nested(MAX_NESTING_DEPTH)).limit, undefined);
  assert.is(
    scanSourceText(nested(MAX_NESTING_DEPTH + 1)).limit,
    `nesting deeper than ${MAX_NESTING_DEPTH} objects and arrays (line 1, column ${
      25 + MAX_NESTING_DEPTH - 1
    }); the limit is ${MAX_NESTING_DEPTH}`,
  );
  assert.match(
    scanSourceText(`{"a":${'{"a":'.repeat(1_000_000)}1${"}".repeat(1_000_000)}}`).limit ?? "",
    /^nesting deeper than 64 /,
  );
});

test("a vault with a repeated key is withheld for messages: nothing of its detail is quoted, whichever value JSON keeps", async () => {
  const work = mkdtempSync(join(tmpdir(), "registry-repeated-"));
  try {
    const vault = (extra: string) =>
      `{"vault_slug":"a","display_name":"A","status":"active",${extra}"last_synced":"SECRET-date"}`;
    const head = '{"registry_schema_version":"1","generated_at":"2026-11-14T08:30:00Z","source_inventory_sha":"' +
      "a".repeat(40) + '",';
    const edges =
      '"edges":[{"source":"a","target":"a","type":"SECRET-type"},{"source":"a","target":"a","type":"SECRET-type"}]}';
    for (
      const extra of ['"suppressed":true,"suppressed":false,', '"x":1,"x":2,', '"suppressed":false,"suppressed":false,']
    ) {
      const text = `${head}"vaults":[${vault("")},${vault(extra.replace(/"vault_slug"/, ""))}],${edges}`.replace(
        '"vault_slug":"a"',
        '"vault_slug":"b"',
      );
      assert.equal([...scanSourceText(text).vaultsWithRepeatedKeys], [1], extra);
      const file = join(work, "source.json");
      writeFileSync(file, text);
      const result = await readSourceFile(file, "source.json");
      assert.ok("problems" in result);
      const lines = "problems" in result ? result.problems.join("\n") : "";
      assert.match(lines, /vaults\[1\]: (duplicate key "suppressed"|a key the format does not name is repeated)/);
      assert.match(lines, /vaults\[0\]\.last_synced: .*got "SECRET-date"/, "a vault published in full is quoted");
      assert.is(lines.split("SECRET").length, 2, lines);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("law: a source with bytes that are not UTF-8 is refused naming the offset and line of the first, never read with U+FFFD in their place", async () => {
  const work = mkdtempSync(join(tmpdir(), "registry-utf8-"));
  const file = join(work, "source.json");
  const encoder = new TextEncoder();
  try {
    // A stray continuation byte, a byte UTF-8 never uses, a lead byte cut short by ASCII or at the
    // end, a surrogate's encoding.
    const bad = fc.constantFrom([0x80], [0xff], [0xc3, 0x41], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98]);
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: "grapheme", maxLength: 40 }),
        fc.nat(3),
        bad,
        fc.boolean(),
        async (before, newlines, sequence, atEnd) => {
          const head = encoder.encode(`{${"\n".repeat(newlines)}"note":${JSON.stringify(before).slice(0, -1)}`);
          const tail = atEnd && sequence.length > 1 && sequence[1] !== 0x41 ? new Uint8Array() : encoder.encode('"}');
          writeFileSync(file, new Uint8Array([...head, ...sequence, ...tail]));
          const result = await readSourceFile(file, "source.json");
          const line = 1 + [...head].filter((b) => b === 0x0a).length;
          assert.equal("problems" in result ? result.problems : result, [
            `source.json: not UTF-8: the byte at offset ${head.byteLength} (line ${line}) is not part of a UTF-8 character; save the file as UTF-8`,
          ]);
        },
      ),
      fcParams,
    );
    // U+FFFD written as UTF-8 is a character like any other, and a byte order mark is still tolerated.
    writeFileSync(file, `\uFEFF{"note":"\uFFFD"}`);
    const ok = await readSourceFile(file, "source.json");
    assert.ok("problems" in ok && !ok.problems.some((p) => p.includes("UTF-8")), JSON.stringify(ok));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("a source is read past one byte order mark, not two, whether or not its text holds U+FFFD", async () => {
  const work = mkdtempSync(join(tmpdir(), "registry-bom-"));
  const file = join(work, "source.json");
  try {
    for (const note of ["plain", "\uFFFD"]) {
      // One mark is tolerated (RFC 8259 §8.1): the file reads on to the validation of its content.
      writeFileSync(file, `\uFEFF{"note":"${note}"}`);
      const one = await readSourceFile(file, "source.json");
      assert.ok("problems" in one && !one.problems.some((p) => p.includes("not valid JSON")), JSON.stringify(one));
      // A second is a character before the JSON text, as it was before the decoder dropped the first.
      writeFileSync(file, `\uFEFF\uFEFF{"note":"${note}"}`);
      const two = await readSourceFile(file, "source.json");
      assert.equal("problems" in two ? two.problems : two, [
        'source.json: not valid JSON at line 1, column 1: unexpected "\\ufeff"',
      ], note);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();
