/**
 * The source format restated as one predicate, written apart from `source.ts` so the two can be
 * checked against each other: `validateSource(x, { internalKeys }).ok` must equal
 * `isValidSource(x, internalKeys)` for every input.
 */

import { readFileSync } from "node:fs";

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const has = (o: Obj, k: string): boolean => Object.hasOwn(o, k);
const str = (v: unknown): v is string => typeof v === "string";
const nonEmpty = (v: unknown): boolean => str(v) && v !== "";
const strOrNull = (v: unknown): boolean => v === null || str(v);

function realDate(y: string, m: string, d: string): boolean {
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(m) - 1, Number(d));
  return date.toISOString().startsWith(`${y}-${m}-${d}`);
}

function isTimestamp(v: unknown): boolean {
  const m = str(v) ? /^(\d{4})-(\d\d)-(\d\d)T([01]\d|2[0-3]):[0-5]\d:[0-5]\dZ$/.exec(v) : null;
  return m !== null && realDate(m[1]!, m[2]!, m[3]!);
}

function isDate(v: unknown): boolean {
  const m = str(v) ? /^(\d{4})-(\d\d)-(\d\d)$/.exec(v) : null;
  return m !== null && realDate(m[1]!, m[2]!, m[3]!);
}

function isHttpUrl(v: unknown): boolean {
  if (!str(v)) return false;
  try {
    return ["http:", "https:"].includes(new URL(v).protocol);
  } catch {
    return false;
  }
}

const optionalKey = (o: Obj, k: string, ok: (v: unknown) => boolean): boolean => !has(o, k) || ok(o[k]);

/** Every string one edit from `s` (insert, delete, replace, swap neighbours), letters from `alphabet`; by character. */
function oneEdit(text: string, alphabet: readonly string[]): string[] {
  const s = Array.from(text);
  const out: string[][] = [];
  for (let i = 0; i <= s.length; i++) {
    for (const c of alphabet) out.push([...s.slice(0, i), c, ...s.slice(i)], [...s.slice(0, i), c, ...s.slice(i + 1)]);
    if (i < s.length) out.push([...s.slice(0, i), ...s.slice(i + 1)]);
    if (i + 1 < s.length) out.push([...s.slice(0, i), s[i + 1]!, s[i]!, ...s.slice(i + 2)]);
  }
  return out.map((chars) => chars.join(""));
}

/** Every mapping of Unicode's confusables.txt, the whole table (contract/ keeps only a part). */
const SKELETON = new Map(
  [...readFileSync("test/unicode/confusables.txt", "utf8").matchAll(/^([0-9A-F]+) ;\t([0-9A-F ]+) ;\tMA/gm)].map((
    [, from, to],
  ) => [
    String.fromCodePoint(parseInt(from!, 16)),
    String.fromCodePoint(...to!.trim().split(" ").map((h) => parseInt(h, 16))),
  ]),
);
const lower = (s: string): string =>
  s.toUpperCase().toLowerCase().replace(/[\u13a0-\u13f5\u13f8-\u13fd\uab70-\uabbf]/gu, (c) => c.toUpperCase());

/** NFKC, default-ignorables removed, each character its skeleton or its case folding's, case folded, without `_`, `-`, spaces. */
const fold = (name: string): string =>
  lower(
    Array.from(name.normalize("NFKC").replace(/\p{Default_Ignorable_Code_Point}/gu, "")).map((c) =>
      SKELETON.get(c) ?? Array.from(lower(c)).map((l) => SKELETON.get(l) ?? l).join("")
    ).join(""),
  ).replace(/[_\- ]/g, "");

/** True when a declared name may not be declared: folded, it is "suppressed" or one edit from it. */
export function misspellsSuppressed(name: string): boolean {
  const folded = fold(name);
  return folded === "suppressed" || oneEdit("suppressed", [...new Set(folded)]).includes(folded);
}

/** The declared names, when `internal_keys` is absent, null, or a valid list; else undefined. */
function declaredNames(x: Obj, outside: readonly string[]): Set<string> | undefined {
  const list = has(x, "internal_keys") ? x["internal_keys"] : null;
  if (outside.some(misspellsSuppressed)) return undefined;
  if (list === null) return new Set(outside);
  if (!Array.isArray(list) || list.length + outside.length > 1024) return undefined;
  const ok = list.every((n, i) =>
    str(n) && n.length >= 1 && n.length <= 128 && list.indexOf(n) === i && !misspellsSuppressed(n)
  );
  return ok ? new Set([...outside, ...(list as string[])]) : undefined;
}

/** Every key of `o` is one the format names there or a declared one. */
const allDeclared = (o: Obj, known: readonly string[], declared: ReadonlySet<string>): boolean =>
  Object.keys(o).every((k) => known.includes(k) || declared.has(k));

const labelTableOk = (t: unknown): boolean =>
  t === null || (isObj(t) && Object.values(t).every((label) => nonEmpty(label)));

/** True exactly when `x` is a valid source, with `outside` declared beside its own `internal_keys`. */
export function isValidSource(x: unknown, outside: readonly string[] = []): boolean {
  if (!isObj(x)) return false;
  const declared = declaredNames(x, outside);
  if (declared === undefined) return false;
  if (
    !allDeclared(x, [
      "$schema",
      "registry_schema_version",
      "generated_at",
      "source_inventory_sha",
      "licence",
      "labels",
      "internal_keys",
      "vaults",
      "edges",
    ], declared)
  ) return false;
  if (!optionalKey(x, "$schema", str)) return false;
  if (!nonEmpty(x["registry_schema_version"]) || !has(x, "registry_schema_version")) return false;
  if (!has(x, "generated_at") || !isTimestamp(x["generated_at"])) return false;
  const sha = x["source_inventory_sha"];
  if (!has(x, "source_inventory_sha") || !str(sha) || !/^[0-9a-f]+$/.test(sha) || ![40, 64].includes(sha.length)) {
    return false;
  }
  const licence = has(x, "licence") ? x["licence"] : null;
  if (
    licence !== null &&
    !(isObj(licence) && allDeclared(licence, ["id", "url"], declared) && has(licence, "id") &&
      nonEmpty(licence["id"]) && has(licence, "url") && isHttpUrl(licence["url"]))
  ) return false;
  const labels = has(x, "labels") ? x["labels"] : null;
  if (
    labels !== null &&
    !(isObj(labels) && allDeclared(labels, ["class", "status"], declared) &&
      optionalKey(labels, "class", labelTableOk) && optionalKey(labels, "status", labelTableOk))
  ) return false;

  const vaults = x["vaults"];
  const edges = x["edges"];
  if (!has(x, "vaults") || !Array.isArray(vaults) || !has(x, "edges") || !Array.isArray(edges)) return false;
  const slugs: string[] = [];
  for (const v of vaults as unknown[]) {
    if (!isObj(v) || !has(v, "vault_slug") || !has(v, "display_name") || !has(v, "status")) return false;
    if (
      !allDeclared(v, [
        "vault_slug",
        "display_name",
        "class",
        "status",
        "persona",
        "note",
        "tagline",
        "last_synced",
        "suppressed",
      ], declared)
    ) return false;
    const s = v["vault_slug"];
    if (!str(s) || !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(s) || slugs.includes(s)) return false;
    slugs.push(s);
    if (!nonEmpty(v["display_name"]) || !str(v["status"])) return false;
    if (!["class", "persona", "note"].every((k) => optionalKey(v, k, strOrNull))) return false;
    if (!optionalKey(v, "last_synced", (d) => d === null || isDate(d))) return false;
    if (!optionalKey(v, "suppressed", (b) => typeof b === "boolean")) return false;
  }
  const seen = new Set<string>();
  for (const e of edges as unknown[]) {
    if (!isObj(e) || !has(e, "source") || !has(e, "target") || !has(e, "type")) return false;
    if (!allDeclared(e, ["source", "target", "type"], declared)) return false;
    const { source, target, type } = { source: e["source"], target: e["target"], type: e["type"] };
    if (!str(source) || !str(target) || !nonEmpty(type)) return false;
    if (!slugs.includes(source) || !slugs.includes(target)) return false;
    const key = JSON.stringify([source, target, type]);
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

/** True when more than `n` objects and arrays are open at once somewhere in `x` (recursion bounded by `n`). */
export function nestsDeeperThan(x: unknown, n: number): boolean {
  if (typeof x !== "object" || x === null) return false;
  return n === 0 || Object.values(x).some((child) => nestsDeeperThan(child, n - 1));
}
