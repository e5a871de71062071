import { test } from "uvu";
import * as assert from "uvu/assert";
import { buildRegistry, coverageOf, serializeRegistry, type Source, tierOf, validateSource } from "../registry.ts";
import { contextOf } from "../contract/version-policy.ts";
import { VERSIONS } from "../assembly/versions.ts";

const OPTIONS = contextOf(VERSIONS[0]!, { baseUrl: "https://registry.example.org", builtAt: "2026-11-21T12:00:00Z" });
const BASE = {
  registry_schema_version: "1",
  generated_at: "2026-11-14T08:30:00Z",
  source_inventory_sha: "9c1e4b7d2f8a6035e1d94c7b0a2f6e83d5b19c47",
  vaults: [],
  edges: [],
};

function valid(source: unknown): Source {
  const result = validateSource(source);
  if (!result.ok) throw new Error(result.problems.join("\n"));
  return result.source;
}

test("tierOf: docs/document.md's table, exact matches only", () => {
  assert.is(tierOf("active"), "in_use");
  assert.is(tierOf("pending"), "chartered");
  for (const other of ["Active", "active ", "PENDING", "", "retired", "in_use"]) {
    assert.is(tierOf(other), "planned", other);
  }
});

test("raw values named __proto__, constructor or toString are looked up as data", () => {
  const source = valid(
    JSON.parse(
      `{"registry_schema_version":"1","generated_at":"2026-11-14T08:30:00Z","source_inventory_sha":"9c1e4b7d2f8a6035e1d94c7b0a2f6e83d5b19c47",
      "internal_keys":["__proto__"],"labels":{"class":{"__proto__":"Proto class"},"status":{}},"__proto__":{"polluted":true},
      "vaults":[{"vault_slug":"a","display_name":"A","class":"__proto__","status":"constructor","__proto__":{"x":1}},
                {"vault_slug":"b","display_name":"B","class":"toString","status":"toString"}],"edges":[]}`,
    ),
  );
  const [a, b] = buildRegistry(source, OPTIONS).vaults;
  assert.is(a?.class_label, "Proto class");
  assert.is(a?.status_label, "constructor");
  assert.is(b?.class_label, "toString");
  assert.is(b?.status_label, "toString");
  assert.is(({} as Record<string, unknown>)["polluted"], undefined);
});

test("licence is copied as { id, url } and nothing else; absent or null becomes null", () => {
  const licence = { id: "CC-BY-4.0", url: "https://creativecommons.org/licenses/by/4.0/", contact: "x@internal" };
  assert.equal(buildRegistry(valid({ ...BASE, internal_keys: ["contact"], licence }), OPTIONS).about.licence, {
    id: licence.id,
    url: licence.url,
  });
  assert.is(buildRegistry(valid({ ...BASE, licence: null }), OPTIONS).about.licence, null);
  assert.is(buildRegistry(valid(BASE), OPTIONS).about.licence, null);
});

test("about: URLs from the base URL, never from anywhere else", () => {
  const { about } = buildRegistry(valid(BASE), { ...OPTIONS, baseUrl: "https://example.org/reg/" });
  assert.is(about.canonical_url, "https://example.org/reg/vaults.json");
  assert.is(about.versioned_url, "https://example.org/reg/api/registry.v1.json");
  assert.is(about.schema_url, "https://example.org/reg/api/registry.v1.schema.json");
  assert.match(about.versioning_policy, /90 days/);
});

test("an edge touching a suppressed vault is dropped, whichever end it is", () => {
  const source = valid({
    ...BASE,
    vaults: [
      { vault_slug: "a", display_name: "A", status: "active" },
      { vault_slug: "b", display_name: "B", status: "active", suppressed: true },
    ],
    edges: [
      { source: "a", target: "b", type: "t" },
      { source: "b", target: "a", type: "t" },
      { source: "a", target: "a", type: "self" },
    ],
  });
  const document = buildRegistry(source, OPTIONS);
  assert.equal(document.edges, [{ source: "a", target: "a", type: "self" }]);
  assert.is(document.edge_count, 1);
});

test("build options are checked: a bad base URL or built_at throws before anything is built", () => {
  assert.throws(() => buildRegistry(valid(BASE), { ...OPTIONS, baseUrl: "ftp://x" }), /baseUrl/);
  assert.throws(() => buildRegistry(valid(BASE), { ...OPTIONS, builtAt: "2026-11-21T12:00:00.000Z" }), /builtAt/);
});

test("serialization writes non-ASCII as is and lone surrogates as escapes, so the bytes are valid UTF-8", () => {
  const source = valid({ ...BASE, vaults: [{ vault_slug: "a", display_name: "Ζ 🐚 \ud800", status: "active" }] });
  const text = new TextDecoder("utf-8", { fatal: true }).decode(serializeRegistry(buildRegistry(source, OPTIONS)));
  assert.ok(text.includes('"display_name": "Ζ 🐚 \\ud800"'));
});

test('coverageOf: present and not null, "" or [] counts as populated', () => {
  const rows = [{ note: [] }, { note: ["x"] }, { note: ["y", "z"] }, { note: "" }, { note: null }, { note: "n" }, {
    note: 0,
  }, {}];
  const coverage = coverageOf(rows);
  assert.equal(coverage.note, { populated: 4, of: 8 });
  assert.equal(coverage.listing, { populated: 0, of: 8 });
});

test.run();
