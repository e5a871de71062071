/**
 * `source.schema.json`, the JSON Schema an operator's editor checks a source against: it accepts
 * every valid fixture and refuses every invalid one, except the defects JSON Schema cannot state
 * (each listed here with why). The build stays the final word on all of them.
 */
import Ajv2020 from "ajv/dist/2020.js";
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { KNOWN_KEYS } from "../contract/source.ts";
import { invalidCases, validCases } from "./cases.ts";

const ajv = new Ajv2020.default({ strict: true, allErrors: true, validateFormats: false });
const validate = ajv.compile(JSON.parse(readFileSync("source.schema.json", "utf8")));

/** Invalid fixtures whose defect a schema cannot express, and why. */
const BEYOND_A_SCHEMA: Readonly<Record<string, string>> = {
  "not-json": "not JSON at all: nothing to validate",
  "empty-file": "not JSON at all: nothing to validate",
  "duplicate-key": "a repeated key is gone once parsed",
  "duplicate-slug": "uniqueness of a property across array items",
  "dangling-edge": "a reference from edges to vaults",
  "duplicate-edge": "uniqueness of a (source, target, type) triple",
  "bad-generated-at-date": "a calendar-impossible date matches any date pattern",
  "bad-last-synced": "a calendar-impossible date matches any date pattern",
  "near-miss-suppressed": "whether a key is declared depends on internal_keys, a value a schema cannot refer to",
  "near-miss-licence": "whether a key is declared depends on internal_keys, a value a schema cannot refer to",
  "near-miss-every-level": "whether a key is declared depends on internal_keys, a value a schema cannot refer to",
  "undeclared-key-escaped": "whether a key is declared depends on internal_keys, a value a schema cannot refer to",
  "undeclared-key-many-places": "whether a key is declared depends on internal_keys, a value a schema cannot refer to",
  "declared-suppressed-misspelling": "a misspelling is an edit distance, not a pattern",
  "declared-suppressed-look-alike": "a look-alike is a folding and an edit distance, not a pattern",
  "many-problems": "",
};

test("the schema accepts every valid fixture", () => {
  for (const c of validCases) {
    assert.ok(
      validate(JSON.parse(readFileSync(c.fixture, "utf8"))),
      `${c.fixture}: ${JSON.stringify(validate.errors)}`,
    );
  }
});

test("the schema refuses every invalid fixture whose defect a schema can state", () => {
  let refused = 0;
  for (const c of invalidCases) {
    const name = c.fixture.replace(/^fixtures\/invalid\//, "").replace(/\.json$/, "");
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(c.fixture, "utf8"));
    } catch {
      assert.ok(name in BEYOND_A_SCHEMA, `${name} is not JSON but not listed`);
      continue;
    }
    const ok = validate(value);
    if (name in BEYOND_A_SCHEMA && BEYOND_A_SCHEMA[name] !== "") {
      assert.ok(ok, `${name} is listed as beyond a schema, but the schema refuses it: take it off the list`);
      continue;
    }
    assert.not.ok(ok, `${name}: the schema accepts it`);
    refused++;
  }
  assert.ok(refused >= 30, `${refused} refused`);
});

test("the schema allows internal keys at every level, as the build does", () => {
  const source = JSON.parse(readFileSync("fixtures/registry.json", "utf8")) as Record<string, unknown>;
  assert.ok(Object.keys(source).includes("node_operator"), "the snapshot has internal keys");
  assert.ok(validate(source));
});

test("the schema names at each level exactly the keys the build knows, in their order: one list, the editor's copy checked against it", () => {
  const schema = JSON.parse(readFileSync("source.schema.json", "utf8"));
  const objectOf = (nullable: { oneOf: { type: string; properties?: object }[] }) =>
    nullable.oneOf.find((branch) => branch.type === "object")?.properties ?? {};
  const named: Record<keyof typeof KNOWN_KEYS, string[]> = {
    top: Object.keys(schema.properties),
    licence: Object.keys(objectOf(schema.properties.licence)),
    labels: Object.keys(objectOf(schema.properties.labels)),
    vault: Object.keys(schema.$defs.vault.properties),
    edge: Object.keys(schema.$defs.edge.properties),
  };
  assert.equal(named, KNOWN_KEYS);
});

test.run();
