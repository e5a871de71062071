/** Validation edge cases, one example each, beside the properties' generated ones. */
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { describe, isCalendarDate, isUtcTimestamp, kindOf, validateSource } from "../contract/source.ts";
import { fcParams } from "./arbitraries.ts";
import { MAX_KEY_LENGTH, MAX_UNKNOWN_KEY_CHARACTERS } from "../contract/limits.ts";

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
  for (const ok of ["2026-11-14T08:30:00Z", "2024-02-29T23:59:59Z", "0050-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-11-14T00:00:00Z"]) {
    assert.ok(isUtcTimestamp(ok), ok);
  }
  for (const bad of [
    "2026-11-14T24:00:00Z", "2026-11-14T23:60:00Z", "2026-11-14T23:59:60Z", "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
    "2026-00-10T00:00:00Z", "2026-04-31T00:00:00Z", "2026-11-00T00:00:00Z", "x2026-11-14T08:30:00Z", "2026-11-14T08:30:00Zx",
    "2026-11-14T08:30:00.5Z", "2026-11-14T08:30:00+00:00", "2026-11-14 08:30:00Z",
  ]) {
    assert.not.ok(isUtcTimestamp(bad), bad);
  }
});

test("calendar dates: YYYY-MM-DD that exist, nothing around them", () => {
  for (const ok of ["2024-02-29", "0050-06-15", "2026-12-31"]) assert.ok(isCalendarDate(ok), ok);
  for (const bad of ["2026-02-29", "2026-04-31", "2026-13-01", "2026-00-01", "2026-01-00", "x2026-01-01", "2026-01-01x", "2026-1-01"]) {
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
  const years = fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 4, 100, 400, 1900, 2000, 2024, 2100, 9996));
  fc.assert(
    fc.property(years, fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), fc.integer({ min: 0, max: 24 }), (y, m, d, h) => {
      const date = `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
      const exists = m >= 1 && m <= 12 && d >= 1 && byDate(y, m, d);
      assert.is(isCalendarDate(date), exists, date);
      assert.is(isUtcTimestamp(`${date}T${pad(h, 2)}:59:59Z`), exists && h < 24, date);
    }),
    { ...fcParams, numRuns: fcParams.numRuns * 10 },
  );
});

test("a valid string inside an array is still the wrong type, for every patterned field", () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ ...BASE, generated_at: [BASE.generated_at] }, "generated_at"],
    [{ ...BASE, source_inventory_sha: [BASE.source_inventory_sha] }, "source_inventory_sha"],
    [{ ...BASE, vaults: [{ vault_slug: ["a"], display_name: "A", status: "active" }] }, "vaults[0].vault_slug"],
    [{ ...BASE, vaults: [{ vault_slug: "a", display_name: "A", status: "active", last_synced: ["2026-01-01"] }] }, "vaults[0].last_synced"],
    [{ ...BASE, licence: { id: "x", url: ["https://example.org/"] } }, "licence.url"],
  ];
  for (const [source, path] of cases) assert.equal(problems(source).map((p) => p.split(":")[0]), [path], path);
});

test("licence: each missing member is named with its path", () => {
  assert.equal(problems({ ...BASE, licence: { url: "https://example.org/" } }), ["licence.id: required key is missing"]);
  assert.equal(problems({ ...BASE, licence: { id: "CC0" } }), ["licence.url: required key is missing"]);
});

test("labels: an empty label is refused; a raw value some vault declares is named with a bracket path, others by position", () => {
  assert.equal(problems({ ...BASE, labels: { class: { a: "" } } }), ["labels.class: key #1 (a raw value no vault declares): expected a non-empty string label, got an empty string"]);
  const vaults = ["odd key", "9a", "a_1"].map((status, i) => ({ vault_slug: `v${i}`, display_name: "V", status }));
  assert.equal(problems({ ...BASE, vaults, labels: { status: { "odd key": 1, "9a": 2, a_1: 3, unused: 4 } } }), [
    'labels.status["odd key"]: expected a non-empty string label, got 1',
    'labels.status["9a"]: expected a non-empty string label, got 2',
    "labels.status.a_1: expected a non-empty string label, got 3",
    "labels.status: key #4 (a raw value no vault declares): expected a non-empty string label, got a number",
  ]);
});

test("an edge to a malformed slug reports the slug, not a dangling edge", () => {
  const source = { ...BASE, vaults: [...BASE.vaults, { vault_slug: "Bad Slug", display_name: "B", status: "active" }], edges: [{ source: "a", target: "Bad Slug", type: "t" }] };
  assert.equal(problems(source), ['vaults[1].vault_slug: expected a slug matching ^[a-z0-9]+(-[a-z0-9]+)*$, got "Bad Slug"']);
});

test("missing pieces are reported once each, never as duplicates of one another", () => {
  const vaults = [{ display_name: "A", status: "active" }, { display_name: "B", status: "active" }];
  assert.equal(problems({ ...BASE, vaults }), ["vaults[0].vault_slug: required key is missing", "vaults[1].vault_slug: required key is missing"]);
  for (const edge of [{ target: "a", type: "t" }, { source: "a", type: "t" }, { source: "a", target: "a" }]) {
    const missing = ["source", "target", "type"].find((k) => !(k in edge));
    assert.equal(problems({ ...BASE, edges: [edge, edge] }), [`edges[0].${missing}: required key is missing`, `edges[1].${missing}: required key is missing`]);
  }
});

test("`suppressed` with control characters between its letters (DEL and C1 may stand raw in JSON text; a terminal shows nothing) is refused, never published in full", () => {
  for (const control of ["\u007f", "\u0080", "\u0085", "\u009f", "\u0000", "\u001b"]) {
    const key = [..."suppressed"].join(control);
    const vault = { vault_slug: "b", display_name: "B", status: "active", note: "SECRET-NOTE", last_synced: "2026-02-30", [key]: true };
    const edge = { source: "a", target: "b", type: "SECRET-TYPE" };
    const found = problems({ ...BASE, vaults: [...BASE.vaults, vault], edges: [edge, edge] });
    assert.ok(found.some((p) => p.startsWith("vaults[1]: key #6 of 6 (an unknown key; its name is not printed) nearly spells \"suppressed\"")), `${JSON.stringify(key)}: ${found.join("\n")}`);
    // Withheld for what messages quote: neither its detail nor its edges' types, nor the key.
    assert.not.ok(found.join("\n").includes("SECRET") || found.join("\n").includes("2026-02-30") || found.join("\n").includes(control), found.join("\n"));
  }
});

test("`suppressed` with an accent on every letter, a combining mark after each, punctuation, symbols, modifier letters, private-use or unassigned characters between them, letters split around a soft hyphen, or letters that only look like its own is refused, never published in full", () => {
  const spellings = [
    "śúṕṕŕéśśéd", "s\u0338u\u0338p\u0338p\u0338ressed", "su\u0310p\u0310p\u0310ressed", "s.u.p.p.r.e.s.s.e.d", "s/u/p/p/ressed", "«suppressed»", "Sûppréssèd!",
    "s\ue000u\ue000p\ue000pressed", "s\uffffu\u0378p\ud800pressed",
    // U+1F11F and U+1F121, parenthesized P and R, each split by a soft hyphen: "(p)" once joined and folded.
    "su\ud83c\u00ad\udd1f\ud83c\u00ad\udd1f\ud83c\u00ad\udd21essed",
    // Letters with a stroke or a hook (no decomposition), Cyrillic and Cherokee lookalikes, small capitals.
    "ꞩᵾᵽᵽressed", "ѕuррrеѕѕеd", "ꮪꮜꮲꮲꮢꭼꮪꮪꭼd", "ʂᴜᴘᴘʀᴇꜱꜱᴇᴅ",
    // A modifier apostrophe, a Latin letter drawn as a dot, a bullet operator, a Braille blank.
    "sup\u02bcpre\ua78fss\u2219e\u2800d",
  ];
  for (const key of spellings) {
    const vault = { vault_slug: "b", display_name: "B", status: "active", note: "SECRET-NOTE", [key]: true };
    const found = problems({ ...BASE, vaults: [...BASE.vaults, vault] });
    assert.ok(found.some((p) => p.startsWith("vaults[1]: key #5 of 5 (an unknown key; its name is not printed) nearly spells \"suppressed\"")), `${JSON.stringify(key)}: ${found.join("\n")}`);
    assert.not.ok(found.join("\n").includes("SECRET"), found.join("\n"));
  }
});

test("a vault key that says yes (true, 1, \"yes\", ...) whose name is not ASCII, punctuation and spaces once accents are off is refused, nothing of the vault quoted; with a readable name, only warned", () => {
  // Spellings no fold or table reads: enclosed and regional-indicator letters, a right-to-left
  // override that shows "suppressed", Runic and Gothic letters, letters another language writes.
  const unreadable = [
    "\u{1F182}\u{1F184}\u{1F17F}\u{1F17F}\u{1F181}\u{1F174}\u{1F182}\u{1F182}\u{1F174}\u{1F173}", "\u{1F1F8}\u{1F1FA}\u{1F1F5}\u{1F1F5}\u{1F1F7}\u{1F1EA}\u{1F1F8}\u{1F1F8}\u{1F1EA}\u{1F1E9}",
    "\u202Edesserppus", "\u2067desserppus\u2069", "ᛋᚢᚹᚹᚱᛖᛋᛋᛖᛞ", "\u{10343}\u{1033F}\u{10340}\u{10340}\u{10342}\u{10334}\u{10343}\u{10343}\u{10334}\u{10333}",
    "非公開", "größe", "is\u200bhidden", "s\u0660u\u0660p\u0660p\u0660ressed", "price_€_checked", "\u1de4ecret",
  ];
  for (const key of unreadable) {
    const vault = { vault_slug: "b", display_name: "B", status: "active", note: 424242, last_synced: "SECRET-SYNC", [key]: true };
    const found = problems({ ...BASE, vaults: [...BASE.vaults, vault] });
    assert.ok(found.some((p) => p.startsWith("vaults[1]: key #6 of 6 (an unknown key; its name is not printed) says yes, and its name holds characters other than ASCII")), `${JSON.stringify(key)}: ${found.join("\n")}`);
    assert.not.ok(found.join("\n").includes("424242") || found.join("\n").includes("SECRET"), found.join("\n"));
    for (const yes of [1, "yes", " TRUE ", "on", "y", "1"]) {
      const said = problems({ ...BASE, vaults: [...BASE.vaults, { ...vault, [key]: yes }] });
      assert.ok(said.some((p) => p.startsWith("vaults[1]: key #6 of 6 (an unknown key; its name is not printed) says yes")) && !said.join("\n").includes("424242"), `${JSON.stringify(key)} set to ${JSON.stringify(yes)}: ${said.join("\n")}`);
    }
    for (const no of [false, 0, "no", "internal text", null, 2, "yes please"]) {
      const unsaid = problems({ ...BASE, vaults: [...BASE.vaults, { ...vault, [key]: no, note: "n", last_synced: null }] });
      assert.equal(unsaid, [], `${JSON.stringify(key)} set to ${JSON.stringify(no)}: not refused`);
    }
  }
  // A vault key holding "suppress" is told that only "suppressed" withholds a vault (an edge's, that only a vault's own does).
  assert.ok(problems({ ...BASE, vaults: [...BASE.vaults, { vault_slug: "b", display_name: "B", status: "active", is_suppressed_flag: 0 }] }).includes(
    'vaults[1]: key #4 of 4 (an unknown key; its name is not printed) looks like a way to say "suppressed": did you mean "suppressed"? Only "suppressed": true withholds a vault; rename it, or give the internal key a name without "suppress"',
  ));
  // One warning per unknown key set to true, none for the vault's other unknown keys.
  const warned = validateSource({ ...BASE, vaults: [...BASE.vaults, { vault_slug: "b", display_name: "B", status: "active", reviewed: true, owner: "o", count: 1 }] });
  assert.equal(warned.ok ? warned.warnings.map((w) => w.line) : warned, ['vaults[1]: key #4 of 6 (an unknown key; its name is not printed) is true, but only "suppressed": true withholds a vault: this vault is published in full']);
  // Readable once accents are off, or plain ASCII: a warning that only "suppressed" withholds.
  for (const key of ["geprüft", "Révisé", "hidden", "5uppr3553d", "owner’s approval", "is\u00a0public", "reviewed – ok", "Tiếng_Việt"]) {
    const result = validateSource({ ...BASE, vaults: [...BASE.vaults, { vault_slug: "b", display_name: "B", status: "active", [key]: true }] });
    assert.ok(result.ok, key);
    if (result.ok) assert.ok(result.warnings.some((w) => w.line.includes('is true, but only "suppressed": true withholds a vault')), key);
  }
});

test("law: a vault key set to true is refused exactly when its name holds a character other than printable ASCII, punctuation or a space once accents are off", () => {
  const name = fc.oneof(fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 8 }), fc.string({ unit: "binary", minLength: 1, maxLength: 8 }), fc.string({ unit: "grapheme", minLength: 1, maxLength: 4 }));
  fc.assert(
    fc.property(name.filter((k) => !["vault_slug", "display_name", "class", "status", "persona", "note", "tagline", "last_synced", "suppressed"].includes(k)), (key) => {
      const found = problems({ ...BASE, vaults: [...BASE.vaults, { vault_slug: "b", display_name: "B", status: "active", [key]: true }] });
      const refused = found.some((p) => p.includes("says yes, and its name holds characters other than ASCII"));
      assert.is(refused, /[^ -~\p{P}\p{Zs}]/u.test(key.normalize("NFD").replace(/[\u0300-\u0362]/g, "")), JSON.stringify(key));
    }),
    fcParams,
  );
});

test("unknown key names past MAX_UNKNOWN_KEY_CHARACTERS once decomposed are not judged but refused, and their vault's detail is not quoted", () => {
  // Keys of MAX_KEY_LENGTH characters, distinct by their digits, with no letter of "suppress": cheap to judge.
  const perKey = MAX_KEY_LENGTH;
  const judged = MAX_UNKNOWN_KEY_CHARACTERS / perKey;
  const keys = Object.fromEntries(Array.from({ length: judged + 2 }, (_, i) => [String(i).padStart(perKey, "z"), 1]));
  const vault = { vault_slug: "b", display_name: "B", status: "active", note: 424242, ...keys };
  const found = problems({ ...BASE, vaults: [...BASE.vaults, vault] });
  const unjudged = (n: number) => `vaults[1]: key #${n} of ${judged + 6} (an unknown key; its name is not printed) was not judged: the source's unknown key names pass ${MAX_UNKNOWN_KEY_CHARACTERS} characters in all once decomposed (NFKD), the limit; a name not judged might say "suppressed"`;
  assert.equal(found, [unjudged(judged + 5), unjudged(judged + 6), "vaults[1].note: expected a string or null, got a number"]);
});

test("a top-level or edge key that means to withhold is refused (only a vault's own suppressed does), and nothing a withheld vault or edge holds is quoted", () => {
  const vault = { vault_slug: "b", display_name: "B", status: "active", note: 424242, last_synced: "SECRET-SYNC" };
  const top = problems({ ...BASE, suppressed_vaults: ["b"], vaults: [...BASE.vaults, vault] });
  assert.ok(top.includes('$: key #6 of 6 (an unknown key; its name is not printed) looks like a way to say "suppressed", but only a vault\'s own "suppressed": true withholds it; rename it, or give the internal key a name without "suppress"'), top.join("\n"));
  assert.not.ok(top.join("\n").includes("424242") || top.join("\n").includes("SECRET"), top.join("\n"));
  const edge = { source: "a", target: "a", type: 42, suppressed: true };
  const edges = problems({ ...BASE, edges: [edge] });
  assert.ok(edges.some((p) => p.startsWith('edges[0]: key #4 of 4 (an unknown key; its name is not printed) nearly spells "suppressed"') || p.startsWith("edges[0]: key #4 of 4 (an unknown key; its name is not printed) looks like a way to say")), edges.join("\n"));
  assert.ok(edges.includes("edges[0].type: expected a string, got a number"), `the type of an edge that means to withhold is not quoted: ${edges.join("\n")}`);
  // A key that says yes under a name that does not read plainly is refused at every level ("非公開":
  // true at the top may mean the whole registry is not public); at the top no vault is quoted, on
  // an edge not its type.
  const sayYes = (where: string, n: number) => `${where}: key #${n} of ${n} (an unknown key; its name is not printed) says yes, and its name holds characters other than ASCII`;
  const topYes = problems({ ...BASE, 非公開: "yes", vaults: [...BASE.vaults, vault] });
  assert.ok(topYes.some((p) => p.startsWith(sayYes("$", 6))), topYes.join("\n"));
  assert.not.ok(topYes.join("\n").includes("424242") || topYes.join("\n").includes("SECRET"), topYes.join("\n"));
  const edgeYes = problems({ ...BASE, edges: [{ source: "a", target: "a", type: 42, "\u{1F182}\u{1F184}\u{1F17F}": 1 }] });
  assert.ok(edgeYes.length === 2 && edgeYes[0]?.startsWith(sayYes("edges[0]", 4)) && edgeYes[1] === "edges[0].type: expected a string, got a number", edgeYes.join("\n"));
  const licenceYes = problems({ ...BASE, licence: { id: "CC0-1.0", url: "https://creativecommons.org/publicdomain/zero/1.0/", größe: true }, labels: { class: null, 非公開: " ON " } });
  assert.ok(licenceYes.some((p) => p.startsWith(sayYes("licence", 3))) && licenceYes.some((p) => p.startsWith(sayYes("labels", 2))), licenceYes.join("\n"));
  assert.ok(validateSource({ ...BASE, 非公開: "no", edges: [{ source: "a", target: "a", type: "t", größe: 2 }] }).ok, "a name that does not read plainly, not saying yes: accepted");
  // A later copy of an edge that means to withhold does not quote the type it shares with it.
  const copied = problems({ ...BASE, edges: [{ source: "a", target: "a", type: "SECRET-TYPE", 非公開: true }, { source: "a", target: "a", type: "SECRET-TYPE" }] });
  assert.ok(copied.includes("edges[1]: duplicate edge: the same (source, target, type) as edges[0]") && !copied.join("\n").includes("SECRET"), copied.join("\n"));
  // A licence or labels key set to true warns of nothing: only a vault is published in full.
  const licensed = validateSource({ ...BASE, licence: { id: "CC0-1.0", url: "https://creativecommons.org/publicdomain/zero/1.0/", reviewed: true }, labels: { class: null, status: null, reviewed: true } });
  assert.ok(licensed.ok && licensed.warnings.length === 0, JSON.stringify(licensed));
});

test("describe: values as JSON, long strings cut to an excerpt, other types by name", () => {
  assert.is(describe("abc"), '"abc"');
  assert.is(describe("x".repeat(60)), `"${"x".repeat(60)}"`);
  assert.is(describe("x".repeat(61)), `"${"x".repeat(57)}..."`);
  assert.is(describe(-0), "0");
  assert.is(describe(false), "false");
  assert.is(describe(undefined), "undefined");
  assert.equal(problems(undefined), ["$: expected an object, got undefined"]);
});


// --- each rule at its edge (what the mutation run found no test stating) ------------------------

const result = (source: unknown) => validateSource(source);
const vault = (extra: Record<string, unknown>) => ({ vault_slug: "b", display_name: "B", status: "active", ...extra });
const withVault = (extra: Record<string, unknown>, edges: unknown[] = []) => ({ ...BASE, vaults: [...BASE.vaults, vault(extra)], edges });

test("every key the format knows, at every level, refuses an unknown key that folds to it", () => {
  const at: Record<string, (key: string) => unknown> = {
    $: (key) => ({ ...BASE, [key]: 1 }),
    licence: (key) => ({ ...BASE, licence: { id: "CC-BY-4.0", url: "https://example.org/l", [key]: 1 } }),
    labels: (key) => ({ ...BASE, labels: { class: null, status: null, [key]: 1 } }),
    "vaults[1]": (key) => withVault({ [key]: 1 }),
    "edges[0]": (key) => ({ ...BASE, vaults: [...BASE.vaults, vault({})], edges: [{ source: "a", target: "b", type: "t", [key]: 1 }] }),
  };
  const known: Record<string, string[]> = {
    $: ["registry_schema_version", "generated_at", "source_inventory_sha", "licence", "labels", "vaults", "edges"],
    licence: ["id", "url"],
    labels: ["class", "status"],
    "vaults[1]": ["vault_slug", "display_name", "class", "status", "persona", "note", "tagline", "last_synced"],
    "edges[0]": ["source", "target", "type"],
  };
  for (const [place, keys] of Object.entries(known)) {
    for (const key of keys) {
      const found = problems((at[place] as (k: string) => unknown)(key.toUpperCase()));
      assert.ok(found.some((p) => p.startsWith(`${place}: key #`) && p.includes(`nearly spells "${key}"`)), `${place} ${key}: ${found.join("\n")}`);
    }
  }
  const suppressed = problems(withVault({ SUPPRESSED: true }));
  assert.ok(suppressed.some((p) => p.includes('nearly spells "suppressed"')), suppressed.join("\n"));
});

test("source_inventory_sha: exactly 40 or 64 lowercase hex characters, nothing before or after", () => {
  const hex = "9c1e4b7d2f8a6035e1d94c7b0a2f6e83d5b19c47";
  for (const ok of [hex, hex + "0123456789abcdef0123456789abcdef01234567".slice(0, 24)]) assert.equal(problems({ ...BASE, source_inventory_sha: ok }), [], ok);
  for (const bad of [`${hex}0`, `0${hex}`, `${hex}x`, `x${hex}`, `${hex} `, hex.slice(1)]) {
    assert.equal(problems({ ...BASE, source_inventory_sha: bad }), [`source_inventory_sha: expected 40 or 64 lowercase hex characters, got ${JSON.stringify(bad)}`], bad);
  }
});

test("problems are kept up to 50 and the rest counted, never dropped", () => {
  const bad = Array.from({ length: 61 }, (_, i) => ({ vault_slug: `v${i}`, display_name: "", status: "active" }));
  const checked = result({ ...BASE, vaults: bad });
  assert.ok(!checked.ok);
  if (!checked.ok) {
    assert.is(checked.problems.length, 50);
    assert.is(checked.omitted, 11);
    assert.is(checked.problems[49], 'vaults[49].display_name: expected a non-empty string, got ""');
  }
});

test("leap years: every fourth, not every hundredth, but every four-hundredth, and year 0", () => {
  for (const ok of ["2000-02-29", "0000-02-29", "2400-02-29", "2024-02-29"]) assert.ok(isCalendarDate(ok), ok);
  for (const bad of ["1900-02-29", "2100-02-29", "2023-02-29", "0100-02-29"]) assert.not.ok(isCalendarDate(bad), bad);
});

test("strings: at most 65,536 characters in every field and label, refused past it naming the length", () => {
  const at = "x".repeat(65_536);
  const over = "x".repeat(65_537);
  const tooLong = "expected at most 65536 characters (this string has 65537)";
  assert.equal(problems(withVault({ display_name: at, status: at, persona: at, note: at })), []);
  assert.equal(problems({ ...BASE, labels: { class: { [at]: at }, status: null } }), []);
  assert.equal(problems(withVault({ display_name: over })), [`vaults[1].display_name: ${tooLong}, got ${describe(over)}`]);
  assert.equal(problems(withVault({ status: over })), [`vaults[1].status: ${tooLong}, got ${describe(over)}`]);
  assert.equal(problems(withVault({ persona: over })), [`vaults[1].persona: ${tooLong}, got ${describe(over)}`]);
  assert.equal(problems({ ...BASE, labels: { class: { ok: "fine", big: over }, status: null } }), [`labels.class: key #2: ${tooLong}`]);
  assert.equal(problems({ ...BASE, labels: { class: { ok: "fine", [over]: "label" }, status: null } }), ["labels.class: key #2: a raw value of 65537 characters; at most 65536"]);
});

test("a label table that is not an object is refused naming what it is; a raw value no vault declares is named by position", () => {
  assert.equal(problems({ ...BASE, labels: { class: "abc", status: null } }), ['labels.class: expected an object of raw value to label, got "abc"']);
  assert.equal(problems({ ...BASE, labels: { class: 7, status: null } }), ["labels.class: expected an object of raw value to label, got 7"]);
  assert.equal(problems({ ...BASE, vaults: [...BASE.vaults, null], labels: { class: { secret: "" }, status: null } }), [
    "labels.class: key #1 (a raw value no vault declares): expected a non-empty string label, got an empty string",
    "vaults[1]: expected an object, got null",
  ]);
});

test("a vault whose suppressed is plainly false is published: messages quote its detail", () => {
  assert.equal(problems(withVault({ suppressed: false, last_synced: "2026-02-30" })), ['vaults[1].last_synced: expected a YYYY-MM-DD date or null, got "2026-02-30"']);
  assert.equal(problems(withVault({ suppressed: true, last_synced: "2026-02-30" })), ["vaults[1].last_synced: expected a YYYY-MM-DD date or null, got a string"]);
  // A near miss of another known key does not withhold; one too long to judge does.
  const near = problems(withVault({ NOTE: 1, last_synced: "2026-02-30" }));
  assert.ok(near.includes('vaults[1].last_synced: expected a YYYY-MM-DD date or null, got "2026-02-30"'), near.join("\n"));
  const long = problems(withVault({ ["k".repeat(1025)]: 1, last_synced: "2026-02-30" }));
  assert.equal(long, ["vaults[1]: key #4 of 5 (an unknown key; its name is not printed) has 1025 characters; the limit for a key is 1024", "vaults[1].last_synced: expected a YYYY-MM-DD date or null, got a string"]);
  assert.equal(problems({ ...BASE, ["k".repeat(1024)]: 1 }), [], "a key of 1024 characters is judged, not refused");
  assert.equal(problems(withVault({ ["k".repeat(1024)]: 1, last_synced: "2026-02-30" })), ['vaults[1].last_synced: expected a YYYY-MM-DD date or null, got "2026-02-30"'], "nor does it withhold");
  assert.equal(problems({ ...BASE, ["k".repeat(1025)]: 1 }), ["$: key #6 of 6 (an unknown key; its name is not printed) has 1025 characters; the limit for a key is 1024"]);
});

test("warnings: a status that is active or pending only up to case or spaces names the tier it gets; an unknown key set to true only on a vault published in full", () => {
  const warnings = (source: unknown): string[] => {
    const checked = result(source);
    return checked.ok ? checked.warnings.map((w) => w.line) : [`refused: ${checked.problems.join("; ")}`];
  };
  assert.equal(warnings(withVault({ status: " active" })), ['vaults[1].status: " active" is not "active": its tier is planned, not in_use (tier follows the exact value)']);
  assert.equal(warnings(withVault({ status: "Pending" })), ['vaults[1].status: "Pending" is not "pending": its tier is planned, not chartered (tier follows the exact value)']);
  assert.equal(warnings(withVault({ hidden: true })), ['vaults[1]: key #4 of 4 (an unknown key; its name is not printed) is true, but only "suppressed": true withholds a vault: this vault is published in full']);
  assert.equal(warnings(withVault({ hidden: 1 })), []);
  assert.equal(warnings(withVault({ other: 1, hidden: true })), ['vaults[1]: key #5 of 5 (an unknown key; its name is not printed) is true, but only "suppressed": true withholds a vault: this vault is published in full'], "only the key set to true");
  assert.equal(warnings(withVault({ hidden: true, suppressed: true })), []);
  assert.equal(warnings({ ...BASE, vaults: [...BASE.vaults, vault({})], edges: [{ source: "a", target: "b", type: "t", hidden: true }] }), []);
});

test("edges: an end that is not a string, and a repeated edge between withheld vaults, are named without their values", () => {
  assert.equal(problems({ ...BASE, edges: [{ source: 42, target: "a", type: "t" }] }), ["edges[0].source: expected a string, got a number"]);
  assert.equal(problems({ ...BASE, edges: [{ source: "a", target: true, type: "t" }] }), ["edges[0].target: expected a string, got a boolean"]);
  const edge = { source: "a", target: "b", type: "t" };
  assert.equal(problems(withVault({ suppressed: true }, [edge, edge])), ["edges[1]: duplicate edge: the same (source, target, type) as edges[0]"]);
  assert.equal(problems(withVault({}, [edge, edge])), ['edges[1]: duplicate edge: the same (source, target, type) = ["a","b","t"] as edges[0]']);
});

test("licence url: absolute http or https only", () => {
  for (const url of ["ftp://example.org/licence", "mailto:legal@example.org", "file:///licence"]) {
    assert.equal(problems({ ...BASE, licence: { id: "x", url } }), [`licence.url: expected an absolute http or https URL, got ${JSON.stringify(url)}`], url);
  }
  assert.equal(problems({ ...BASE, licence: { id: "x", url: "HTTPS://example.org/l" } }), []);
});

test("kindOf: what a message names of a private value", () => {
  const cases: [unknown, string][] = [[null, "null"], [[], "an array"], ["", "an empty string"], ["x", "a string"], [{}, "an object"], [undefined, "undefined"], [3, "a number"], [false, "a boolean"]];
  for (const [value, kind] of cases) assert.is(kindOf(value), kind, kind);
});

test.run();
