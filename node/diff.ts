/**
 * A semantic diff of two registry documents, for reviewers and pinned consumers: rows matched by
 * `vault_slug`, edges by (`source`, `target`, `type`), every change given a class and a stable rule
 * id. The classes, from harmless to harmful:
 *
 * - `data`: values only (what a new snapshot of the same contract changes);
 * - `additive`: a new key, which consumers must ignore (SPEC, Versioning 5);
 * - `dangerous`: a new value in a closed set (a new tier), which a consumer's switch may not handle;
 * - `breaking`: a key removed or renamed, a type changed, a rule of derivation, an order or a shape
 *   changed: pinned consumers may break, so it belongs at a new versioned path.
 *
 * Shapes are compared per kind of object (envelope, `about`, full rows, minimal rows, edges,
 * coverage entries), so a row turning minimal is a data change flagged as privacy-relevant, not a
 * removal of keys.
 */

export type ChangeClass = "data" | "additive" | "dangerous" | "breaking";

/** The classes, most harmful first. */
export const CLASSES: readonly ChangeClass[] = ["breaking", "dangerous", "additive", "data"];

/** One change, and the rule that classified it. */
export interface Change {
  readonly class: ChangeClass;
  /** A stable id (README, "Reading a registry diff"). */
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
  "type.changed": { class: "breaking", meaning: "a key's values have a JSON type they never had" },
  "derivation.tier": { class: "breaking", meaning: "a status maps to another tier than before: the tier rule changed" },
  "order.vaults": { class: "breaking", meaning: "vaults are no longer sorted by vault_slug" },
  "order.edges": { class: "breaking", meaning: "edges are no longer sorted by source, target, type" },
  "envelope.schema-version": { class: "breaking", meaning: "schema_version changed at the same address" },
  "closed-set.value": { class: "dangerous", meaning: "a new value of tier, tier_label or listing" },
  "key.added": { class: "additive", meaning: "a kind of object has a new key" },
  "envelope.value": { class: "data", meaning: "a value of the envelope or about changed" },
  "vault.added": { class: "data", meaning: "a vault is new (privacy, when its row is minimal)" },
  "vault.removed": { class: "data", meaning: "a vault is gone (privacy, when its row was minimal)" },
  "vault.field": { class: "data", meaning: "a value of a vault changed" },
  "vault.tier": { class: "data", meaning: "a vault moved tier, its status having changed" },
  "vault.minimal": { class: "data", meaning: "a full row became minimal: its detail is now withheld; the fields withdrawn are listed (privacy)" },
  "vault.full": { class: "data", meaning: "a minimal row became full: detail withheld until now is published; the fields published are listed (privacy)" },
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

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

/** A document that has at least the shape a diff needs. */
export interface Document extends Obj {
  vaults: Obj[];
  edges: Obj[];
}

/**
 * Why `value` is not a built registry document a diff can read, or the document. A source file is
 * refused before anything of it is read further: a diff prints values, and a source's are private.
 * The reasons name no value and no key of the input.
 */
export function asDocument(value: unknown): { ok: Document } | { error: string } {
  const refuse = (why: string) => ({ error: `not a built registry document: ${why}` });
  if (!isObj(value)) return refuse("the top level is not an object");
  if (typeof value["schema_version"] !== "string" || typeof value["built_at"] !== "string") {
    return refuse("it has no schema_version and built_at (a source file is not diffed: build each side with `registry` first)");
  }
  const { vaults, edges } = value;
  if (!Array.isArray(vaults)) return refuse("vaults is not an array");
  if (!Array.isArray(edges)) return refuse("edges is not an array");
  const seen = new Set<string>();
  for (const [i, row] of vaults.entries()) {
    if (!isObj(row) || typeof row["vault_slug"] !== "string") return refuse(`vaults[${i}] has no string vault_slug`);
    // `suppressed` is the source's own key: a built document never carries it (DECISIONS.md D2).
    if (Object.hasOwn(row, "suppressed")) return refuse(`vaults[${i}] carries suppressed, a key only a source has`);
    if (seen.has(row["vault_slug"])) return refuse(`vaults[${i}].vault_slug appears twice`);
    seen.add(row["vault_slug"]);
  }
  for (const [i, edge] of edges.entries()) {
    if (!isObj(edge) || !["source", "target", "type"].every((k) => typeof edge[k] === "string")) {
      return refuse(`edges[${i}] is not an object with string source, target and type`);
    }
  }
  return { ok: value as Document };
}

/** Every change from `before` to `after`, contract changes first, then data in document order. */
export function diffDocuments(before: Document, after: Document): Change[] {
  const changes: Change[] = [];
  const add = (rule: string, where: string, values: { old?: unknown; new?: unknown } = {}, privacy = false) =>
    changes.push({ class: (RULES[rule] as { class: ChangeClass }).class, rule, where, ...values, ...(privacy ? { privacy: true as const } : {}) });

  // Shapes, per kind of object.
  const full = (d: Document) => d.vaults.filter((r) => !Object.hasOwn(r, "listing"));
  const minimal = (d: Document) => d.vaults.filter((r) => Object.hasOwn(r, "listing"));
  const objects = (v: Json | undefined): Obj[] => (isObj(v) ? [v] : []);
  const kinds: [string, (d: Document) => Obj[]][] = [
    ["the envelope", (d) => [d]],
    ["about", (d) => objects(d["about"])],
    ["about.licence", (d) => (isObj(d["about"]) ? objects(d["about"]["licence"]) : [])],
    ["field_coverage", (d) => objects(d["field_coverage"])],
    ["field_coverage entries", (d) => (isObj(d["field_coverage"]) ? Object.values(d["field_coverage"]).filter(isObj) : [])],
    ["vaults[] (full rows)", full],
    ["vaults[] (minimal rows)", minimal],
    ["edges[]", (d) => d.edges],
  ];
  for (const [where, of] of kinds) compareShape(where, of(before), of(after), add);

  if (before["schema_version"] !== after["schema_version"]) add("envelope.schema-version", "schema_version", { old: before["schema_version"], new: after["schema_version"] });

  // Closed sets and the tier rule.
  const known = (field: string) => new Set([...(CLOSED_SETS[field] ?? []), ...before.vaults.map((r) => r[field])]);
  for (const field of Object.keys(CLOSED_SETS)) {
    const old = known(field);
    const fresh = [...new Set(after.vaults.map((r) => r[field]).filter((v) => v !== undefined && !old.has(v)))];
    for (const value of fresh) add("closed-set.value", `vaults[].${field}`, { new: value });
  }
  const tierOf = (d: Document) => new Map(full(d).map((r) => [r["status"], r["tier"]]));
  const [oldTiers, newTiers] = [tierOf(before), tierOf(after)];
  for (const [status, tier] of newTiers) {
    if (oldTiers.has(status) && oldTiers.get(status) !== tier) add("derivation.tier", `tier of status ${JSON.stringify(status)}`, { old: oldTiers.get(status), new: tier });
  }

  // Orders.
  const slugs = (d: Document) => d.vaults.map((r) => r["vault_slug"] as string);
  if (isSorted(slugs(before)) && !isSorted(slugs(after))) add("order.vaults", "vaults");
  const triples = (d: Document) => d.edges.map(edgeKey);
  if (isSorted(triples(before)) && !isSorted(triples(after))) add("order.edges", "edges");

  // The envelope's values.
  for (const key of Object.keys(after)) {
    if (["schema_version", "vaults", "edges", "field_coverage", "vault_count", "edge_count", "about"].includes(key) || !Object.hasOwn(before, key)) continue;
    if (!equal(before[key], after[key])) add("envelope.value", key, { old: before[key], new: after[key] });
  }
  const [oldAbout, newAbout] = [before["about"], after["about"]];
  if (isObj(oldAbout) && isObj(newAbout)) {
    for (const key of Object.keys(newAbout)) {
      if (Object.hasOwn(oldAbout, key) && !equal(oldAbout[key], newAbout[key])) add("envelope.value", `about.${key}`, { old: oldAbout[key], new: newAbout[key] });
    }
  }

  // Vaults.
  const oldRows = new Map(before.vaults.map((r) => [r["vault_slug"] as string, r]));
  const newRows = new Map(after.vaults.map((r) => [r["vault_slug"] as string, r]));
  // A withheld vault added or removed changes what is withheld: privacy-relevant too.
  for (const [slug, row] of newRows) if (!oldRows.has(slug)) add("vault.added", `vaults[${slug}]`, { new: Object.hasOwn(row, "listing") ? "minimal row" : "full row" }, Object.hasOwn(row, "listing"));
  for (const [slug, row] of oldRows) if (!newRows.has(slug)) add("vault.removed", `vaults[${slug}]`, { old: Object.hasOwn(row, "listing") ? "minimal row" : "full row" }, Object.hasOwn(row, "listing"));
  for (const [slug, row] of newRows) {
    const old = oldRows.get(slug);
    if (old === undefined) continue;
    const [wasMinimal, isMinimal] = [Object.hasOwn(old, "listing"), Object.hasOwn(row, "listing")];
    if (wasMinimal !== isMinimal) {
      // The fields that turning full publishes, or turning minimal withdraws, by name.
      const moved = isMinimal ? Object.keys(old).filter((k) => !Object.hasOwn(row, k)) : Object.keys(row).filter((k) => !Object.hasOwn(old, k));
      const fields = `${isMinimal ? "withdraws" : "publishes"} ${moved.join(", ")}`;
      add(isMinimal ? "vault.minimal" : "vault.full", `vaults[${slug}]`, { old: wasMinimal ? "minimal" : "full", new: `${isMinimal ? "minimal" : "full"}: ${fields}` }, true);
    }
    const tierMoved = !equal(old["tier"], row["tier"]) && old["tier"] !== undefined && row["tier"] !== undefined;
    if (tierMoved) add("vault.tier", `vaults[${slug}].tier`, { old: old["tier"], new: row["tier"] });
    for (const key of Object.keys(row)) {
      if (!Object.hasOwn(old, key) || equal(old[key], row[key])) continue;
      if (key === "tier" || (tierMoved && (key === "tier_label" || key === "tier_meaning"))) continue;
      add("vault.field", `vaults[${slug}].${key}`, { old: old[key], new: row[key] });
    }
  }

  // Edges.
  const oldEdges = new Set(before.edges.map(edgeKey));
  const newEdges = new Set(after.edges.map(edgeKey));
  for (const e of after.edges) if (!oldEdges.has(edgeKey(e))) add("edge.added", "edges", { new: edgeText(e) });
  for (const e of before.edges) if (!newEdges.has(edgeKey(e))) add("edge.removed", "edges", { old: edgeText(e) });

  // Counts and coverage.
  for (const key of ["vault_count", "edge_count"]) {
    if (Object.hasOwn(before, key) && Object.hasOwn(after, key) && !equal(before[key], after[key])) add("count.changed", key, { old: before[key], new: after[key] });
  }
  const [oldCoverage, newCoverage] = [before["field_coverage"], after["field_coverage"]];
  if (isObj(oldCoverage) && isObj(newCoverage)) {
    for (const [field, entry] of Object.entries(newCoverage)) {
      const old = oldCoverage[field];
      if (old !== undefined && !equal(old, entry)) add("coverage.changed", `field_coverage.${field}`, { old: coverageText(old), new: coverageText(entry) });
    }
  }
  const rank = (c: Change) => CLASSES.indexOf(c.class);
  return changes.map((c, i) => [c, i] as const).sort(([a, i], [b, j]) => rank(a) - rank(b) || i - j).map(([c]) => c);
}

/** What `--fail-on` can name: a class, or `privacy` (any change in what is withheld). */
export type FailOn = "breaking" | "dangerous" | "privacy";

/** True when some change meets one of `failOn`: a class at least that harmful, or a privacy change. */
export function failsOn(changes: readonly Change[], failOn: readonly FailOn[]): boolean {
  const worst = worstClass(changes);
  return failOn.some((f) =>
    f === "privacy" ? changes.some((c) => c.privacy === true) : f === "breaking" ? worst === "breaking" : worst === "breaking" || worst === "dangerous",
  );
}

/** The worst class among `changes`, or null when there are none. */
export function worstClass(changes: readonly Change[]): ChangeClass | null {
  return CLASSES.find((k) => changes.some((c) => c.class === k)) ?? null;
}

function compareShape(where: string, before: Obj[], after: Obj[], add: (rule: string, where: string, values?: { old?: unknown; new?: unknown }) => void): void {
  if (before.length === 0 || after.length === 0) return; // nothing of this kind on one side: nothing to compare
  const [oldKeys, newKeys] = [keysOf(before), keysOf(after)];
  for (const key of newKeys) if (!oldKeys.includes(key)) add("key.added", where, { new: key });
  for (const key of oldKeys) if (!newKeys.includes(key)) add("key.removed", where, { old: key });
  const [oldOrder, newOrder] = [oldKeys.filter((k) => newKeys.includes(k)), newKeys.filter((k) => oldKeys.includes(k))];
  if (!equal(oldOrder, newOrder)) add("key.order", where, { old: oldOrder.join(", "), new: newOrder.join(", ") });
  for (const key of oldKeys.filter((k) => newKeys.includes(k))) {
    const [oldTypes, newTypes] = [typesOf(before, key), typesOf(after, key)];
    const fresh = [...newTypes].filter((t) => !oldTypes.has(t));
    if (oldTypes.size > 0 && fresh.length > 0) add("type.changed", `${where}.${key}`, { old: [...oldTypes].sort().join(" | "), new: [...newTypes].sort().join(" | ") });
  }
}

/** The keys of a kind of object, in the order they first appear. */
function keysOf(objects: Obj[]): string[] {
  const keys = new Set<string>();
  for (const o of objects) for (const k of Object.keys(o)) keys.add(k);
  return [...keys];
}

/** The JSON types of a key's values, null apart (null means "not known", allowed for any field). */
function typesOf(objects: Obj[], key: string): Set<string> {
  const types = new Set<string>();
  for (const o of objects) {
    const v = o[key];
    if (v === undefined || v === null) continue;
    types.add(Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v);
  }
  return types;
}

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function isSorted(keys: readonly string[]): boolean {
  return keys.every((k, i) => i === 0 || (keys[i - 1] as string) <= k);
}

function edgeKey(e: Obj): string {
  return `${e["source"]}\u0000${e["target"]}\u0000${e["type"]}`;
}

function edgeText(e: Obj): string {
  return `${e["source"]} → ${e["target"]} (${e["type"]})`;
}

function coverageText(entry: Json | undefined): string {
  return isObj(entry) ? `${entry["populated"]}/${entry["of"]}` : JSON.stringify(entry);
}
