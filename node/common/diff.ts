/** docs/goldens.md, "Reading a registry diff": the classes, the rules, and why a row turning minimal is `data`. */
import { isObject } from "../../contract/json.ts";
import type { ChangeClass } from "../../feed/change.ts";
import { contextOf } from "../../contract/version-policy.ts";
import { VERSIONS } from "../../assembly/versions.ts";
import { arrayOf, type Json, jsonEqual, jsonPreview, jsonText } from "./json-deep.ts";
import { failuresOf } from "./schemas.ts";

/** Most harmful first. A list of its own, a type-only import: the golden review loads no module of feed/. */
export const CLASSES: readonly ChangeClass[] = ["breaking", "dangerous", "additive", "data"];

/** One change, and the rule that classified it (docs/goldens.md, "Reading a registry diff"). */
export interface Change {
  readonly class: ChangeClass;
  readonly rule: string;
  /** Where: `schema_version`, `about.licence`, `vaults[harbour-ledger].status`, `vaults[] (full rows)`, ... */
  readonly where: string;
  readonly old?: unknown;
  readonly new?: unknown;
  /** True when the change decides what is published about a vault (a row turning minimal or full). */
  readonly privacy?: true;
}

/** Every rule id, with its class and what it means. */
export const RULES: Readonly<Record<string, { readonly class: ChangeClass; readonly meaning: string }>> = {
  "key.removed": { class: "breaking", meaning: "a key is gone from a kind of object (or renamed: removed plus added)" },
  "key.order": { class: "breaking", meaning: "the keys a kind of object keeps are in another order" },
  "key.optional": { class: "breaking", meaning: "a key every object of a kind had is missing from some" },
  "type.changed": {
    class: "breaking",
    meaning: "a key's values (or an array's elements) have a JSON type they never had",
  },
  "derivation.tier": { class: "breaking", meaning: "a status maps to another tier than before: the tier rule changed" },
  "order.vaults": { class: "breaking", meaning: "vaults are no longer sorted by vault_slug, each once" },
  "order.edges": { class: "breaking", meaning: "edges are no longer sorted by source, target, type, each once" },
  "envelope.schema-version": { class: "breaking", meaning: "schema_version changed at the same address" },
  "closed-set.value": { class: "dangerous", meaning: "a new value of tier, tier_label or listing" },
  "key.added": { class: "additive", meaning: "a kind of object has a new key" },
  "envelope.value": { class: "data", meaning: "a value of the envelope or about changed" },
  "vault.added": { class: "data", meaning: "a vault is new (privacy, when its row is minimal)" },
  "vault.removed": { class: "data", meaning: "a vault is gone (privacy, when its row was minimal)" },
  "vault.field": { class: "data", meaning: "a value of a vault changed" },
  "vault.tier": { class: "data", meaning: "a vault moved tier, its status having changed" },
  "vault.minimal": {
    class: "data",
    meaning: "a full row became minimal: its detail is now withheld; the fields withdrawn are listed (privacy)",
  },
  "vault.full": {
    class: "data",
    meaning:
      "a minimal row became full: detail withheld until now is published; the fields published are listed (privacy)",
  },
  "edge.added": { class: "data", meaning: "an edge is new" },
  "edge.removed": { class: "data", meaning: "an edge is gone" },
  "count.changed": { class: "data", meaning: "vault_count or edge_count changed" },
  "coverage.changed": { class: "data", meaning: "a field's coverage changed" },
};

/** The closed sets of the v1 contract: values a consumer may switch on exhaustively. */
const CLOSED_SETS: Readonly<Record<string, readonly string[]>> = {
  tier: ["in_use", "chartered", "planned"],
  tier_label: ["in use", "chartered", "planned"],
  listing: ["minimal"],
};

type Obj = { [key: string]: Json };

const isObj = isObject as (value: unknown) => value is Obj;

/** A parsed document with a `schema_version`: anything else in it may have any shape. */
export type Document = Obj;

/** Top-level keys only a source has (docs/source-format.md): a file carrying one is not diffed. */
const SOURCE_ONLY_KEYS = ["labels", "licence"];

/** Each shipped version's schema, compiled when first checked. */
const SHIPPED = VERSIONS.map((version) => ({
  version,
  schema: version.schema(contextOf(version, { baseUrl: "https://registry.invalid", builtAt: "1970-01-01T00:00:00Z" })),
}));

/**
 * The document, or why `value` is not one a diff can read: one that validates against a shipped version's schema.
 * Anything else is refused before a value of it is printed (a source's values are private); the reasons name the
 * version and the first few failing places, never a value and never a key the schema does not know.
 */
export function asDocument(value: unknown): { ok: Document } | { error: string } {
  if (!isObj(value) || !Object.hasOwn(value, "schema_version")) return documentShape(value);
  const results = SHIPPED.map(({ version, schema }) => ({ version, failures: failuresOf(schema, value, 4) }));
  // Belt and braces after the schema: a key only a source has is refused even where the schema allows unknown keys.
  if (results.some((r) => r.failures.length === 0)) return sourceKeyIn(value) ?? { ok: value };
  // Told against the newest version whose schema_version the file has, else the newest.
  const { version, failures } = results.findLast((r) => !r.failures.some((f) => f.startsWith("schema_version:"))) ??
    (results.at(-1) as (typeof results)[number]);
  return refuse(
    `it does not validate against the v${version.number} schema (${version.schemaPath}): ${failures.join("; ")}${
      failures.length >= 4 ? "; …" : ""
    } (a source file is not diffed: build each side with \`registry\` first)`,
  );
}

/**
 * `value` as a document of any shape (an object with a `schema_version` and no key only a source has): for the
 * golden review, which compares goldens of any version, drafts included, and must see a breaking shape to fail on.
 */
export function documentShape(value: unknown): { ok: Document } | { error: string } {
  if (!isObj(value)) return refuse("the top level is not an object");
  if (!Object.hasOwn(value, "schema_version")) {
    return refuse("it has no schema_version (a source file is not diffed: build each side with `registry` first)");
  }
  return sourceKeyIn(value) ?? { ok: value };
}

function refuse(why: string): { error: string } {
  return { error: `not a built registry document: ${why}` };
}

/** The refusal of a document carrying a key only a source has (see docs/source-format.md), if it does. */
function sourceKeyIn(value: Obj): { error: string } | undefined {
  const vaults = value["vaults"];
  if (Array.isArray(vaults)) {
    // `suppressed` is the source's own key: a built document never carries it.
    const i = vaults.findIndex((row) => isObj(row) && Object.hasOwn(row, "suppressed"));
    if (i >= 0) return refuse(`vaults[${i}] carries suppressed, a key only a source has`);
  }
  const sourceKey = SOURCE_ONLY_KEYS.find((key) => Object.hasOwn(value, key));
  return sourceKey === undefined ? undefined : refuse(`it carries ${sourceKey}, a key only a source has`);
}

/** Every change from `before` to `after`, contract changes first, then data in document order. */
export function diffDocuments(before: Document, after: Document): Change[] {
  const changes: Change[] = [];
  const add: Add = (rule, where, values = {}, privacy = false) =>
    changes.push({ class: classOfRule(rule), rule, where, ...values, ...(privacy ? { privacy: true as const } : {}) });
  contractChanges(before, after, add);
  dataChanges(before, after, add);
  const rank = (c: Change) => CLASSES.indexOf(c.class);
  return changes.map((c, i) => [c, i] as const).sort(([a, i], [b, j]) => rank(a) - rank(b) || i - j).map(([c]) => c);
}

/** `worstClass` of `diffDocuments`, or `data`: only the rules of other classes run (a feed's class, 100k rows). */
export function classOf(before: Document, after: Document): ChangeClass {
  let worst: ChangeClass = "data";
  contractChanges(before, after, (rule) => {
    const found = classOfRule(rule);
    if (CLASSES.indexOf(found) < CLASSES.indexOf(worst)) worst = found;
  });
  return worst;
}

const classOfRule = (rule: string) => (RULES[rule] as { class: ChangeClass }).class;

type Add = (rule: string, where: string, values?: { old?: unknown; new?: unknown }, privacy?: boolean) => void;

/** The changes of the contract: every rule of another class than `data` is reported here, and only here. */
function contractChanges(before: Document, after: Document, add: Add): void {
  compareShapes(before, after, add);
  if (!jsonEqual(before["schema_version"], after["schema_version"])) {
    add("envelope.schema-version", "schema_version", { old: before["schema_version"], new: after["schema_version"] });
  }
  const [oldRows, newRows] = [arrayOf(before["vaults"]), arrayOf(after["vaults"])];
  // Closed sets: a value of a row's field that neither the set nor an old row has.
  for (const [field, set] of Object.entries(CLOSED_SETS)) {
    const known = new Set(set.map(valueKey));
    for (const value of valuesAt(oldRows, field)) if (value !== undefined) known.add(valueKey(value));
    for (const value of valuesAt(newRows, field)) {
      if (value === undefined) continue;
      const key = valueKey(value);
      if (known.has(key)) continue;
      known.add(key);
      add("closed-set.value", `vaults[].${field}`, { new: value });
    }
  }
  // The tier rule: per status (as JSON text), the tier of the last full row with it, before and after.
  // Each status's text made once: rows repeat a few.
  const texts = new Map<Json | undefined, string>();
  const textOf = (v: Json | undefined) => texts.get(v) ?? (texts.set(v, jsonText(v)).get(v) as string);
  const tierOf = (rows: Json[]) => {
    const tiers = new Map<string, Json | undefined>();
    for (const row of rows) {
      if (isObj(row) && !Object.hasOwn(row, "listing")) tiers.set(textOf(row["status"]), row["tier"]);
    }
    return tiers;
  };
  const oldTiers = tierOf(oldRows);
  for (const [status, tier] of tierOf(newRows)) {
    const old = oldTiers.get(status);
    if (oldTiers.has(status) && !jsonEqual(old, tier)) {
      add("derivation.tier", `tier of status ${status}`, { old, new: tier });
    }
  }
  if (sorted(oldRows, slugOf) && !sorted(newRows, slugOf)) add("order.vaults", "vaults");
  const [oldEdges, newEdges] = [arrayOf(before["edges"]), arrayOf(after["edges"])];
  if (sorted(oldEdges, edgeOrderKey) && !sorted(newEdges, edgeOrderKey)) add("order.edges", "edges");
}

function dataChanges(before: Document, after: Document, add: Add): void {
  const [oldRows, newRows] = [rowsOf(before), rowsOf(after)];
  for (const key of Object.keys(after)) {
    if (STRUCTURAL.has(key) || !Object.hasOwn(before, key)) continue;
    if (!jsonEqual(before[key], after[key])) add("envelope.value", key, { old: before[key], new: after[key] });
  }
  const [oldAbout, newAbout] = [before["about"], after["about"]];
  if (isObj(oldAbout) && isObj(newAbout)) {
    for (const key of Object.keys(newAbout)) {
      if (Object.hasOwn(oldAbout, key) && !jsonEqual(oldAbout[key], newAbout[key])) {
        add("envelope.value", `about.${key}`, { old: oldAbout[key], new: newAbout[key] });
      }
    }
  }
  // Vaults. A withheld vault added or removed changes what is withheld: privacy-relevant too.
  const isMinimalRow = (v: Json) => isObj(v) && Object.hasOwn(v, "listing");
  const kindOf = (v: Json) => (isMinimalRow(v) ? "minimal row" : isObj(v) ? "full row" : "not an object");
  for (const [key, row] of newRows) {
    if (!oldRows.has(key)) add("vault.added", whereOf(key), { new: kindOf(row) }, isMinimalRow(row));
  }
  for (const [key, row] of oldRows) {
    if (!newRows.has(key)) add("vault.removed", whereOf(key), { old: kindOf(row) }, isMinimalRow(row));
  }
  for (const [key, now] of newRows) {
    const was = oldRows.get(key);
    if (was === undefined) continue;
    if (!isObj(was) || !isObj(now)) {
      if (!jsonEqual(was, now)) add("vault.field", whereOf(key), { old: was, new: now });
      continue;
    }
    const [wasMinimal, isMinimal] = [isMinimalRow(was), isMinimalRow(now)];
    if (wasMinimal !== isMinimal) {
      // The fields that turning full publishes, or turning minimal withdraws, by name.
      const moved = isMinimal
        ? Object.keys(was).filter((k) => !Object.hasOwn(now, k))
        : Object.keys(now).filter((k) => !Object.hasOwn(was, k));
      const fields = `${isMinimal ? "withdraws" : "publishes"} ${moved.join(", ")}`;
      add(isMinimal ? "vault.minimal" : "vault.full", whereOf(key), {
        old: wasMinimal ? "minimal" : "full",
        new: `${isMinimal ? "minimal" : "full"}: ${fields}`,
      }, true);
    }
    const tierMoved = was["tier"] !== undefined && now["tier"] !== undefined && !jsonEqual(was["tier"], now["tier"]);
    if (tierMoved) add("vault.tier", `${whereOf(key)}.tier`, { old: was["tier"], new: now["tier"] });
    for (const field of Object.keys(now)) {
      if (!Object.hasOwn(was, field) || jsonEqual(was[field], now[field])) continue;
      if (field === "tier" || (tierMoved && (field === "tier_label" || field === "tier_meaning"))) continue;
      // A vault withheld now: its former values are its former detail, never printed.
      add("vault.field", `${whereOf(key)}.${field}`, { old: isMinimal ? NOT_PRINTED : was[field], new: now[field] });
    }
  }
  // Edges. One touching a vault withheld or gone now is its former detail: its ends are named, its type is not.
  const shownInFull = new Set<string>();
  for (const r of newRows.values()) {
    const slug = slugOf(r);
    if (slug !== undefined && !isMinimalRow(r)) shownInFull.add(slug);
  }
  const edgesOf = (d: Document) => {
    const edges = new Map<string, Json>();
    for (const e of arrayOf(d["edges"])) edges.set(edgeKey(e), e);
    return edges;
  };
  const [oldEdges, newEdges] = [edgesOf(before), edgesOf(after)];
  for (const [key, e] of newEdges) if (!oldEdges.has(key)) add("edge.added", "edges", { new: edgeText(e) });
  for (const [key, e] of oldEdges) {
    if (!newEdges.has(key)) add("edge.removed", "edges", { old: edgeText(e, shownInFull) });
  }
  for (const key of ["vault_count", "edge_count"]) {
    if (Object.hasOwn(before, key) && Object.hasOwn(after, key) && !jsonEqual(before[key], after[key])) {
      add("count.changed", key, { old: before[key], new: after[key] });
    }
  }
  const [oldCoverage, newCoverage] = [before["field_coverage"], after["field_coverage"]];
  if (isObj(oldCoverage) && isObj(newCoverage)) {
    for (const [field, entry] of Object.entries(newCoverage)) {
      if (Object.hasOwn(oldCoverage, field) && !jsonEqual(oldCoverage[field], entry)) {
        const old = coverageText(oldCoverage[field] as Json);
        add("coverage.changed", `field_coverage.${field}`, { old, new: coverageText(entry) });
      }
    }
  }
}

/** Envelope keys whose changes other rules report. */
const STRUCTURAL = new Set("schema_version vaults edges field_coverage vault_count edge_count about".split(" "));

/** How a diff names the row of a key of `rowsOf`: `vaults[harbour-ledger]`, or `vaults[#3]`. */
function whereOf(key: string): string {
  return key.startsWith("=") ? `vaults[${key.slice(1)}]` : `vaults[${key}]`;
}

/** The rows by `vault_slug` the first time it appears, else by position (`vaults[#3]`): all rows compare. */
function rowsOf(d: Document): Map<string, Json> {
  const rows = new Map<string, Json>();
  for (const [i, value] of arrayOf(d["vaults"]).entries()) {
    const slug = isObj(value) ? value["vault_slug"] : undefined;
    if (typeof slug === "string" && !rows.has(`=${slug}`)) rows.set(`=${slug}`, value);
    else rows.set(`#${i}`, value);
  }
  return rows;
}

/** One key of a kind: its JSON types (null apart) and how many objects have it. */
interface KeyEntry {
  readonly types: Set<string>;
  count: number;
}

/** What a kind of object or array holds, over every instance of it in one document. */
interface Shape {
  objects: number;
  /** Each key in the order it first appears. */
  readonly keys: Map<string, KeyEntry>;
  /** The JSON types of an array's elements, null apart. */
  readonly elements: Set<string>;
}

/** The kinds of object, named by where they sit (`about.licence`, `vaults[] (full rows)`), numbered for both sides. */
class Kinds {
  private readonly parents: number[] = [-1];
  private readonly segments: string[] = ["the envelope"];
  /** Each kind's children by segment: asked once per object of a document, so no key text is made. */
  private readonly children: Map<string, number>[] = [new Map()];

  child(parent: number, segment: string): number {
    const children = this.children[parent] as Map<string, number>;
    let id = children.get(segment);
    if (id === undefined) {
      id = this.parents.length;
      this.parents.push(parent);
      this.segments.push(parent === 0 ? segment.replace(/^\./, "") : segment);
      this.children.push(new Map());
      children.set(segment, id);
    }
    return id;
  }

  /** A kind's name, its outermost part cut when it nests deeper than a reader follows. */
  name(id: number): string {
    if (id === 0) return "the envelope";
    const parts: string[] = [];
    let at = id;
    for (; at > 0 && parts.length < 12; at = this.parents[at] as number) parts.unshift(this.segments[at] as string);
    return `${at > 0 ? "…" : ""}${parts.join("")}`;
  }
}

/** Every kind's shape in `d`, walked breadth-first (no recursion: any depth) in document order. */
function shapesOf(d: Document, kinds: Kinds): Map<number, Shape> {
  const shapes = new Map<number, Shape>();
  const [vaults, coverage] = [kinds.child(0, ".vaults"), kinds.child(0, ".field_coverage")];
  // The queue as two arrays (value, kind): no pair per object of 100k rows.
  const queue: Json[] = [d];
  const queueKinds: number[] = [0];
  // Per kind, the keys of the last object walked and their entries: rows repeat their keys, so most cost no lookup.
  const lastKeys = new Map<number, { keys: string[]; entries: KeyEntry[] }>();
  for (let head = 0; head < queue.length; head++) {
    const value = queue[head] as Json;
    const kind = queueKinds[head] as number;
    queue[head] = null; // let the walked part go
    let shape = shapes.get(kind);
    if (shape === undefined) shapes.set(kind, shape = { objects: 0, keys: new Map(), elements: new Set() });
    if (Array.isArray(value)) {
      for (const element of value) {
        if (element !== null) shape.elements.add(typeOf(element));
        if (typeof element !== "object" || element === null) continue;
        // Rows are two kinds: a minimal row is not a full row with keys removed.
        const segment = kind === vaults && isObj(element)
          ? (Object.hasOwn(element, "listing") ? "[] (minimal rows)" : "[] (full rows)")
          : "[]";
        queue.push(element);
        queueKinds.push(kinds.child(kind, segment));
      }
    } else if (isObj(value)) {
      shape.objects++;
      let last = lastKeys.get(kind);
      if (last === undefined) lastKeys.set(kind, last = { keys: [], entries: [] });
      let position = 0;
      // for...in over a parsed object: its own keys, in order, without an array of pairs per object.
      for (const key in value) {
        const member = value[key] as Json;
        let entry = last.keys[position] === key ? last.entries[position] : undefined;
        if (entry === undefined) {
          entry = shape.keys.get(key);
          if (entry === undefined) shape.keys.set(key, entry = { types: new Set(), count: 0 });
          last.keys[position] = key;
          last.entries[position] = entry;
        }
        position++;
        entry.count++;
        if (member !== null) entry.types.add(typeOf(member));
        if (typeof member !== "object" || member === null) continue;
        // field_coverage is a map keyed by field name: its entries are one kind.
        queue.push(member);
        queueKinds.push(kinds.child(kind, kind === coverage ? " entries" : `.${key}`));
      }
    }
  }
  return shapes;
}

/** Key sets, key order, key presence and JSON types, kind by kind. A kind on one side only has nothing to compare. */
function compareShapes(before: Document, after: Document, add: Add): void {
  const kinds = new Kinds();
  const [oldShapes, newShapes] = [shapesOf(before, kinds), shapesOf(after, kinds)];
  const typesText = (types: Set<string>) => [...types].sort().join(" | ");
  for (const [kind, now] of newShapes) {
    const was = oldShapes.get(kind);
    if (was === undefined) continue;
    const where = kinds.name(kind);
    if (was.elements.size > 0 && now.elements.size > 0 && [...now.elements].some((t) => !was.elements.has(t))) {
      add("type.changed", `${where}[]`, { old: typesText(was.elements), new: typesText(now.elements) });
    }
    if (was.objects === 0 || now.objects === 0) continue;
    for (const key of now.keys.keys()) if (!was.keys.has(key)) add("key.added", where, { new: key });
    for (const key of was.keys.keys()) if (!now.keys.has(key)) add("key.removed", where, { old: key });
    const oldOrder = [...was.keys.keys()].filter((k) => now.keys.has(k));
    const newOrder = [...now.keys.keys()].filter((k) => was.keys.has(k));
    if (oldOrder.some((k, i) => newOrder[i] !== k)) {
      add("key.order", where, { old: oldOrder.join(", "), new: newOrder.join(", ") });
    }
    for (const [key, old] of was.keys) {
      const fresh = now.keys.get(key);
      if (fresh === undefined) continue;
      if (old.count === was.objects && fresh.count < now.objects) {
        const counts = { old: `in ${old.count} of ${was.objects}`, new: `in ${fresh.count} of ${now.objects}` };
        add("key.optional", `${where}.${key}`, counts);
      }
      if (old.types.size > 0 && [...fresh.types].some((t) => !old.types.has(t))) {
        add("type.changed", `${where}.${key}`, { old: typesText(old.types), new: typesText(fresh.types) });
      }
    }
  }
}

/** What `--fail-on` can name: a class, or `privacy` (any change in what is withheld). */
export type FailOn = "breaking" | "dangerous" | "privacy";

/** True when some change meets one of `failOn`: a class at least that harmful, or a privacy change. */
export function failsOn(changes: readonly Change[], failOn: readonly FailOn[]): boolean {
  const worst = worstClass(changes);
  return failOn.some((f) =>
    f === "privacy"
      ? changes.some((c) => c.privacy === true)
      : f === "breaking"
      ? worst === "breaking"
      : worst === "breaking" || worst === "dangerous"
  );
}

/** The worst class among `changes`, or null. */
export function worstClass(changes: readonly Change[]): ChangeClass | null {
  return CLASSES.find((k) => changes.some((c) => c.class === k)) ?? null;
}

/** A value's JSON type: integers apart from other numbers. */
function typeOf(v: Json): string {
  return typeof v === "string" ? "string" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v;
}

/** A value as a set key: strings as themselves, other values as their JSON text, never colliding. */
function valueKey(v: Json): string {
  return typeof v === "string" ? `s${v}` : `j${jsonText(v)}`;
}

/** The values of `field` in `rows`, each once (a row repeats one of a few: each is keyed once), in order. */
function valuesAt(rows: readonly Json[], field: string): Set<Json | undefined> {
  const values = new Set<Json | undefined>();
  for (const row of rows) values.add(isObj(row) ? row[field] : undefined);
  return values;
}

/** True when the keys `keyOf` gives the values (undefined ones skipped) are in strictly ascending order: each once. */
function sorted(values: readonly Json[], keyOf: (v: Json) => string | undefined): boolean {
  let last: string | undefined;
  for (const v of values) {
    const key = keyOf(v);
    if (key === undefined) continue;
    if (last !== undefined && last >= key) return false;
    last = key;
  }
  return true;
}

const slugOf = (row: Json) => (isObj(row) && typeof row["vault_slug"] === "string" ? row["vault_slug"] : undefined);

/**
 * An edge's identity, whatever its members' JSON types. Three strings, as every built edge has, are length-prefixed
 * text (no JSON text of 300k values for 100k edges), after U+0002, which starts no JSON text and no other key here.
 */
function edgeKey(e: Json): string {
  if (!isObj(e)) return `\u0001${jsonText(e)}`;
  const [source, target, type] = [e["source"], e["target"], e["type"]];
  if (typeof source === "string" && typeof target === "string" && typeof type === "string") {
    return `\u0002${source.length}:${source}${target.length}:${target}${type}`;
  }
  // A missing member is "" (jsonText of undefined), which no JSON text is: not the same edge as a null one.
  return `${jsonText(source)}\u0000${jsonText(target)}\u0000${jsonText(type)}`;
}

/** The key edges are sorted by: the strings themselves, as the build compares them. */
function edgeOrderKey(e: Json): string {
  return isObj(e) ? `${keyPart(e["source"])}\u0000${keyPart(e["target"])}\u0000${keyPart(e["type"])}` : jsonText(e);
}

/** A member's part of `edgeOrderKey`: made once, not a closure per edge of 100k. */
const keyPart = (v: Json | undefined) => (typeof v === "string" ? v : jsonText(v ?? null));

/** `source → target (type)`; an edge touching a vault not in `shownInFull` has its type NOT_PRINTED_EDGE_TYPE. */
function edgeText(e: Json, shownInFull?: ReadonlySet<string>): string {
  const part = (v: Json | undefined) => (typeof v === "string" ? v : jsonPreview(v ?? null, 80));
  if (!isObj(e)) return jsonPreview(e, 80);
  const touchesWithheld = shownInFull !== undefined &&
    [e["source"], e["target"]].some((end) => typeof end !== "string" || !shownInFull.has(end));
  return `${part(e["source"])} → ${part(e["target"])} (${touchesWithheld ? NOT_PRINTED_EDGE_TYPE : part(e["type"])})`;
}

const NOT_PRINTED = "(not printed: the vault is withheld now)";

const NOT_PRINTED_EDGE_TYPE = "type not printed: it touches a vault withheld or gone now";

function coverageText(entry: Json): string {
  return isObj(entry)
    ? `${jsonPreview(entry["populated"] ?? null, 40)}/${jsonPreview(entry["of"] ?? null, 40)}`
    : jsonPreview(entry, 80);
}
