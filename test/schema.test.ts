/** The JSON Schema of v1: every golden document validates, and hand-broken documents do not. */
import Ajv2020 from "ajv/dist/2020.js";
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { registrySchema } from "../contract/schema.ts";
import { validCases } from "./cases.ts";

const ajv = new Ajv2020.default({ strict: true, allErrors: true, validateFormats: false });
const validate = ajv.compile(registrySchema("https://registry.example.org"));
const golden = () => JSON.parse(readFileSync("golden/registry.json", "utf8")) as Record<string, any>;

test("the schema as served at the golden base URL is golden/registry.v1.schema.json, byte for byte", () => {
  const served = `${
    JSON.stringify(registrySchema("https://registry.example.org/api/registry.v1.schema.json"), null, 2)
  }\n`;
  assert.is(served, readFileSync("golden/registry.v1.schema.json", "utf8"));
});

test("every golden document validates against the schema", () => {
  for (const c of validCases) {
    const ok = validate(JSON.parse(readFileSync(`golden/${c.golden}`, "utf8")));
    assert.ok(ok, `${c.golden}: ${JSON.stringify(validate.errors)}`);
  }
});

test("hand-broken documents do not validate", () => {
  const breaks: [string, (d: Record<string, any>) => void][] = [
    ["schema_version 2.0", (d) => (d["schema_version"] = "2.0")],
    ["no vault_count", (d) => delete d["vault_count"]],
    ["vault_count a string", (d) => (d["vault_count"] = "48")],
    ["built_at with an offset", (d) => (d["built_at"] = "2026-11-21T12:00:00+00:00")],
    ["sha in capitals", (d) => (d["source_inventory_sha"] = String(d["source_inventory_sha"]).toUpperCase())],
    ["a full row without note", (d) => delete d["vaults"][0].note],
    ["a full row with a tagline", (d) => (d["vaults"][0].tagline = "Every coin")],
    ["a tier outside the three", (d) => (d["vaults"][0].tier = "retired")],
    ["a minimal row with a note", (d) => (d["vaults"].find((r: any) => r.listing).note = "private")],
    ["a minimal row with a url", (d) => (d["vaults"].find((r: any) => r.listing).url = "https://x.example/")],
    ["a minimal row without listing_note", (d) => delete d["vaults"].find((r: any) => r.listing).listing_note],
    ["listing other than minimal", (d) => (d["vaults"].find((r: any) => r.listing).listing = "full")],
    ["a full row with listing", (d) => (d["vaults"][0].listing = "minimal")],
    ["an edge without type", (d) => delete d["edges"][0].type],
    ["coverage without tagline", (d) => delete d["field_coverage"].tagline],
    ["coverage populated negative", (d) => (d["field_coverage"].note.populated = -1)],
    ["a bad slug", (d) => (d["vaults"][0].vault_slug = "Bad Slug")],
    ["licence a string", (d) => (d["about"].licence = "CC-BY-4.0")],
  ];
  for (const [name, breakIt] of breaks) {
    const document = golden();
    breakIt(document);
    assert.not.ok(validate(document), name);
  }
});

test("unknown keys are allowed: adding a field is not a breaking change", () => {
  const document = golden();
  document["new_field"] = 1;
  document["vaults"][0].new_field = "x";
  assert.ok(validate(document), JSON.stringify(validate.errors));
});

test.run();
