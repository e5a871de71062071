/** Validation edge cases, one example each, beside the properties' generated ones. */
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  checkInternalKeys,
  editDistance,
  isCalendarDate,
  isUtcTimestamp,
  shownKey,
  validateSource,
} from "../contract/source.ts";
import { fcParams } from "./arbitraries.ts";
import { MAX_INTERNAL_KEY_LENGTH, MAX_INTERNAL_KEYS } from "../contract/limits.ts";
import { buildRegistry, serializeRegistry } from "../registry.ts";
import { contextOf } from "../contract/version-policy.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { readFileSync } from "node:fs";
import { CONFUSABLES_MODULE, CONFUSABLES_TXT, confusablesModule } from "./confusables-table.ts";
import { fold } from "../contract/fold.ts";
import { CONFUSABLES_VERSION } from "../contract/confusables.ts";

const BASE = {
  registry_schema_version: "1",
  generated_at: "2026-11-14T08:30:00Z",
  source_inventory_sha: "9c1e4b7d2f8a6035e1d94c7b0a2f6e83d5b19c47",
  vaults: [{ vault_slug: "a", display_name: "A", status: "active" }],
  edges: [],
};
const problems = (source: unknown): readonly string[] => {
  const result = validateSource(source);
  return result.ok ? [] : result.problems;
};

test("timestamps: RFC 3339 UTC with whole seconds, a real instant, nothing around it", () => {
  for (
    const ok of [
      "2026-11-14T08:30:00Z",
      "2024-02-29T23:59:59Z",
      "0050-01-01T00:00:00Z",
      "9999-12-31T23:59:59Z",
      "2026-11-14T00:00:00Z",
    ]
  ) {
    assert.ok(isUtcTimestamp(ok), ok);
  }
  for (
    const bad of [
      "2026-11-14T24:00:00Z",
      "2026-11-14T23:60:00Z",
      "2026-11-14T23:59:60Z",
      "2026-02-29T00:00:00Z",
      "2026-13-01T00:00:00Z",
      "2026-00-10T00:00:00Z",
      "2026-04-31T00:00:00Z",
      "2026-11-00T00:00:00Z",
      "x2026-11-14T08:30:00Z",
      "2026-11-14T08:30:00Zx",
      "2026-11-14T08:30:00.5Z",
      "2026-11-14T08:30:00+00:00",
      "2026-11-14 08:30:00Z",
    ]
  ) {
    assert.not.ok(isUtcTimestamp(bad), bad);
  }
});

test("calendar dates: YYYY-MM-DD that exist, nothing around them", () => {
  for (const ok of ["2024-02-29", "0050-06-15", "2026-12-31"]) assert.ok(isCalendarDate(ok), ok);
  for (
    const bad of [
      "2026-02-29",
      "2026-04-31",
      "2026-13-01",
      "2026-00-01",
      "2026-01-00",
      "x2026-01-01",
      "2026-01-01x",
      "2026-1-01",
    ]
  ) {
    assert.not.ok(isCalendarDate(bad), bad);
  }
});

test("law: a date exists exactly when the platform's own calendar (Date) has it, leap years and year 0 too", () => {
  const byDate = (y: number, m: number, d: number): boolean => {
    const date = new Date(0);
    date.setUTCFullYear(y, m - 1, d);
    return date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
  };
  const pad = (n: number, width: number) => String(n).padStart(width, "0");
  const years = fc.oneof(
    fc.integer({ min: 0, max: 9999 }),
    fc.constantFrom(0, 4, 100, 400, 1900, 2000, 2024, 2100, 9996),
  );
  fc.assert(
    fc.property(
      years,
      fc.integer({ min: 0, max: 13 }),
      fc.integer({ min: 0, max: 32 }),
      fc.integer({ min: 0, max: 24 }),
      (y, m, d, h) => {
        const date = `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
        const exists = m >= 1 && m <= 12 && d >= 1 && byDate(y, m, d);
        assert.is(isCalendarDate(date), exists, date);
        assert.is(isUtcTimestamp(`${date}T${pad(h, 2)}:59:59Z`), exists && h < 24, date);
      },
    ),
    { ...fcParams, numRuns: fcParams.numRuns * 10 },
  );
});

test("a valid string inside an array is still the wrong type, for every patterned field", () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ ...BASE, generated_at: [BASE.generated_at] }, "generated_at"],
    [{ ...BASE, source_inventory_sha: [BASE.source_inventory_sha] }, "source_inventory_sha"],
    [{ ...BASE, vaults: [{ vault_slug: ["a"], display_name: "A", status: "active" }] }, "vaults[0].vault_slug"],
    [
      { ...BASE, vaults: [{ vault_slug: "a", display_name: "A", status: "active", last_synced: ["2026-01-01"] }] },
      "vaults[0].last_synced",
    ],
    [{ ...BASE, licence: { id: "x", url: ["https://example.org/"] } }, "licence.url"],
  ];
  for (const [source, path] of cases) assert.equal(problems(source).map((p) => p.split(":")[0]), [path], path);
});

test("licence: each missing member is named with its path", () => {
  assert.equal(problems({ ...BASE, licence: { url: "https://example.org/" } }), [
    "licence.id: required key is missing",
  ]);
  assert.equal(problems({ ...BASE, licence: { id: "CC0" } }), ["licence.url: required key is missing"]);
});

test("labels: an empty label is refused; a raw value some vault declares is named with a bracket path, others by position", () => {
  assert.equal(problems({ ...BASE, labels: { class: { a: "" } } }), [
    "labels.class: key #1 (a raw value no vault declares): expected a non-empty string label, got an empty string",
  ]);
  const vaults = ["odd key", "9a", "a_1"].map((status, i) => ({ vault_slug: `v${i}`, display_name: "V", status }));
  assert.equal(problems({ ...BASE, vaults, labels: { status: { "odd key": 1, "9a": 2, a_1: 3, unused: 4 } } }), [
    'labels.status["odd key"]: expected a non-empty string label, got 1',
    'labels.status["9a"]: expected a non-empty string label, got 2',
    "labels.status.a_1: expected a non-empty string label, got 3",
    "labels.status: key #4 (a raw value no vault declares): expected a non-empty string label, got a number",
  ]);
});

test("an edge to a malformed slug reports the slug, not a dangling edge", () => {
  const source = {
    ...BASE,
    vaults: [...BASE.vaults, { vault_slug: "Bad Slug", display_name: "B", status: "active" }],
    edges: [{ source: "a", target: "Bad Slug", type: "t" }],
  };
  assert.equal(problems(source), [
    'vaults[1].vault_slug: expected a slug matching ^[a-z0-9]+(-[a-z0-9]+)*$, got "Bad Slug"',
  ]);
});

test("missing pieces are reported once each, never as duplicates of one another", () => {
  const vaults = [{ display_name: "A", status: "active" }, { display_name: "B", status: "active" }];
  assert.equal(problems({ ...BASE, vaults }), [
    "vaults[0].vault_slug: required key is missing",
    "vaults[1].vault_slug: required key is missing",
  ]);
  for (const edge of [{ target: "a", type: "t" }, { source: "a", type: "t" }, { source: "a", target: "a" }]) {
    const missing = ["source", "target", "type"].find((k) => !(k in edge));
    assert.equal(problems({ ...BASE, edges: [edge, edge] }), [
      `edges[0].${missing}: required key is missing`,
      `edges[1].${missing}: required key is missing`,
    ]);
  }
});

/** The bytes of the document a valid source builds. */
const published = (source: unknown, internalKeys: readonly string[] = []): string => {
  const checked = validateSource(source, { internalKeys });
  if (!checked.ok) throw new Error(checked.problems.join("\n"));
  const options = contextOf(VERSIONS[0]!, { baseUrl: "https://registry.example.org", builtAt: "2026-11-21T12:00:00Z" });
  return new TextDecoder().decode(serializeRegistry(buildRegistry(checked.source, options)));
};

test("keys the old reader guessed at are refused by name until declared, whatever their value says; declared, they are internal and never published", () => {
  // Spellings that once published a vault in full, or only warned, or were refused with no way out.
  const keys: [string, unknown][] = [
    ["meta", { suppressed: true }],
    ["5uppre55ed", "yes"],
    ["private", 1],
    ["hidden", true],
    ["withheld", true],
    ["redacted", true],
    ["do_not_publish", true],
    ["supprimé", true],
    ["state", "SECRET-1"],
    ["flags", ["SECRET-2"]],
    ["person", "SECRET-3"],
    ["personal", "SECRET-4"],
    ["persona_id", "SECRET-5"],
    ["class_id", "SECRET-6"],
    ["stages", "SECRET-7"],
    ["pass", "SECRET-8"],
    ["last_sync", "SECRET-9"],
    ["displayname", "SECRET-10"],
    ["suppress_alerts_until", "SECRET-11"],
    ["espresso", true],
    ["非公開", true],
  ];
  for (const [key, value] of keys) {
    const source = withVault({ note: "SECRET-NOTE", [key]: value });
    const found = problems(source);
    assert.equal(found.length, 1, `${key}: ${found.join("\n")}`);
    const place = /^[A-Za-z_]\w*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
    assert.ok(found[0]?.startsWith(`vaults[1]${place}: undeclared key: not a key of a vault`), found[0]);
    assert.not.ok(found.join("\n").includes("SECRET"), `${key}: no value quoted`);
    const bytes = published({ ...source, internal_keys: [key] });
    assert.ok(
      bytes.includes("SECRET-NOTE"),
      `${key}: declared, the vault is published in full (only suppressed withholds)`,
    );
    assert.not.ok(
      bytes.replace("SECRET-NOTE", "").includes("SECRET") || bytes.includes(JSON.stringify(key)),
      `${key}: its value and name are not published`,
    );
    assert.is(published(source, [key]), bytes, `${key}: declared beside the source, the same bytes`);
  }
  // "did you mean" names the format's key an ASCII near miss folds to, at its own level.
  assert.match(problems(withVault({ displayname: 1 }))[0] ?? "", /did you mean "display_name"\?/);
  assert.match(problems(withVault({ last_sync: 1 }))[0] ?? "", /did you mean "last_synced"\?/);
  assert.match(
    problems(withVault({ "5uppre55ed": 1 }))[0] ?? "",
    /; if it is internal/,
    "two substitutions of digits: too far for a hint",
  );
  assert.match(problems(withVault({ supressed: true }))[0] ?? "", /did you mean "suppressed"\?/);
});

test("an undeclared key is shown escaped, cut at 64 characters without splitting one; a hint names the key it folds near", () => {
  assert.is(shownKey("plain"), '"plain"');
  assert.is(shownKey("quiet\u202e\u0000\u0085\u2028\ue000key"), '"quiet\\u202e\\u0000\\u0085\\u2028\\ue000key"');
  assert.is(shownKey("\u{e0041}tag"), '"\\u{e0041}tag"');
  assert.is(shownKey("a\ud800b"), '"a\\ud800b"', "a lone surrogate half, escaped by JSON");
  assert.is(shownKey("x".repeat(64)), `"${"x".repeat(64)}"`);
  assert.is(shownKey("x".repeat(65)), `"${"x".repeat(64)}"…`);
  assert.is(shownKey(`${"x".repeat(63)}😀😀`), `"${"x".repeat(63)}😀"…`, "a pair is one character, never split");
  assert.is(shownKey("k".repeat(5_000_000)), `"${"k".repeat(64)}"…`);
  assert.is(
    problems({ ...BASE, Vaults: [] })[0],
    'Vaults: undeclared key: not a key of the top level: did you mean "vaults"? If it is internal, list it in internal_keys (or --internal-keys)',
  );
  assert.is(
    problems({ ...BASE, vaults_ü: [] })[0],
    '$["vaults_\\u00fc"]: undeclared key: not a key of the top level: did you mean "vaults"? If it is internal, list it in internal_keys (or --internal-keys)',
    "folded, a letter outside ASCII is one edit; shown escaped",
  );
  assert.is(
    problems({ ...BASE, 非公開: [] })[0],
    '$["非公開"]: undeclared key: not a key of the top level; if it is internal, list it in internal_keys (or --internal-keys)',
    "a key near none of the format's is shown as it is",
  );
  assert.is(
    problems({ ...BASE, ["k".repeat(129)]: [] })[0],
    `$["${
      "k".repeat(64)
    }"…]: undeclared key: not a key of the top level, and too long to declare (a declared name has at most 128 characters)`,
  );
  assert.is(
    problems(withVault({ notes: 1 }))[0],
    'vaults[1].notes: undeclared key: not a key of a vault: did you mean "note"? If it is internal, list it in internal_keys (or --internal-keys)',
  );
  assert.is(
    problems(withVault({ type: 1 }))[0],
    "vaults[1].type: undeclared key: not a key of a vault; if it is internal, list it in internal_keys (or --internal-keys)",
    "an edge's key is no hint on a vault",
  );
});

test("while a declaration is refused, or the top level repeats a key, undeclared keys are named by position, never by name", () => {
  const owned = (extra: Record<string, unknown>) => ({
    ...BASE,
    vaults: [{ ...BASE.vaults[0], secret_owner: "x" }],
    ...extra,
  });
  const byPosition =
    "vaults[0]: undeclared key #4 (not named while the declaration of internal keys is refused or repeated): not a key of a vault";
  for (
    const internal_keys of ["secret_owner", ["secret_owner", "x".repeat(MAX_INTERNAL_KEY_LENGTH + 1)], [
      "secret_owner",
      "supressed",
    ], ["secret_owner", 3]]
  ) {
    const found = problems(owned({ internal_keys }));
    assert.ok(found.includes(byPosition) || internal_keys.includes?.("secret_owner"), found.join("\n"));
    assert.not.ok(found.join("\n").includes("secret_owner"), `a refused declaration names no key: ${found.join("\n")}`);
  }
  assert.ok(problems(owned({ internal_keys: "secret_owner" })).includes(byPosition));
  const tooMany = validateSource(owned({}), {
    internalKeys: Array.from({ length: MAX_INTERNAL_KEYS + 1 }, (_, i) => `secret_${i}`),
  });
  assert.not.ok(
    !tooMany.ok && tooMany.problems.join("\n").includes("secret_owner"),
    "a list refused whole names none of its keys",
  );
  const repeated = validateSource(owned({}), { repeatedAtTop: true });
  assert.equal(repeated.ok ? [] : repeated.problems, [byPosition]);
});

test("a repeated top-level key, or an undeclared key in licence or labels, keeps every vault's detail and edge type out of messages", () => {
  const leaky = {
    ...BASE,
    vaults: [...BASE.vaults, vault({ last_synced: "SECRET-DATE" })],
    edges: [{ source: "b", target: "b", type: "SECRET-EDGE" }, { source: "b", target: "b", type: "SECRET-EDGE" }],
  };
  assert.ok(problems(leaky).join("\n").includes("SECRET"), "published vaults are quoted");
  const repeated = validateSource(leaky, { repeatedAtTop: true });
  assert.not.ok(!repeated.ok && repeated.problems.join("\n").includes("SECRET"), JSON.stringify(repeated));
  for (
    const above of [{ labels: { class: null, hidden: ["b"] } }, {
      licence: { id: "x", url: "https://example.org/l", hidden: ["b"] },
    }]
  ) {
    const found = problems({ ...leaky, ...above });
    assert.ok(found.length > 1 && !found.join("\n").includes("SECRET"), found.join("\n"));
  }
});

test("a string where an object or array belongs is named by its kind, never quoted (a source another program encoded twice)", () => {
  const twice = JSON.stringify({ internal_keys: ["owner"], vaults: [{ owner: "SECRET-OWNER", suppressed: true }] });
  assert.equal(problems(twice), ["$: expected an object, got a string"]);
  for (const key of ["vaults", "edges", "labels", "licence"]) {
    const found = problems({ ...BASE, [key]: twice });
    assert.ok(
      found.length === 1 && found[0]?.endsWith("got a string") && !found[0].includes("SECRET"),
      `${key}: ${found.join("\n")}`,
    );
  }
  assert.equal(problems({ ...BASE, labels: { class: twice, status: null } }), [
    "labels.class: expected an object of raw value to label, got a string",
  ]);
});

test("a near miss of `suppressed` is never offered for declaring; a withheld value's length is not told", () => {
  for (const key of ["supresed", "supressd"]) {
    const [line] = problems(withVault({ [key]: true }));
    assert.is(
      line,
      `vaults[1].${key}: undeclared key: not a key of a vault: did you mean "suppressed"? Only "suppressed": true withholds a vault`,
      key,
    );
  }
  for (const key of ["Suppressed", "suppresed", "suppresssed"]) {
    const [line] = problems(withVault({ [key]: true }));
    assert.is(
      line,
      `vaults[1].${key}: undeclared key: not a key of a vault: did you mean "suppressed"? Only "suppressed": true withholds, and this name cannot be declared`,
      key,
    );
  }
  const long = "n".repeat(70_001);
  assert.equal(problems(withVault({ suppressed: true, note: long })), [
    "vaults[1].note: expected at most 65536 characters, got a string",
  ]);
  assert.equal(problems(withVault({ note: long })), [
    `vaults[1].note: expected at most 65536 characters (this string has 70001), got "${"n".repeat(57)}..."`,
  ]);
});

test("what a terminal would not show is escaped in every quoted value: keys, slugs, label raw values, statuses, edge types", () => {
  for (
    const [text, shown] of [
      ["owner\u00a0", '"owner\\u00a0"'],
      ["\u3000", '"\\u3000"'],
      ["a\u2003b", '"a\\u2003b"'],
      ["\u3164x", '"\\u3164x"'],
      ["a b", '"a b"'],
      ["非公開", '"非公開"'],
    ] as const
  ) {
    assert.is(shownKey(text), shown, JSON.stringify(text));
  }
  const raw = "a\u202eb\u009b31m\u2028";
  const all = [
    ...problems({ ...BASE, vaults: [{ vault_slug: raw, display_name: "A", status: "active" }] }),
    ...problems({
      ...BASE,
      vaults: [{ ...BASE.vaults[0], class: raw }],
      labels: { class: { [raw]: "" }, status: null },
    }),
    ...problems({
      ...BASE,
      vaults: [...BASE.vaults, vault({})],
      edges: [{ source: "a", target: "b", type: raw }, { source: "a", target: "b", type: raw }],
    }),
  ];
  const checked = validateSource(withVault({ status: "\u2028active\u3000" }));
  const warned = checked.ok ? checked.warnings.map((w) => w.line) : [];
  assert.is(all.length, 3, all.join("\n"));
  assert.is(warned.length, 1);
  for (const line of [...all, ...warned]) assert.not.match(line, /[\u202e\u009b\u2028]/, JSON.stringify(line));
});

test("the names of both lists are counted once each against the limit; declaring a key the format reads says where it stays the format's", () => {
  const names = Array.from({ length: MAX_INTERNAL_KEYS }, (_, i) => `k${i}`);
  const both = validateSource({ ...BASE, internal_keys: names.slice(0, 10) }, { internalKeys: names });
  assert.ok(both.ok, JSON.stringify(both));
  const warned: string[] = [];
  checkInternalKeys(["tagline"], "x", () => assert.unreachable(), (line) => warned.push(line));
  assert.equal(warned, [
    'x[0]: "tagline" is a key the format reads on a vault, where it stays the format\'s; it is internal only at the other levels',
  ]);
});

test("editDistance: insert, delete, substitute and swap cost one each, capped past the limit", () => {
  assert.is(editDistance("suppressed", "suppressed", 2), 0);
  assert.is(editDistance("supressed", "suppressed", 2), 1);
  assert.is(editDistance("suppresssed", "suppressed", 2), 1);
  assert.is(editDistance("suppresesd", "suppressed", 2), 1, "a swap of neighbours");
  assert.is(editDistance("asuppressed", "suppressed", 1), 1);
  assert.is(editDistance("5uppre55ed", "suppressed", 2), 3, "past the limit: limit + 1");
  assert.is(editDistance("", "ab", 5), 2);
  assert.is(editDistance("ab", "", 5), 2);
  assert.is(editDistance("ca", "abc", 5), 3, "optimal string alignment: a swapped pair is not edited again");
  assert.is(editDistance("x".repeat(40), "suppressed", 2), 3, "lengths too far apart");
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom(..."abc"), maxLength: 6 }),
      fc.string({ unit: fc.constantFrom(..."abc"), maxLength: 6 }),
      (a, b) => {
        const d = editDistance(a, b, 12);
        assert.is(editDistance(b, a, 12), d, "symmetric");
        assert.is(d === 0, a === b, "zero exactly when equal");
        assert.ok(
          d >= Math.abs(a.length - b.length) && d <= Math.max(a.length, b.length),
          "between the length difference and the longer length",
        );
        for (const limit of [0, 1, 2]) {
          assert.is(
            editDistance(a, b, limit),
            Math.min(d, limit + 1),
            "the limit only caps",
          );
        }
      },
    ),
    fcParams,
  );
});

test("internal_keys: an array of distinct names of 1 to 128 characters, none within one edit of `suppressed`; problems never quote a name", () => {
  const refused = (list: unknown): readonly string[] => problems({ ...BASE, internal_keys: list });
  assert.equal(refused("owner"), ["internal_keys: expected an array of key names, got a string"]);
  assert.equal(refused({ owner: true }), ["internal_keys: expected an array of key names, got an object"]);
  assert.equal(refused(null), [], "null is absent");
  assert.equal(refused([]), []);
  assert.equal(
    refused([
      "SECRET-a",
      "SECRET-a",
      "",
      3,
      "x".repeat(MAX_INTERNAL_KEY_LENGTH),
      "x".repeat(MAX_INTERNAL_KEY_LENGTH + 1),
    ]),
    [
      "internal_keys[1]: the same name as internal_keys[0]",
      `internal_keys[2]: expected a key name of 1 to ${MAX_INTERNAL_KEY_LENGTH} characters, got 0`,
      "internal_keys[3]: expected a key name (a string), got a number",
      `internal_keys[5]: expected a key name of 1 to ${MAX_INTERNAL_KEY_LENGTH} characters, got ${
        MAX_INTERNAL_KEY_LENGTH + 1
      }`,
    ],
  );
  const misspelling =
    'a name that folds to within one edit of "suppressed" cannot be declared internal: only "suppressed": true withholds a vault, and a look-alike or misspelling of it would publish the vault in full';
  for (
    const name of [
      "suppressed",
      "Suppressed",
      "SUPPRESSED",
      "supressed",
      "suppresed",
      "suppresssed",
      "suppresesd",
      "is-suppressed".slice(3),
      "suppressed_",
      "Sup Pressed",
      "suppresses",
      "xsuppressed",
      // Look-alikes: fullwidth, Cyrillic and Greek letters, invisible characters, another case.
      "ｓｕｐｐｒｅｓｓｅｄ",
      "ＳＵＰＰＲＥＳＳＥＤ",
      "\u0455uppre\u0455\u0455ed",
      "\u0455\u0578\u0440\u0440r\u0435\u0455\u0455\u0435\u0501",
      "su\u03c1\u03c1ressed",
      "s\u200bu\u200bppressed\u2060",
      "SUP\u00adPRESSED",
      "\ud835\udc2cuppre\ud835\udc2c\ud835\udc2ced",
      "suppreßed",
      "suppressed\u{1f600}",
    ]
  ) {
    assert.equal(refused([name]), [`internal_keys[0]: ${misspelling}`], name);
  }
  for (
    const name of [
      "suppressed_by",
      "suppressed_at",
      "is_suppressed",
      "unsuppressed",
      "suppress",
      "5uppre55ed",
      "\u0455uppre\u0455\u0455_by",
    ]
  ) assert.equal(refused([name]), [], `${name} may be declared`);
  assert.equal(refused(Array.from({ length: MAX_INTERNAL_KEYS }, (_, i) => `k${i}`)), []);
  assert.equal(refused(Array.from({ length: MAX_INTERNAL_KEYS + 1 }, (_, i) => `k${i}`)), [
    `internal_keys: ${MAX_INTERNAL_KEYS + 1} names in all; the limit is ${MAX_INTERNAL_KEYS}`,
  ]);
  const joined = validateSource({ ...BASE, internal_keys: ["a"] }, {
    internalKeys: Array.from({ length: MAX_INTERNAL_KEYS }, (_, i) => `k${i}`),
    internalKeysPlace: "--internal-keys",
  });
  assert.equal(joined.ok ? [] : joined.problems, [
    `internal_keys: ${MAX_INTERNAL_KEYS + 1} names in all; the limit is ${MAX_INTERNAL_KEYS}`,
  ], "the limit counts both lists");
  // The list beside the source follows the same rules, named as its caller names it.
  const beside = validateSource(BASE, { internalKeys: ["ok", "supressed"], internalKeysPlace: "--internal-keys" });
  assert.equal(beside.ok ? [] : beside.problems, [`--internal-keys[1]: ${misspelling}`]);
});

test("a declared name the format publishes at some level is internal only elsewhere, and the build says so once", () => {
  const source = {
    ...BASE,
    internal_keys: ["note", "type"],
    vaults: [{ vault_slug: "a", display_name: "A", status: "active", note: "public note", type: "SECRET-type" }],
    edges: [{ source: "a", target: "a", type: "cites", note: "SECRET-note" }],
  };
  const checked = validateSource(source);
  assert.ok(checked.ok);
  if (!checked.ok) return;
  assert.equal(checked.warnings, [
    {
      kind: "public-name",
      line:
        'internal_keys[0]: "note" is a key the format reads on a vault, where it stays the format\'s; it is internal only at the other levels',
    },
    {
      kind: "public-name",
      line:
        'internal_keys[1]: "type" is a key the format reads on an edge, where it stays the format\'s; it is internal only at the other levels',
    },
  ]);
  const bytes = published(source);
  assert.ok(
    bytes.includes('"note": "public note"') && bytes.includes('"type": "cites"') && !bytes.includes("SECRET"),
    bytes,
  );
  // Declared in both lists: one warning, the one beside the source.
  const both = validateSource(source, { internalKeys: ["note"], internalKeysPlace: "INTERNAL_KEYS" });
  assert.equal(both.ok ? both.warnings.map((w) => w.line) : both.problems, [
    'INTERNAL_KEYS[0]: "note" is a key the format reads on a vault, where it stays the format\'s; it is internal only at the other levels',
    'internal_keys[1]: "type" is a key the format reads on an edge, where it stays the format\'s; it is internal only at the other levels',
  ]);
  const warned: string[] = [];
  assert.equal(
    checkInternalKeys(
      ["vaults", "__proto__", "constructor"],
      "x",
      () => assert.unreachable(),
      (line) => warned.push(line),
    ),
    ["vaults", "__proto__", "constructor"],
  );
  assert.equal(warned, [
    'x[0]: "vaults" is a key the format reads on the top level, where it stays the format\'s; it is internal only at the other levels',
  ]);
});

test("an undeclared key at the top level withholds every vault's detail from messages; on a vault, its detail; on an edge, its type", () => {
  const withheld = vault({ note: 424242, last_synced: "SECRET-SYNC" });
  const top = problems({ ...BASE, private_vaults: ["b"], vaults: [...BASE.vaults, withheld] });
  assert.equal(top, [
    "private_vaults: undeclared key: not a key of the top level; if it is internal, list it in internal_keys (or --internal-keys)",
    "vaults[1].note: expected a string or null, got a number",
    "vaults[1].last_synced: expected a YYYY-MM-DD date or null, got a string",
  ]);
  const own = problems({ ...BASE, vaults: [...BASE.vaults, { ...withheld, hidden: true }] });
  assert.ok(
    own.includes("vaults[1].last_synced: expected a YYYY-MM-DD date or null, got a string") &&
      !own.join("\n").includes("SECRET"),
    own.join("\n"),
  );
  const edges = problems({ ...BASE, edges: [{ source: "a", target: "a", type: 42, suppressed: true }] });
  assert.equal(edges, [
    'edges[0].suppressed: undeclared key: not a key of an edge: did you mean "suppressed"? Only "suppressed": true on a vault withholds, and this name cannot be declared',
    "edges[0].type: expected a string, got a number",
  ]);
  // A later copy of an edge with an undeclared key does not quote the type it shares with it.
  const copied = problems({
    ...BASE,
    edges: [{ source: "a", target: "a", type: "SECRET-TYPE", 非公開: true }, {
      source: "a",
      target: "a",
      type: "SECRET-TYPE",
    }],
  });
  assert.ok(
    copied.includes("edges[1]: duplicate edge: the same (source, target, type) as edges[0]") &&
      !copied.join("\n").includes("SECRET"),
    copied.join("\n"),
  );
  // A declared key withholds nothing: messages quote the vault's detail.
  assert.equal(problems({ ...withVault({ hidden: true, last_synced: "2026-02-30" }), internal_keys: ["hidden"] }), [
    'vaults[1].last_synced: expected a YYYY-MM-DD date or null, got "2026-02-30"',
  ]);
});

test("a public value in a message: as JSON, long strings cut to an excerpt, other types by name", () => {
  const said = (value: unknown, shown: string) =>
    assert.equal(problems({ ...BASE, generated_at: value }), [
      `generated_at: expected an RFC 3339 UTC timestamp like 2026-11-14T08:30:00Z, got ${shown}`,
    ]);
  said("abc", '"abc"');
  said("x".repeat(60), `"${"x".repeat(60)}"`);
  said("x".repeat(61), `"${"x".repeat(57)}..."`);
  said(-0, "0");
  said(false, "false");
  said(undefined, "undefined");
  assert.equal(problems(undefined), ["$: expected an object, got undefined"]);
});

// --- each rule at its edge (what the mutation run found no test stating) ------------------------

const result = (source: unknown) => validateSource(source);
const vault = (extra: Record<string, unknown>) => ({ vault_slug: "b", display_name: "B", status: "active", ...extra });
const withVault = (extra: Record<string, unknown>, edges: unknown[] = []) => ({
  ...BASE,
  vaults: [...BASE.vaults, vault(extra)],
  edges,
});

test("every key the format names, at every level, is the hint for its upper-case spelling there", () => {
  const at: Record<string, (key: string) => unknown> = {
    $: (key) => ({ ...BASE, [key]: 1 }),
    licence: (key) => ({ ...BASE, licence: { id: "CC-BY-4.0", url: "https://example.org/l", [key]: 1 } }),
    labels: (key) => ({ ...BASE, labels: { class: null, status: null, [key]: 1 } }),
    "vaults[1]": (key) => withVault({ [key]: 1 }),
    "edges[0]": (key) => ({
      ...BASE,
      vaults: [...BASE.vaults, vault({})],
      edges: [{ source: "a", target: "b", type: "t", [key]: 1 }],
    }),
  };
  const known: Record<string, string[]> = {
    $: [
      "registry_schema_version",
      "generated_at",
      "source_inventory_sha",
      "licence",
      "labels",
      "internal_keys",
      "vaults",
      "edges",
    ],
    licence: ["id", "url"],
    labels: ["class", "status"],
    "vaults[1]": [
      "vault_slug",
      "display_name",
      "class",
      "status",
      "persona",
      "note",
      "tagline",
      "last_synced",
      "suppressed",
    ],
    "edges[0]": ["source", "target", "type"],
  };
  for (const [place, keys] of Object.entries(known)) {
    for (const key of keys) {
      const found = problems((at[place] as (k: string) => unknown)(key.toUpperCase()));
      assert.ok(
        found.some((p) =>
          p.startsWith(
            `${place === "$" ? "" : place}${place === "$" ? "" : "."}${key.toUpperCase()}: undeclared key:`,
          ) &&
          p.includes(`did you mean ${JSON.stringify(key)}?`)
        ),
        `${place} ${key}: ${found.join("\n")}`,
      );
    }
  }
});

test("a label table that is not an object is refused naming what it is; a raw value no vault declares is named by position", () => {
  assert.equal(problems({ ...BASE, labels: { class: "abc", status: null } }), [
    "labels.class: expected an object of raw value to label, got a string",
  ]);
  assert.equal(problems({ ...BASE, labels: { class: 7, status: null } }), [
    "labels.class: expected an object of raw value to label, got a number",
  ]);
  assert.equal(problems({ ...BASE, vaults: [...BASE.vaults, null], labels: { class: { secret: "" }, status: null } }), [
    "labels.class: key #1 (a raw value no vault declares): expected a non-empty string label, got an empty string",
    "vaults[1]: expected an object, got null",
  ]);
});

test("a vault whose suppressed is plainly false is published: messages quote its detail", () => {
  assert.equal(problems(withVault({ suppressed: false, last_synced: "2026-02-30" })), [
    'vaults[1].last_synced: expected a YYYY-MM-DD date or null, got "2026-02-30"',
  ]);
  assert.equal(problems(withVault({ suppressed: true, last_synced: "2026-02-30" })), [
    "vaults[1].last_synced: expected a YYYY-MM-DD date or null, got a string",
  ]);
});

test("warnings: a status that is active or pending only up to case or spaces names the tier it gets", () => {
  const warnings = (source: unknown): string[] => {
    const checked = result(source);
    return checked.ok ? checked.warnings.map((w) => w.line) : [`refused: ${checked.problems.join("; ")}`];
  };
  assert.equal(warnings(withVault({ status: " active" })), [
    'vaults[1].status: " active" is not "active": its tier is planned, not in_use (tier follows the exact value)',
  ]);
  assert.equal(warnings(withVault({ status: "Pending" })), [
    'vaults[1].status: "Pending" is not "pending": its tier is planned, not chartered (tier follows the exact value)',
  ]);
  assert.equal(
    warnings({ ...withVault({ hidden: true }), internal_keys: ["hidden"] }),
    [],
    "a declared key set to true warns of nothing",
  );
});

test("edges: an end that is not a string, and a repeated edge between withheld vaults, are named without their values", () => {
  assert.equal(problems({ ...BASE, edges: [{ source: 42, target: "a", type: "t" }] }), [
    "edges[0].source: expected a string, got a number",
  ]);
  assert.equal(problems({ ...BASE, edges: [{ source: "a", target: true, type: "t" }] }), [
    "edges[0].target: expected a string, got a boolean",
  ]);
  const edge = { source: "a", target: "b", type: "t" };
  assert.equal(problems(withVault({ suppressed: true }, [edge, edge])), [
    "edges[1]: duplicate edge: the same (source, target, type) as edges[0]",
  ]);
  assert.equal(problems(withVault({}, [edge, edge])), [
    'edges[1]: duplicate edge: the same (source, target, type) = ["a","b","t"] as edges[0]',
  ]);
});

test("licence url: absolute http or https only", () => {
  for (const url of ["ftp://example.org/licence", "mailto:legal@example.org", "file:///licence"]) {
    assert.equal(problems({ ...BASE, licence: { id: "x", url } }), [
      `licence.url: expected an absolute http or https URL, got ${JSON.stringify(url)}`,
    ], url);
  }
  assert.equal(problems({ ...BASE, licence: { id: "x", url: "HTTPS://example.org/l" } }), []);
});

test("what a message names of a value it may not quote: its kind", () => {
  const cases: [unknown, string][] = [
    [null, "null"],
    [[], "an array"],
    ["", "an empty string"],
    ["x", "a string"],
    [{}, "an object"],
    [undefined, "undefined"],
    [3, "a number"],
    [false, "a boolean"],
  ];
  for (const [value, kind] of cases) {
    // An object at the top is what is expected; one where a string is expected is named the same way.
    if (kind === "an object") {
      assert.equal(problems({ ...BASE, $schema: value }), [
        `$schema: expected a string (the URL of a JSON Schema), got ${kind}`,
      ]);
    } else assert.equal(problems(value), [`$: expected an object, got ${kind}`], kind);
  }
});

test("contract/confusables.ts is what test/update-confusables.ts derives from the vendored confusables.txt", () => {
  const text = readFileSync(CONFUSABLES_TXT, "utf8");
  assert.match(text, /^# Version: 17\.0\.0$/m, "Unicode's file, with its version line");
  assert.is(confusablesModule(text), readFileSync(CONFUSABLES_MODULE, "utf8"));
  assert.is(CONFUSABLES_VERSION, "17.0.0");
});

test("fold: NFKC, case folding, default-ignorables removed, confusable skeletons, _ - and spaces removed", () => {
  const cases: [string, string][] = [
    ["Last-Synced", "lastsynced"],
    ["vault slug", "vaultslug"],
    ["ｓｕｐｐｒｅｓｓｅｄ", "suppressed"],
    ["\u0455uppre\u0455\u0455ed", "suppressed"],
    ["\u0405UPPRESSED", "suppressed"],
    ["s\u200bup\u00adpressed\u{e0020}", "suppressed"],
    ["su\u03c1\u03c1ressed", "suppressed"],
    ["SUPPR\u0395SS\u0395D", "suppressed"],
    ["\u13daUPPRESSED", "suppressed"],
    ["\uabaauppressed", "suppressed"],
    ["suppreßed", "suppressed"],
    // Combining marks (after NFD), the Braille blank and the tatweel: a reader sees no letter there.
    ["su\u0323ppre\u0323ssed", "suppressed"],
    ["\u1e61uppresse\u1e0b", "suppressed"],
    ["su\u0334ppres\u0334sed", "suppressed"],
    ["suppressed\u0e47\u0e47", "suppressed"],
    ["su\u05b0ppres\u05b0sed", "suppressed"],
    ["sup\u2800pre\u2800ssed", "suppressed"],
    ["suppre\u0640ssed\u0640", "suppressed"],
    ["0wner", "owner"],
    ["5uppre55ed", "5uppre55ed"],
    ["非公開", "非公開"],
  ];
  for (const [name, folded] of cases) assert.is(fold(name), folded, JSON.stringify(name));
});

test("a declared look-alike of `suppressed` is refused, beside the source too, and never publishes the vault", () => {
  for (
    const name of [
      "ｓｕｐｐｒｅｓｓｅｄ",
      "\u0455uppre\u0455\u0455ed",
      "s\u200bu\u200bppressed",
      "suppressed\u2800\u2800",
      "\u1e61uppresse\u1e0b",
      "su\u0334ppres\u0334sed",
    ]
  ) {
    const source = { ...withVault({ note: "SECRET-NOTE", [name]: true }), internal_keys: [name] };
    const found = problems(source);
    assert.ok(found[0]?.startsWith("internal_keys[0]: a name that folds to within one edit of"), found.join("\n"));
    assert.not.ok(found.join("\n").includes("SECRET") || found.join("\n").includes(name), found.join("\n"));
    assert.not.ok(validateSource(withVault({ [name]: true }), { internalKeys: [name] }).ok, "beside the source");
  }
});

test("an undeclared key folding near `suppressed` is never offered for declaring, at any level, and is shown escaped", () => {
  const tail = 'did you mean "suppressed"? Only "suppressed": true';
  const cases: [unknown, string][] = [
    [{ ...BASE, suppressed: true }, "suppressed: undeclared key: not a key of the top level: "],
    [
      { ...BASE, licence: { id: "x", url: "https://example.org/l", "Suppressed": true } },
      "licence.Suppressed: undeclared key: not a key of licence: ",
    ],
    [
      withVault({ "ｓｕｐｐｒｅｓｓｅｄ": true }),
      'vaults[1]["\\uff53\\uff55\\uff50\\uff50\\uff52\\uff45\\uff53\\uff53\\uff45\\uff44"]: undeclared key: not a key of a vault: ',
    ],
    [withVault({ "\u0455uppressed": true }), 'vaults[1]["\\u0455uppressed"]: undeclared key: not a key of a vault: '],
    [withVault({ "sup\u200bpressed": true }), 'vaults[1]["sup\\u200bpressed"]: undeclared key: not a key of a vault: '],
  ];
  for (const [source, start] of cases) {
    const [line] = problems(source);
    assert.ok(line?.startsWith(start + tail), line);
    assert.ok(line?.endsWith("and this name cannot be declared"), line);
    assert.not.ok(line?.includes("internal_keys"), line);
  }
});

test("one undeclared key at one level is one line however many vaults or edges hold it; its value is never quoted", () => {
  const vaults = Array.from({ length: 20 }, (_, i) => ({
    vault_slug: `v${i}`,
    display_name: "V",
    status: "active",
    owner_email: `SECRET-${i}@example.org`,
    "cost centre": "SECRET",
  }));
  const edges = [0, 1, 2].map((i) => ({ source: "v0", target: `v${i}`, type: "t", x: "SECRET" }));
  assert.equal(problems({ ...BASE, vaults, edges }), [
    "vaults[*].owner_email: undeclared key, in 20 vaults (first vaults[0]): not a key of a vault; if it is internal, list it in internal_keys (or --internal-keys)",
    'vaults[*]["cost centre"]: undeclared key, in 20 vaults (first vaults[0]): not a key of a vault; if it is internal, list it in internal_keys (or --internal-keys)',
    "edges[*].x: undeclared key, in 3 edges (first edges[0]): not a key of an edge; if it is internal, list it in internal_keys (or --internal-keys)",
  ]);
  const unnamed = validateSource({ ...BASE, vaults, edges }, { nameUndeclared: false });
  assert.equal(unnamed.ok ? [] : unnamed.problems, [
    "vaults[*]: undeclared key, in 20 vaults (first vaults[0], its key #4; not named while the declaration of internal keys is refused or repeated): not a key of a vault",
    "vaults[*]: undeclared key, in 20 vaults (first vaults[0], its key #5; not named while the declaration of internal keys is refused or repeated): not a key of a vault",
    "edges[*]: undeclared key, in 3 edges (first edges[0], its key #4; not named while the declaration of internal keys is refused or repeated): not a key of an edge",
  ]);
  // Past the problem list's end a key held by many vaults still counts as one problem.
  const many = Array.from(
    { length: 60 },
    (_, i) => ({ vault_slug: `m${i}`, display_name: "M", status: "active", [`k${i}`]: 1, shared: 1 }),
  );
  const capped = validateSource({ ...BASE, vaults: [...many, ...vaults] });
  assert.ok(!capped.ok && capped.problems.length === 50 && capped.omitted === 13, JSON.stringify(capped));
});

test("$schema: a string at the top level is read for editors and never published; anything else is refused by its path", () => {
  const schema = "https://editor.example.net/source.schema.json";
  const bytes = published({ ...BASE, $schema: schema });
  assert.not.ok(bytes.includes("editor.example.net") || bytes.includes("$schema"), bytes);
  for (const [wrong, kind] of [[3, "a number"], [null, "null"], [{ url: schema }, "an object"]] as const) {
    assert.equal(problems({ ...BASE, $schema: wrong }), [
      `$schema: expected a string (the URL of a JSON Schema), got ${kind}`,
    ]);
  }
});

test.run();
