/**
 * Laws of the registry over generated sources (fast-check). Replay a failure with FC_SEED=<seed>;
 * run more cases with FC_RUNS=<n>.
 */
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { buildRegistry, type Registry, type Row, serializeRegistry, validateSource } from "../registry.ts";
import { contextOf } from "../contract/version-policy.ts";
import { VERSIONS } from "../assembly/versions.ts";
import {
  fcParams,
  internalName,
  nearValidSource,
  permutationOf,
  publicText,
  SECRET,
  status,
  validSource,
} from "./arbitraries.ts";
import { isValidSource, misspellsSuppressed } from "./oracle.ts";
import { hasRowKeys } from "../contract/document.ts";
import { KNOWN_KEYS } from "../contract/source.ts";

const OPTIONS = contextOf(VERSIONS[0]!, { baseUrl: "https://registry.example.org", builtAt: "2026-11-21T12:00:00Z" });

const FULL_KEYS = [
  "vault_slug",
  "display_name",
  "class",
  "class_label",
  "status",
  "status_label",
  "tier",
  "tier_label",
  "tier_meaning",
  "persona",
  "note",
  "url",
  "markdown_url",
  "last_synced",
  "tagline",
];
const MINIMAL_KEYS = [
  "vault_slug",
  "display_name",
  "class",
  "class_label",
  "status",
  "status_label",
  "persona",
  "listing",
  "listing_note",
];
const ENVELOPE_KEYS = [
  "schema_version",
  "about",
  "generated_at",
  "built_at",
  "snapshot_note",
  "registry_schema_version",
  "source_inventory_sha",
  "caveat",
  "vault_count",
  "edge_count",
  "field_coverage",
  "vaults",
  "edges",
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
      const probed = {
        ...source,
        vaults: [...vaultsOf(source), { vault_slug: "zz-probe", display_name: "Probe", status: probe }],
      };
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
        assert.not.ok(
          hasRowKeys(
            Object.fromEntries([...entries.slice(0, i), ...entries.slice(i + 1), entries[i] as [string, unknown]]),
          ),
          "a key out of order",
        );
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
          if (field in row && value !== null && value !== "" && !(Array.isArray(value) && value.length === 0)) {
            populated++;
          }
        }
        assert.equal(document.field_coverage[field as keyof Registry["field_coverage"]], {
          populated,
          of: document.vaults.length,
        }, field);
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
    return Object.fromEntries(
      entries.map((_, i) => entries[order[i % order.length]! % entries.length]!).filter(
        (e, i, all) => all.findIndex(([k]) => k === e[0]) === i,
      ).concat(entries),
    );
  };
  fc.assert(
    fc.property(
      validSource.chain((s) =>
        fc.tuple(
          fc.constant(s),
          permutationOf(vaultsOf(s)),
          permutationOf(edgesOf(s)),
          fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
        )
      ),
      ([source, vaults, edges, order]) => {
        const reordered = shuffledKeys(
          {
            ...source,
            vaults: vaults.map((v) => shuffledKeys(v, order)),
            edges: edges.map((e) => shuffledKeys(e, order)),
          },
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
    ...ENVELOPE_KEYS,
    ...FULL_KEYS,
    ...MINIMAL_KEYS,
    "canonical_url",
    "versioned_url",
    "schema_url",
    "versioning_policy",
    "licence",
    "id",
    "url",
    "populated",
    "of",
    "source",
    "target",
    "type",
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
      const suppressed = new Set(
        vaultsOf(source).filter((v) => own(v, "suppressed") === true).map((v) => v["vault_slug"]),
      );
      for (const edge of (parsed as Registry).edges) {
        assert.not.ok(suppressed.has(edge.source) || suppressed.has(edge.target), "edge touching a suppressed vault");
      }
    }),
    fcParams,
  );
});

test("validation accepts exactly the valid sources (the oracle's restatement) and never throws", () => {
  fc.assert(
    fc.property(fc.oneof({ weight: 8, arbitrary: nearValidSource }, validSource, fc.jsonValue()), (input) => {
      const result = validateSource(input);
      assert.is(result.ok, isValidSource(input), result.ok ? "accepted" : result.problems.join("\n"));
      if (!result.ok) {
        assert.ok(result.problems.length > 0);
        for (const p of result.problems) {
          assert.match(p, /^(\$|\$schema|(\$|[A-Za-z_]\w*)(\[(\d+|\*)\]|\.[A-Za-z_]\w*|\["[^\n]*"…?\])*): \S/);
        }
      }
    }),
    { ...fcParams, numRuns: fcParams.numRuns * 10 }, // validation is cheap; broken fields need many draws
  );
  fc.assert(fc.property(fc.anything(), (input) => void validateSource(input)), fcParams);
});

/** "suppressed" misspelled: one edit (insert, delete, replace, swap), case changes, `_`, `-` and spaces. */
const misspelledSuppressed = fc
  .array(
    fc.tuple(
      fc.constantFrom("insert", "delete", "replace", "swap", "upper", "dash"),
      fc.nat(),
      fc.constantFrom(..."abcdeprsuz_- "),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((edits) => {
    let key = "suppressed";
    let letters = 0;
    for (const [edit, at, char] of edits) {
      const i = at % key.length;
      if (letters === 0 && edit === "insert") key = key.slice(0, i) + char + key.slice(i);
      else if (letters === 0 && edit === "delete") key = key.slice(0, i) + key.slice(i + 1);
      else if (letters === 0 && edit === "replace") key = key.slice(0, i) + char + key.slice(i + 1);
      else if (letters === 0 && edit === "swap" && i + 1 < key.length) {
        key = key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2);
      } else if (edit === "upper") key = key.slice(0, i) + key.charAt(i).toUpperCase() + key.slice(i + 1);
      else key = `${key.slice(0, i)}_${key.slice(i)}`;
      if (["insert", "delete", "replace", "swap"].includes(edit)) letters++;
    }
    return key;
  });

/** The levels where a source's keys are checked, each with a way to reach an object of that level. */
const LEVELS = ["top", "licence", "labels", "vault", "edge"] as const;
type LevelName = (typeof LEVELS)[number];

/** The objects of `source` at `level` (created empty for licence and labels when absent). */
function objectsAt(source: Json, level: LevelName): Json[] {
  if (level === "top") return [source];
  if (level === "vault") return vaultsOf(source);
  if (level === "edge") return edgesOf(source);
  if (level === "licence" && !(own(source, "licence") instanceof Object)) {
    source["licence"] = { id: "CC0-1.0", url: "https://example.org/licence" };
  }
  if (level === "labels" && !(own(source, "labels") instanceof Object)) source["labels"] = {};
  return [source[level] as Json];
}

/** An extra key: a name no level of the format knows, nor the declaration refuses, with a private value. */
const extraName = fc
  .oneof(
    publicText,
    internalName,
    fc.constantFrom(
      "state",
      "flags",
      "person",
      "hidden",
      "private",
      "meta",
      "is_suppressed",
      "__proto__",
      "Suppressed_by",
      "5uppre55ed",
    ),
  )
  .filter((name) =>
    name.length >= 1 && name.length <= 128 && !misspellsSuppressed(name) &&
    !Object.values(KNOWN_KEYS).some((keys) => keys.includes(name))
  );

test("a source with extra keys builds exactly when each is declared (in internal_keys or beside it), and no extra value, nor a declared name, reaches the bytes or a message", () => {
  const extras = fc.array(
    fc.record({
      name: extraName,
      level: fc.constantFrom(...LEVELS),
      at: fc.nat(),
      declare: fc.constantFrom("source", "outside", "no"),
    }),
    { minLength: 1, maxLength: 4 },
  );
  fc.assert(
    fc.property(validSource, extras, fc.nat(), (generated, keys, pick) => {
      const source = JSON.parse(JSON.stringify(generated)) as Json;
      const inSource = new Set((own(source, "internal_keys") ?? []) as string[]);
      const outside = new Set<string>();
      const undeclared = new Set<string>();
      for (const { name, level, at, declare } of keys) {
        const objects = objectsAt(source, level);
        if (objects.length === 0) continue;
        const target = objects[at % objects.length] as Json;
        if (Object.hasOwn(target, name)) continue;
        Object.defineProperty(target, name, {
          value: `${SECRET}-extra-${pick}`,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        if (inSource.has(name) || outside.has(name)) continue;
        // An undeclared name is printed, by design: a private one is declared.
        if (declare === "source" || (declare === "no" && name.includes(SECRET))) inSource.add(name);
        else if (declare === "outside") outside.add(name);
        else undeclared.add(name);
      }
      // A name left undeclared here but declared for another key is declared all the same.
      for (const name of [...inSource, ...outside]) undeclared.delete(name);
      if (inSource.size > 0) source["internal_keys"] = [...inSource];
      const result = validateSource(source, { internalKeys: [...outside] });
      assert.is(result.ok, undeclared.size === 0, result.ok ? "accepted" : result.problems.join("\n"));
      assert.is(result.ok, isValidSource(source, [...outside]), "the oracle agrees");
      if (!result.ok) {
        const text = result.problems.join("\n");
        assert.not.ok(text.includes(SECRET), `a private value or declared name in a message:\n${text}`);
        for (const name of undeclared) {
          if (name.length <= 40 && /^[\x21-\x7e]+$/.test(name)) {
            const segment = /^[A-Za-z_]\w*$/.test(name) ? name : `[${JSON.stringify(name)}]`;
            assert.ok(text.includes(`${segment}: undeclared key`), `${name} is named:\n${text}`);
          }
        }
        return;
      }
      const bytes = new TextDecoder().decode(serializeRegistry(buildRegistry(result.source, OPTIONS)));
      assert.not.ok(bytes.includes(SECRET), "a private value or internal name was published");
    }),
    fcParams,
  );
});

test("a name within one edit of `suppressed` cannot be declared, and undeclared on a vault it is refused with a hint", () => {
  fc.assert(
    fc.property(
      validSource.filter((s) => vaultsOf(s).length > 0),
      fc.nat(),
      misspelledSuppressed,
      fc.boolean(),
      (source, pick, key, outside) => {
        fc.pre(key !== "suppressed");
        const vaults = vaultsOf(source);
        const index = pick % vaults.length;
        const meant = Object.fromEntries([
          ...Object.entries(vaults[index] as Json).filter(([k]) => k !== "suppressed"),
          [key, true],
        ]);
        const mutated = { ...source, vaults: vaults.map((v, i) => (i === index ? meant : v)) };
        const declared = outside
          ? validateSource(mutated, { internalKeys: [key] })
          : validateSource({ ...mutated, internal_keys: [...((own(source, "internal_keys") ?? []) as string[]), key] });
        assert.not.ok(declared.ok, `declaring ${JSON.stringify(key)} was accepted`);
        const plain = validateSource(mutated);
        assert.not.ok(plain.ok);
        if (!plain.ok) {
          assert.ok(
            plain.problems.some((p) =>
              p.startsWith(`vaults[${index}]`) && p.includes(": undeclared key: ") &&
              p.includes('did you mean "suppressed"?') && !p.includes("internal_keys")
            ),
            plain.problems.join("\n"),
          );
        }
      },
    ),
    fcParams,
  );
});

/** Look-alikes of each letter of "suppressed" (fullwidth, Cyrillic, Greek, mathematical), from confusables.txt. */
const LOOK_ALIKES: Readonly<Record<string, readonly string[]>> = {
  s: ["\uff53", "\u0455", "\u{1d42c}", "\u0405", "\ua731"],
  u: ["\uff55", "\u057d", "\u03c5", "\u{1d42e}"],
  p: ["\uff50", "\u0440", "\u03c1", "\u0420", "\u03a1"],
  r: ["\uff52", "\u0433", "\u{1d42b}"],
  e: ["\uff45", "\u0435", "\u0415", "\u0395", "\u{1d41e}"],
  d: ["\uff44", "\u0501", "\u{1d41d}"],
};
/** Default-ignorable code points: zero-width space, joiners, soft hyphen, word joiner, a variation selector, a tag. */
const IGNORABLES = ["\u200b", "\u200c", "\u200d", "\u00ad", "\u2060", "\ufe0f", "\u{e0041}"];

/** "suppressed" with letters swapped for their look-alikes, case changed, default-ignorables inserted. */
const lookAlikeSuppressed = fc
  .tuple(
    fc.array(fc.tuple(fc.nat(), fc.nat(), fc.constantFrom("look-alike", "upper", "ignorable")), {
      minLength: 1,
      maxLength: 12,
    }),
  )
  .map(([edits]) => {
    const chars: string[] = Array.from("suppressed");
    for (const [at, pick, edit] of edits) {
      const i = at % chars.length;
      const c = chars[i] as string;
      const ascii = c.toLowerCase();
      if (edit === "look-alike" && LOOK_ALIKES[ascii] !== undefined) {
        const options = LOOK_ALIKES[ascii] as readonly string[];
        chars[i] = options[pick % options.length] as string;
      } else if (edit === "upper") chars[i] = c.toUpperCase();
      else chars.splice(i, 0, IGNORABLES[pick % IGNORABLES.length] as string);
    }
    return chars.join("");
  })
  .filter((key) => key !== "suppressed" && key.length <= 128);

test("law: every look-alike of `suppressed` is refused, declared or not, at any level, and never yields a full row", () => {
  fc.assert(
    fc.property(
      validSource.filter((s) => vaultsOf(s).length > 0),
      fc.nat(),
      lookAlikeSuppressed,
      fc.constantFrom("source", "outside", "no"),
      (source, pick, key, declare) => {
        const vaults = vaultsOf(source);
        const index = pick % vaults.length;
        const meant = Object.fromEntries([
          ...Object.entries(vaults[index] as Json).filter(([k]) => k !== "suppressed"),
          ["note", `${SECRET}-note`],
          [key, true],
        ]);
        const mutated = { ...source, vaults: vaults.map((v, i) => (i === index ? meant : v)) };
        const internal = (own(source, "internal_keys") ?? []) as string[];
        const result = declare === "outside"
          ? validateSource(mutated, { internalKeys: [key] })
          : validateSource(declare === "source" ? { ...mutated, internal_keys: [...internal, key] } : mutated);
        assert.not.ok(result.ok, `${JSON.stringify(key)} (${declare}) was accepted: a full row`);
        assert.not.ok(
          isValidSource(
            declare === "source" ? { ...mutated, internal_keys: [...internal, key] } : mutated,
            declare === "outside" ? [key] : [],
          ),
          "the oracle agrees",
        );
        if (!result.ok) {
          const text = result.problems.join("\n");
          // Declared, the name is never printed; undeclared, a look-alike is printed escaped, never as it looks.
          assert.not.ok(text.includes(SECRET) || (/[^\x20-\x7e]/.test(key) && text.includes(key)), text);
          if (declare === "no") {
            assert.ok(
              result.problems.some((p) =>
                p.startsWith(`vaults[${index}]`) && p.includes("this name cannot be declared")
              ),
              text,
            );
          }
        }
      },
    ),
    fcParams,
  );
});

test("a vault with an undeclared key, whatever its name and value, has nothing of its detail quoted", () => {
  fc.assert(
    fc.property(
      validSource.filter((s) => vaultsOf(s).length > 0),
      fc.nat(),
      extraName,
      fc.constantFrom<unknown>(true, false, "yes", 1, null, { suppressed: true }),
      (source, pick, key, value) => {
        const vaults = vaultsOf(source);
        const index = pick % vaults.length;
        const target = vaults[index] as Json;
        fc.pre(!((own(source, "internal_keys") ?? []) as string[]).includes(key) && !key.includes(SECRET));
        const slug = target["vault_slug"] as string;
        // Detail that messages would quote of a vault published in full: a bad date, a repeated edge's type.
        const meant = Object.fromEntries([...Object.entries(target).filter(([k]) => k !== "suppressed"), [key, value], [
          "last_synced",
          `${SECRET}-date`,
        ]]);
        const edge = { source: slug, target: slug, type: `${SECRET}-type` };
        const result = validateSource({
          ...source,
          vaults: vaults.map((v, i) => (i === index ? meant : v)),
          edges: [...edgesOf(source), edge, edge],
        });
        assert.not.ok(result.ok);
        if (!result.ok) assert.not.ok(result.problems.join("\n").includes(SECRET), result.problems.join("\n"));
      },
    ),
    fcParams,
  );
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
