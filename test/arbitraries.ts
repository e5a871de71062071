/**
 * fast-check generators of sources: valid ones that carry hostile declared internal keys and
 * strings, and near-valid ones (a valid source with a few fields broken) for the validation law.
 *
 * Every string that only private detail may hold (internal keys' names and values, taglines, a
 * suppressed vault's note, the type of an edge touching a suppressed vault) contains SECRET; public
 * strings never do, so "SECRET" appearing anywhere in the output bytes is a leak.
 */
import fc from "fast-check";
import { MAX_INTERNAL_KEY_LENGTH } from "../contract/limits.ts";
import { misspellsSuppressed } from "./oracle.ts";

export const SECRET = "SECRET";

/** fast-check settings shared by every property: replayable with FC_SEED, sized by FC_RUNS. */
export const fcParams = {
  numRuns: Number(process.env["FC_RUNS"] ?? 150),
  includeErrorInReport: true,
  ...(process.env["FC_SEED"] === undefined ? {} : { seed: Number(process.env["FC_SEED"]) }),
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Keys that are ordinary data in a source but dangerous as plain property writes. */
const HOSTILE_KEYS = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "prototype"];

/** UTF-16 units that include lone surrogates, so strings may be ill-formed. */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n));

/** Hostile public text: any code points, lone surrogates, escapes, prototype names, long runs. */
export const publicText: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 8 }) },
    { weight: 2, arbitrary: fc.string({ unit: anyCodeUnit, maxLength: 8 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...HOSTILE_KEYS, "", " ", "null", '"\\\n\t', "\u2028\u2029", "é", "e\u0301"),
    },
    { weight: 1, arbitrary: fc.string({ minLength: 2000, maxLength: 4000, unit: "grapheme-ascii" }) },
  )
  .filter((s) => !s.includes(SECRET));

const nonEmptyPublicText = publicText.filter((s) => s.length > 0);

/** Text that only private detail may hold. */
export const privateText: fc.Arbitrary<string> = fc
  .tuple(fc.nat(), publicText)
  .map(([n, s]) => `${SECRET}-${n}-${s}`);

/** Any JSON value whose every string, key or value, is private. */
const privateValue: fc.Arbitrary<Json> = fc.oneof(
  privateText,
  fc.array(privateText, { maxLength: 3 }),
  privateText.map((s): Json => Object.fromEntries([[`${SECRET}_key`, s]])),
  fc.constantFrom(null, 0, -0, true, 1e308),
);

/**
 * Internal key names: hostile names and private names, up to the limit of a declared name, never
 * one the declaration refuses (within one edit of "suppressed").
 */
export const internalName: fc.Arbitrary<string> = fc
  .oneof(fc.constantFrom(...HOSTILE_KEYS), privateText.map((s) => `${s.slice(0, MAX_INTERNAL_KEY_LENGTH - 4)}_key`))
  .filter((name) => !misspellsSuppressed(name));

/** Some of the declared names `pool`, each with a private value. */
const internalKeys = (pool: readonly string[]): fc.Arbitrary<[string, Json][]> =>
  pool.length === 0
    ? fc.constant([])
    : fc.subarray([...pool], { maxLength: Math.min(3, pool.length) }).chain((names) =>
      fc.tuple(...names.map((n) => privateValue.map((v): [string, Json] => [n, v])))
    );

/** Builds an object from entries, extra keys first, without ever assigning to a key from input. */
function objectOf(known: Record<string, Json | undefined>, extras: [string, Json][]): JsonObject {
  const knownEntries = Object.entries(known).filter((e): e is [string, Json] => e[1] !== undefined);
  const names = new Set(knownEntries.map(([k]) => k));
  return Object.fromEntries([...extras.filter(([k]) => !names.has(k)), ...knownEntries]);
}

/** Statuses that probe the tier mapping, near-misses included. */
export const status = fc.oneof(
  fc.constantFrom(
    "active",
    "pending",
    "Active",
    "active ",
    " pending",
    "ACTIVE",
    "pending\n",
    "retired",
    "dormant",
    "proposed",
  ),
  publicText,
);

const rawClass = fc.oneof(fc.constant(null), fc.constantFrom("archive", "journal", ...HOSTILE_KEYS), publicText);
const slug = fc.stringMatching(/^[a-z0-9]{1,6}(-[a-z0-9]{1,4}){0,2}$/);
const calendarDate = fc
  .date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const timestamp = fc
  .date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true })
  .map((d) => `${d.toISOString().slice(0, 19)}Z`);
const sha = fc.oneof(fc.stringMatching(/^[0-9a-f]{40}$/), fc.stringMatching(/^[0-9a-f]{64}$/));

/** `value` or absent (undefined drops the key), `null` too when `nullable`. */
const maybe = <T extends Json>(value: fc.Arbitrary<T>): fc.Arbitrary<T | null | undefined> =>
  fc.oneof(fc.constant(undefined), fc.constant(null), value);

function vault(vaultSlug: string, suppressed: boolean, pool: readonly string[]): fc.Arbitrary<JsonObject> {
  return fc
    .record({
      display_name: nonEmptyPublicText,
      class: fc.option(rawClass, { nil: undefined }),
      status,
      persona: maybe(publicText),
      // A suppressed vault's note is private detail; a published one's is public.
      note: maybe(suppressed ? privateText : publicText),
      tagline: fc.option(privateValue, { nil: undefined }),
      last_synced: maybe(calendarDate),
      suppressedKey: suppressed ? fc.constant(true) : fc.constantFrom(false, undefined),
      extras: internalKeys(pool),
    })
    .map(({ suppressedKey, extras, ...fields }) =>
      objectOf({ vault_slug: vaultSlug, ...fields, suppressed: suppressedKey }, extras)
    );
}

const labelTable = fc
  .array(fc.tuple(fc.oneof(rawClass.filter((c): c is string => c !== null), status), nonEmptyPublicText), {
    maxLength: 6,
  })
  .map((entries) => Object.fromEntries(entries));

/**
 * A valid source with hostile strings everywhere the format allows them, and hostile internal keys
 * at every level, each declared in its `internal_keys` (absent when it declares none).
 */
export const validSource: fc.Arbitrary<JsonObject> = fc
  .tuple(
    fc.uniqueArray(fc.tuple(slug, fc.boolean()), { selector: ([s]) => s, maxLength: 12 }),
    fc.uniqueArray(internalName, { maxLength: 4 }),
  )
  .chain(([declared, pool]) => {
    const suppressed = new Set(declared.filter(([, s]) => s).map(([s]) => s));
    const slugs = declared.map(([s]) => s);
    const edge = slugs.length === 0 ? fc.constant(null) : fc
      .record({ source: fc.constantFrom(...slugs), target: fc.constantFrom(...slugs), extras: internalKeys(pool) })
      .chain(({ source, target, extras }) =>
        // An edge touching a suppressed vault is private: its type must never be published.
        (suppressed.has(source) || suppressed.has(target) ? privateText : nonEmptyPublicText).map((type) =>
          objectOf({ source, target, type }, extras)
        )
      );
    return fc.record({
      registry_schema_version: nonEmptyPublicText,
      generated_at: timestamp,
      source_inventory_sha: sha,
      licence: maybe(
        fc.record({ id: nonEmptyPublicText, url: fc.webUrl(), extras: internalKeys(pool) }).map(({ extras, ...l }) =>
          objectOf(l, extras)
        ),
      ),
      labels: maybe(
        fc.record({ class: maybe(labelTable), status: maybe(labelTable), extras: internalKeys(pool) }).map((
          { extras, ...l },
        ) => objectOf(l, extras)),
      ),
      internal_keys: pool.length === 0 ? fc.constant(undefined) : fc.shuffledSubarray(pool, { minLength: pool.length }),
      vaults: fc.tuple(...declared.map(([s, isSuppressed]) => vault(s, isSuppressed, pool))),
      edges: fc
        .array(edge, { maxLength: 16 })
        .map((edges) =>
          edges.filter((e): e is JsonObject => e !== null).filter(
            (e, i, all) =>
              all.findIndex((f) =>
                f["source"] === e["source"] && f["target"] === e["target"] && f["type"] === e["type"]
              ) === i,
          )
        ),
      extras: internalKeys(pool),
    });
  })
  .map(({ extras, ...top }) => objectOf(top, extras));

/** Values that break (or by a hair do not break) each field the format checks. */
const NEAR_MISSES: Record<string, (Json | undefined)[]> = {
  registry_schema_version: ["", 1, "1.0"],
  generated_at: [
    "2026-02-30T08:30:00Z",
    "2026-11-14T24:00:00Z",
    "2026-11-14T08:30:00+00:00",
    "2026-11-14T08:30:00.000Z",
    "2026-11-14t08:30:00z",
    "2024-02-29T23:59:59Z",
  ],
  source_inventory_sha: [
    "ABCDEF0123456789ABCDEF0123456789ABCDEF01",
    "0123456789abcdef0123456789abcdef0123456",
    "0123456789abcdef0123456789abcdef012345678",
    "0123456789abcdef0123456789abcdef01234567",
  ],
  licence: [null, "CC-BY-4.0", {}, { id: "x", url: "https://example.org/" }],
  labels: [null, [], {}, { class: [] }],
  vaults: [null, {}, []],
  edges: [null, {}, []],
  internal_keys: [null, "x", [], [""], ["suppresed"], [1], ["a", "a"]],
  id: ["", null, "CC0"],
  url: ["ftp://example.org/", "example.org", "https://example.org/", "http://localhost"],
  class: [null, 0, [], "", { "": "x" }, { a: "" }, { a: null }],
  status: [null, 3, "", "active", { a: "label" }, { a: 1 }],
  vault_slug: ["Alpha", "a--b", "-a", "a-", "a_b", "", "ab-12"],
  display_name: ["", null, " ", "Name"],
  persona: [0, [], "", null],
  note: [false, {}, "", null],
  last_synced: ["2026-02-29", "2024-02-29", "2026-1-01", "2026-10-02T00:00:00Z", null],
  suppressed: ["true", null, 0, true, false],
  source: ["nope", "", null],
  target: ["nope", 7],
  type: ["", null, "cites"],
};
const TOP_LEVEL = [
  "registry_schema_version",
  "generated_at",
  "source_inventory_sha",
  "licence",
  "labels",
  "internal_keys",
  "vaults",
  "edges",
];
const GENERIC: (Json | undefined)[] = [undefined, null, 0, -0, true, "", "x", [], {}];

/**
 * A valid source with one to three edits anywhere validation looks (top level, licence, labels, a vault, an
 * edge): a field removed or set to a near miss, or a vault or edge repeated. Some stay valid.
 */
export const nearValidSource: fc.Arbitrary<Json> = fc
  .tuple(validSource, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat({ max: 3 })), { minLength: 1, maxLength: 3 }))
  .map(([source, edits]) => {
    const copy = JSON.parse(JSON.stringify(source)) as JsonObject;
    for (const [where, pick, generic] of edits) {
      const places: [JsonObject | Json[], string][] = TOP_LEVEL.map((k) => [copy, k]);
      for (const [key, fields] of [["licence", ["id", "url"]], ["labels", ["class", "status"]]] as const) {
        const o = copy[key];
        if (isObject(o)) { for (const f of fields) places.push([o, f]); }
      }
      for (
        const [key, fields] of [["vaults", [
          "vault_slug",
          "display_name",
          "class",
          "status",
          "persona",
          "note",
          "last_synced",
          "suppressed",
        ]], ["edges", ["source", "target", "type"]]] as const
      ) {
        const list = copy[key];
        if (!Array.isArray(list)) continue;
        list.forEach((item) => {
          if (isObject(item)) { for (const f of fields) places.push([item, f]); }
        });
        if (list.length > 0) places.push([list, "repeat"]);
      }
      // Pick a field name first, then one place holding it, so every field is broken as often.
      const names = [...new Set(places.map(([, n]) => n))];
      const name = names[where % names.length] as string;
      const holders = places.filter(([, n]) => n === name);
      const [target] = holders[pick % holders.length] as [JsonObject | Json[], string];
      if (Array.isArray(target)) {
        target.push(JSON.parse(JSON.stringify(target[pick % target.length])) as Json);
        continue;
      }
      const pool = generic === 0 ? GENERIC : (NEAR_MISSES[name] ?? GENERIC);
      const value = pool[pick % pool.length];
      if (value === undefined) delete target[name];
      // A clone: the near misses are shared constants, and a later edit may write into this value.
      else {Object.defineProperty(target, name, {
          value: structuredClone(value),
          enumerable: true,
          writable: true,
          configurable: true,
        });}
    }
    return copy;
  });

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A permutation of `items` (all of them, in a generated order). */
export const permutationOf = <T>(items: readonly T[]): fc.Arbitrary<T[]> =>
  fc.shuffledSubarray([...items], { minLength: items.length, maxLength: items.length });
