/**
 * Laws of the registry over generated sources (fast-check). Replay a failure with FC_SEED=<seed>;
 * run more cases with FC_RUNS=<n>.
 */
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { buildRegistry, serializeRegistry, validateSource, type Registry, type Row } from "../registry.ts";
import { contextOf } from "../http/version-policy.ts";
import { VERSIONS } from "../http/versions.ts";
import { fcParams, nearValidSource, permutationOf, SECRET, status, validSource } from "./arbitraries.ts";
import { holdsSuppress, isValidSource } from "./oracle.ts";
import { hasRowKeys } from "../contract/document.ts";
import { holdsNearly } from "../contract/key-names.ts";
import { LOOKALIKES } from "../contract/lookalikes.ts";
import { summarizeWarnings } from "../contract/messages.ts";

const OPTIONS = contextOf(VERSIONS[0]!, { baseUrl: "https://registry.example.org", builtAt: "2026-11-21T12:00:00Z" });

const FULL_KEYS = [
  "vault_slug", "display_name", "class", "class_label", "status", "status_label", "tier", "tier_label",
  "tier_meaning", "persona", "note", "url", "markdown_url", "last_synced", "tagline",
];
const MINIMAL_KEYS = [
  "vault_slug", "display_name", "class", "class_label", "status", "status_label", "persona", "listing", "listing_note",
];
const ENVELOPE_KEYS = [
  "schema_version", "about", "generated_at", "built_at", "snapshot_note", "registry_schema_version",
  "source_inventory_sha", "caveat", "vault_count", "edge_count", "field_coverage", "vaults", "edges",
];

type Json = Record<string, unknown>;

function build(source: unknown): { document: Registry; bytes: Uint8Array; text: string } {
  const result = validateSource(source);
  if (!result.ok) throw new Error(`generated source was refused:\n${result.problems.join("\n")}`);
  const document = buildRegistry(result.source, OPTIONS);
  const bytes = serializeRegistry(document);
  return { document, bytes, text: new TextDecoder().decode(bytes) };
}

const vaultsOf = (source: Json): Json[] => source["vaults"] as Json[];
const edgesOf = (source: Json): Json[] => source["edges"] as Json[];
const own = (o: Json, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);
const isFull = (row: Row): boolean => !Object.hasOwn(row, "listing");

test("tier depends on status alone: active -> in_use, pending -> chartered, anything else -> planned", () => {
  fc.assert(
    fc.property(validSource, status, (source, probe) => {
      const probed = { ...source, vaults: [...vaultsOf(source), { vault_slug: "zz-probe", display_name: "Probe", status: probe }] };
      const { document } = build(probed);
      const byStatus = new Map<string, string>();
      for (const row of document.vaults) {
        if (!isFull(row)) continue;
        const r = row as unknown as Json;
        const expected = r["status"] === "active" ? "in_use" : r["status"] === "pending" ? "chartered" : "planned";
        assert.is(r["tier"], expected);
        assert.is(r["tier_label"], { in_use: "in use", chartered: "chartered", planned: "planned" }[expected]);
        const signature = `${r["tier"]}|${r["tier_label"]}|${r["tier_meaning"]}`;
        assert.is(byStatus.get(r["status"] as string) ?? signature, signature, "same status, same tier fields");
        byStatus.set(r["status"] as string, signature);
      }
    }),
    fcParams,
  );
});

test("hasRowKeys (the row-shape check of verify and of --previous) holds for every row a build writes, and for no row with a key more, fewer or out of order", () => {
  fc.assert(
    fc.property(validSource, fc.nat(), (source, n) => {
      for (const row of build(source).document.vaults) {
        assert.ok(hasRowKeys(row));
        const entries = Object.entries(row);
        const i = n % (entries.length - 1);
        assert.not.ok(hasRowKeys({ ...row, extra: null }), "a key more");
        assert.not.ok(hasRowKeys(Object.fromEntries(entries.filter((_, j) => j !== i))), "a key fewer");
        assert.not.ok(hasRowKeys(Object.fromEntries([...entries.slice(0, i), ...entries.slice(i + 1), entries[i] as [string, unknown]])), "a key out of order");
      }
    }),
    fcParams,
  );
});

test("rows have exactly their keys in order; minimal exactly for suppressed; absent scalars are null", () => {
  fc.assert(
    fc.property(validSource, (source) => {
      const { document } = build(source);
      const declared = new Map(vaultsOf(source).map((v) => [v["vault_slug"] as string, v]));
      assert.is(document.vaults.length, declared.size);
      for (const row of document.vaults) {
        const v = declared.get(row.vault_slug) as Json;
        const r = row as unknown as Json;
        const suppressed = own(v, "suppressed") === true;
        assert.equal(Object.keys(row), suppressed ? MINIMAL_KEYS : FULL_KEYS);
        assert.is(r["display_name"], v["display_name"]);
        assert.is(r["status"], v["status"]);
        for (const key of ["class", "persona"]) assert.is(r[key], own(v, key) ?? null, key);
        if (suppressed) {
          assert.is(r["listing"], "minimal");
          continue;
        }
        for (const key of ["note", "last_synced"]) assert.is(r[key], own(v, key) ?? null, key);
        assert.is(r["tagline"], null);
        assert.is(r["url"], `${OPTIONS.baseUrl}/vaults/${row.vault_slug}/`);
        assert.is(r["markdown_url"], `${OPTIONS.baseUrl}/vaults/${row.vault_slug}.md`);
      }
    }),
    fcParams,
  );
});

test("labels: a raw value is shown with its label, or itself when the table has none; null class, null label", () => {
  fc.assert(
    fc.property(validSource, (source) => {
      const { document } = build(source);
      const labels = (own(source, "labels") ?? {}) as Json;
      const table = (name: string): Json => (own(labels, name) ?? {}) as Json;
      for (const row of document.vaults) {
        const classLabel = row.class === null ? null : (own(table("class"), row.class) ?? row.class);
        assert.is(row.class_label, classLabel);
        assert.is(row.status_label, own(table("status"), row.status) ?? row.status);
      }
    }),
    fcParams,
  );
});

test("envelope keys in order; counts equal array lengths; coverage recomputed from the rows matches", () => {
  fc.assert(
    fc.property(validSource, (source) => {
      const { document } = build(source);
      assert.equal(Object.keys(document), ENVELOPE_KEYS);
      assert.is(document.vault_count, document.vaults.length);
      assert.is(document.edge_count, document.edges.length);
      const fields = [...FULL_KEYS, "listing", "listing_note"];
      assert.equal(Object.keys(document.field_coverage), fields);
      for (const field of fields) {
        let populated = 0;
        for (const row of document.vaults) {
          const value = (row as unknown as Json)[field];
          if (field in row && value !== null && value !== "" && !(Array.isArray(value) && value.length === 0)) populated++;
        }
        assert.equal(document.field_coverage[field as keyof Registry["field_coverage"]], { populated, of: document.vaults.length }, field);
      }
      assert.is(document.field_coverage.tagline.populated, 0);
    }),
    fcParams,
  );
});

test("rows sorted by slug, edges by (source, target, type), by UTF-16 code units, no duplicates", () => {
  fc.assert(
    fc.property(validSource, (source) => {
      const { document } = build(source);
      const slugs = document.vaults.map((r) => r.vault_slug);
      slugs.slice(1).forEach((s, i) => assert.ok((slugs[i] as string) < s, `${slugs[i]} < ${s}`));
      const keys = document.edges.map((e) => [e.source, e.target, e.type]);
      keys.slice(1).forEach((k, i) => {
        const prev = keys[i] as string[];
        const order = prev[0] !== k[0] ? prev[0]! < k[0]! : prev[1] !== k[1] ? prev[1]! < k[1]! : prev[2]! < k[2]!;
        assert.ok(order, `${JSON.stringify(prev)} before ${JSON.stringify(k)}`);
      });
    }),
    fcParams,
  );
});

test("bytes: reordering the source's arrays and keys, or building twice, changes no byte", () => {
  const shuffledKeys = (o: Json, order: number[]): Json => {
    const entries = Object.entries(o);
    return Object.fromEntries(entries.map((_, i) => entries[order[i % order.length]! % entries.length]!).filter(
      (e, i, all) => all.findIndex(([k]) => k === e[0]) === i,
    ).concat(entries));
  };
  fc.assert(
    fc.property(
      validSource.chain((s) =>
        fc.tuple(fc.constant(s), permutationOf(vaultsOf(s)), permutationOf(edgesOf(s)), fc.array(fc.nat(), { minLength: 1, maxLength: 8 })),
      ),
      ([source, vaults, edges, order]) => {
        const reordered = shuffledKeys(
          { ...source, vaults: vaults.map((v) => shuffledKeys(v, order)), edges: edges.map((e) => shuffledKeys(e, order)) },
          order,
        );
        const first = build(source).bytes;
        assert.ok(Buffer.from(first).equals(Buffer.from(build(source).bytes)), "same source, same bytes");
        assert.ok(Buffer.from(first).equals(Buffer.from(build(reordered).bytes)), "reordered source, same bytes");
      },
    ),
    fcParams,
  );
});

test("bytes: UTF-8 without BOM, two-space JSON, one trailing newline, and they parse back to the document", () => {
  fc.assert(
    fc.property(validSource, (source) => {
      const { document, bytes, text } = build(source);
      assert.ok(bytes[0] === 0x7b, "starts with {, no BOM");
      assert.ok(text.endsWith("}\n") && !text.endsWith("\n\n"), "exactly one trailing newline");
      assert.ok(new TextDecoder("utf-8", { fatal: true }).decode(bytes) === text, "well-formed UTF-8");
      assert.equal(JSON.parse(text), JSON.parse(JSON.stringify(document)));
      assert.is(text, `${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    }),
    fcParams,
  );
});

test("privacy: no internal key, tagline, suppressed detail or edge touching a suppressed vault is published", () => {
  const allowed = new Set([
    ...ENVELOPE_KEYS, ...FULL_KEYS, ...MINIMAL_KEYS, "canonical_url", "versioned_url", "schema_url",
    "versioning_policy", "licence", "id", "url", "populated", "of", "source", "target", "type",
  ]);
  const keysOf = (value: unknown): string[] =>
    typeof value !== "object" || value === null
      ? []
      : Array.isArray(value)
        ? value.flatMap(keysOf)
        : Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)]);
  fc.assert(
    fc.property(validSource, (source) => {
      const { text } = build(source);
      assert.not.ok(text.includes(SECRET), "a private string leaked");
      const parsed: unknown = JSON.parse(text);
      assert.equal(keysOf(parsed).filter((k) => !allowed.has(k)), [], "only allow-listed keys");
      const suppressed = new Set(vaultsOf(source).filter((v) => own(v, "suppressed") === true).map((v) => v["vault_slug"]));
      for (const edge of (parsed as Registry).edges) {
        assert.not.ok(suppressed.has(edge.source) || suppressed.has(edge.target), "edge touching a suppressed vault");
      }
    }),
    fcParams,
  );
});

test("validation accepts exactly the valid sources (D1 oracle) and never throws", () => {
  fc.assert(
    fc.property(fc.oneof({ weight: 8, arbitrary: nearValidSource }, validSource, fc.jsonValue()), (input) => {
      const result = validateSource(input);
      assert.is(result.ok, isValidSource(input), result.ok ? "accepted" : result.problems.join("\n"));
      if (!result.ok) {
        assert.ok(result.problems.length > 0);
        for (const p of result.problems) assert.match(p, /^(\$|[a-z_]+(\[\d+\]|\.[a-z_]+|\["[^\n]*"\])*): \S/);
      }
    }),
    { ...fcParams, numRuns: fcParams.numRuns * 10 }, // validation is cheap; broken fields need many draws
  );
  fc.assert(fc.property(fc.anything(), (input) => void validateSource(input)), fcParams);
});

/** "suppressed" misspelled: one or two edits (insert, delete, replace, swap), case changes, `_` and `-`. */
const misspelledSuppressed = fc
  .array(fc.tuple(fc.constantFrom("insert", "delete", "replace", "swap", "upper", "dash"), fc.nat(), fc.constantFrom(..."abcdeprsuz_-")), { minLength: 1, maxLength: 2 })
  .map((edits) => {
    let key = "suppressed";
    for (const [edit, at, char] of edits) {
      const i = at % key.length;
      if (edit === "insert") key = key.slice(0, i) + char + key.slice(i);
      else if (edit === "delete") key = key.slice(0, i) + key.slice(i + 1);
      else if (edit === "replace") key = key.slice(0, i) + char + key.slice(i + 1);
      else if (edit === "swap" && i + 1 < key.length) key = key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2);
      else if (edit === "upper") key = key.slice(0, i) + key.charAt(i).toUpperCase() + key.slice(i + 1);
      else key = `${key.slice(0, i)}-${key.slice(i)}`;
    }
    return key;
  })
  .filter((key) => key !== "suppressed");

test("no near miss of `suppressed` on any vault ever yields a full row: the source is refused", () => {
  fc.assert(
    fc.property(validSource.filter((s) => (s["vaults"] as unknown[]).length > 0), fc.nat(), misspelledSuppressed, (source, pick, key) => {
      const vaults = source["vaults"] as Json[];
      const index = pick % vaults.length;
      const target = vaults[index] as Record<string, Json>;
      // The vault means to be suppressed but says so with a misspelled key.
      const meant = Object.fromEntries([...Object.entries(target).filter(([k]) => k !== "suppressed"), [key, true]]);
      const mutated = { ...source, vaults: vaults.map((v, i) => (i === index ? meant : v)) };
      const result = validateSource(mutated);
      assert.not.ok(result.ok, `"${key}" was accepted`);
      if (!result.ok) assert.ok(result.problems.some((p) => p.startsWith(`vaults[${index}]: key #`) && p.includes('did you mean "suppressed"?')), result.problems.join("\n"));
    }),
    fcParams,
  );
});

/** Up to two edits of "suppress" (insert, delete, replace, swap neighbours), letters a to z. */
const editedSuppress = fc
  .array(fc.tuple(fc.constantFrom("insert", "delete", "replace", "swap"), fc.nat(), fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz")), { maxLength: 2 })
  .map((edits) => {
    let key = "suppress";
    for (const [edit, at, char] of edits) {
      const i = at % key.length;
      if (edit === "insert") key = key.slice(0, i) + char + key.slice(i);
      else if (edit === "delete") key = key.slice(0, i) + key.slice(i + 1);
      else if (edit === "replace") key = key.slice(0, i) + char + key.slice(i + 1);
      else if (i + 1 < key.length) key = key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2);
    }
    return key;
  });

/** A key built from "suppress": two edits, affixes, separators and symbols, any case, Unicode compatibility forms, lookalike letters. */
const suppressSpelling = fc
  .record({
    core: editedSuppress,
    prefix: fc.constantFrom("", "is", "is_", "not-", "Do ", "x", "vault_", "__"),
    suffix: fc.constantFrom("", "ed", "_flag", "-ed", "ion", " on", "Ed", "_until", "ed2"),
    marks: fc.array(fc.tuple(fc.nat(), fc.constantFrom("_", "-", " ", "\u200b", "\u2010", "\uff3f", "$", "\u2219", "\u02bc", "\u2800", ...LOOKALIKES[""])), { maxLength: 2 }),
    cases: fc.array(fc.boolean(), { minLength: 32, maxLength: 32 }),
    fullwidth: fc.array(fc.boolean(), { minLength: 32, maxLength: 32 }),
    looks: fc.array(fc.option(fc.nat(), { freq: 2 }), { minLength: 32, maxLength: 32 }),
  })
  .map(({ core, prefix, suffix, marks, cases, fullwidth, looks }) => {
    let key = prefix + core + suffix;
    for (const [at, mark] of marks) key = key.slice(0, at % (key.length + 1)) + mark + key.slice(at % (key.length + 1));
    const lookalike = (c: string, pick: number | null): string => {
      const chars = [...(LOOKALIKES[c as keyof typeof LOOKALIKES] ?? "")];
      return pick === null || chars.length === 0 ? c : (chars[pick % chars.length] as string);
    };
    return [...key]
      .map((c, i) => lookalike(c, looks[i % 32] ?? null))
      .map((c, i) => (cases[i % 32] ? c.toUpperCase() : c))
      .map((c, i) => (fullwidth[i % 32] && c >= "!" && c <= "~" ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c))
      .join("");
  });

test("no key spelled from `suppress` set to true ever publishes its vault in full: refused, or the row is minimal", () => {
  fc.assert(
    fc.property(validSource.filter((s) => (s["vaults"] as unknown[]).length > 0), fc.nat(), suppressSpelling, (source, pick, key) => {
      const vaults = source["vaults"] as Json[];
      const index = pick % vaults.length;
      const target = vaults[index] as Record<string, Json>;
      const meant = Object.fromEntries([...Object.entries(target).filter(([k]) => k !== "suppressed"), [key, true]]);
      const result = validateSource({ ...source, vaults: vaults.map((v, i) => (i === index ? meant : v)) });
      if (!result.ok) {
        assert.ok(result.problems.some((p) => p.startsWith(`vaults[${index}]: key #`) && p.includes('"suppressed"')), result.problems.join("\n"));
        assert.not.ok(result.problems.join("\n").includes(key), "the key's name is never printed");
        return;
      }
      // Accepted only where the key is the real one: then the vault is withheld.
      assert.is(key, "suppressed", `"${key}" was accepted`);
    }),
    fcParams,
  );
});

/**
 * Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt), written out here rather than
 * asked of the engine, so that the law holds the code to the list and not to itself.
 */
const DEFAULT_IGNORABLE: readonly (readonly [number, number])[] = [
  [0x00ad, 0x00ad], [0x034f, 0x034f], [0x061c, 0x061c], [0x115f, 0x1160], [0x17b4, 0x17b5], [0x180b, 0x180f],
  [0x200b, 0x200f], [0x202a, 0x202e], [0x2060, 0x206f], [0x3164, 0x3164], [0xfe00, 0xfe0f], [0xfeff, 0xfeff],
  [0xffa0, 0xffa0], [0xfff0, 0xfff8], [0x1bca0, 0x1bca3], [0x1d173, 0x1d17a], [0xe0000, 0xe0fff],
];
const defaultIgnorable = fc.constantFrom(...DEFAULT_IGNORABLE).chain(([from, to]) => fc.integer({ min: from, max: to })).map((c) => String.fromCodePoint(c));

/** "suppressed" with invisible characters inserted anywhere, as many as between every letter. */
const invisiblySuppressed = fc
  .array(fc.tuple(fc.nat(), defaultIgnorable), { minLength: 1, maxLength: 12 })
  .map((inserts) => inserts.reduce((key, [at, c]) => key.slice(0, at % (key.length + 1)) + c + key.slice(at % (key.length + 1)), "suppressed"));

test("inserting default-ignorable code points anywhere in `suppressed` never publishes the vault in full: refused", () => {
  fc.assert(
    fc.property(validSource.filter((s) => (s["vaults"] as unknown[]).length > 0), fc.nat(), invisiblySuppressed, (source, pick, key) => {
      const vaults = source["vaults"] as Json[];
      const index = pick % vaults.length;
      const meant = Object.fromEntries([...Object.entries(vaults[index] as Json).filter(([k]) => k !== "suppressed"), [key, true]]);
      const result = validateSource({ ...source, vaults: vaults.map((v, i) => (i === index ? meant : v)) });
      assert.not.ok(result.ok, `${JSON.stringify(key)} was accepted`);
      if (!result.ok) assert.ok(result.problems.some((p) => p.startsWith(`vaults[${index}]: key #`) && p.includes('"suppressed"')), result.problems.join("\n"));
    }),
    fcParams,
  );
});

test("a vault any key of which means to withhold, however spelled and whatever its value, has nothing of its detail quoted", () => {
  const spelling = fc.oneof(misspelledSuppressed, suppressSpelling, invisiblySuppressed, fc.constant("suppressed"));
  fc.assert(
    fc.property(validSource.filter((s) => (s["vaults"] as unknown[]).length > 0), fc.nat(), spelling, fc.constantFrom<unknown>(true, false, "yes", 1, null), (source, pick, key, value) => {
      const vaults = source["vaults"] as Json[];
      const index = pick % vaults.length;
      const target = vaults[index] as Json;
      const slug = target["vault_slug"] as string;
      // Detail that messages would quote of a vault published in full: a bad date, a repeated edge's type.
      const meant = Object.fromEntries([...Object.entries(target).filter(([k]) => k !== "suppressed"), [key, value], ["last_synced", `${SECRET}-date`]]);
      const edge = { source: slug, target: slug, type: `${SECRET}-type` };
      // `suppressed` itself stands for a key repeated in the text, which the text scan reports.
      const options = key === "suppressed" ? { withheldVaults: new Set([index]) } : {};
      const result = validateSource({ ...source, vaults: vaults.map((v, i) => (i === index ? meant : v)), edges: [...edgesOf(source), edge, edge] }, options);
      assert.not.ok(result.ok);
      if (!result.ok) assert.not.ok(result.problems.join("\n").includes(SECRET), result.problems.join("\n"));
    }),
    fcParams,
  );
});

test("an unknown vault or edge key one edit from `note` or `type` warns, naming the place and the key it resembles, never the key", () => {
  const oneEditOf = (word: string) =>
    fc.tuple(fc.constantFrom("insert", "delete", "replace", "swap"), fc.nat(), fc.constantFrom(..."abcdenostyz")).map(([edit, at, c]) => {
      const i = at % word.length;
      if (edit === "insert") return word.slice(0, i) + c + word.slice(i);
      if (edit === "delete") return word.slice(0, i) + word.slice(i + 1);
      if (edit === "replace") return word.slice(0, i) + c + word.slice(i + 1);
      return i + 1 < word.length ? word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2) : `${word}s`;
    });
  const base = { registry_schema_version: "1", generated_at: "2026-11-14T08:30:00Z", source_inventory_sha: "a".repeat(40) };
  fc.assert(
    fc.property(oneEditOf("note"), oneEditOf("type"), fc.boolean(), (vaultKey, edgeKey, suppressed) => {
      fc.pre(vaultKey !== "note" && edgeKey !== "type" && !["status", "class", "persona"].includes(vaultKey));
      const vault = Object.fromEntries([["vault_slug", "a"], ["display_name", "A"], ["status", "active"], ["suppressed", suppressed], [vaultKey, `${SECRET}-note`]]);
      const edge = Object.fromEntries([["source", "a"], ["target", "a"], ["type", "t"], [edgeKey, `${SECRET}-type`]]);
      const result = validateSource({ ...base, vaults: [vault], edges: [edge] });
      assert.ok(result.ok, result.ok ? "" : result.problems.join("\n"));
      if (!result.ok) return;
      const lines = result.warnings.filter((w) => w.kind === "short-near-miss").map((w) => w.line);
      assert.equal(lines.map((l) => l.replace(/ key #\d+ of \d+ .*"(note|type)".*/, " $1")), ["vaults[0]: note", "edges[0]: type"]);
      const text = lines.join("\n");
      assert.not.ok(text.includes(SECRET) || text.includes(JSON.stringify(vaultKey)) || text.includes(JSON.stringify(edgeKey)), text);
    }),
    fcParams,
  );
  const many = Array.from({ length: 12 }, (_, i) => ({ vault_slug: `v${i}`, display_name: "V", status: "active", notes: "n" }));
  const summarized = validateSource({ ...base, vaults: many, edges: [] });
  assert.ok(summarized.ok);
  if (summarized.ok) {
    const lines = summarizeWarnings(summarized.warnings);
    assert.is(lines.length, 11);
    assert.is(lines[10], "and 2 more places with an unknown key one edit from a short key the format knows (it is internal and not published) (the first 10 are shown)");
  }
});

test("the near-miss scan of a long key agrees with the oracle's two edits of `suppress`, run by run", () => {
  const text = fc.string({ unit: fc.constantFrom(..."suprexd"), maxLength: 40 });
  fc.assert(fc.property(text, (t) => assert.is(holdsNearly(t, "suppress"), holdsSuppress(t), t)), { ...fcParams, numRuns: fcParams.numRuns * 10 });
});

test("an unknown vault key set to true warns that only `suppressed` withholds a vault; warnings of a kind are summarized", () => {
  const base = { registry_schema_version: "1", generated_at: "2026-11-14T08:30:00Z", source_inventory_sha: "a".repeat(40), edges: [] };
  const vaults = Array.from({ length: 25 }, (_, i) => ({ vault_slug: `v${i}`, display_name: "V", status: "Active", hidden: true }));
  const result = validateSource({ ...base, vaults });
  assert.ok(result.ok);
  if (!result.ok) return;
  const lines = summarizeWarnings(result.warnings);
  assert.is(lines.length, 22, lines.join("\n"));
  assert.is(lines.filter((l) => l.includes('only "suppressed": true withholds a vault')).length, 10);
  assert.ok(lines.includes('and 15 more places with a status that is "active" or "pending" only up to case or spaces (the first 10 are shown)'));
  assert.ok(lines.includes('and 15 more places with an unknown key set to true on a vault published in full (only "suppressed" withholds a vault) (the first 10 are shown)'));
  assert.not.ok(lines.join("\n").includes("hidden"), "the internal key's name is never printed");
  // A vault that is suppressed anyway gets no such warning.
  const quiet = validateSource({ ...base, vaults: [{ vault_slug: "a", display_name: "A", status: "active", hidden: true, suppressed: true }] });
  assert.equal(quiet.ok ? quiet.warnings : null, []);
});

test("hostile keys stay data: validating and building never touches Object.prototype", () => {
  fc.assert(
    fc.property(validSource, (source) => {
      const before = Object.getOwnPropertyNames(Object.prototype).join();
      build(JSON.parse(JSON.stringify(source)));
      assert.is(Object.getOwnPropertyNames(Object.prototype).join(), before);
      assert.is(({} as Json)["polluted"], undefined);
    }),
    fcParams,
  );
});

test.run();
