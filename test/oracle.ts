/**
 * D1 restated as one predicate, written apart from `source.ts` so the two can be checked against
 * each other: `validateSource(x).ok` must equal `isValidSource(x)` for every input.
 */
import { MAX_KEY_LENGTH } from "../contract/limits.ts";
import { LOOKALIKES } from "../contract/lookalikes.ts";

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

/** Every string one edit from `s` (insert, delete, replace, swap neighbours), letters from `alphabet`. */
function oneEdit(s: string, alphabet: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i <= s.length; i++) {
    for (const c of alphabet) out.push(s.slice(0, i) + c + s.slice(i), s.slice(0, i) + c + s.slice(i + 1));
    if (i < s.length) out.push(s.slice(0, i) + s.slice(i + 1));
    if (i + 1 < s.length) out.push(s.slice(0, i) + s[i + 1] + s[i] + s.slice(i + 2));
  }
  return out;
}

/** True when two edits in sequence can turn `known` into `key` (letters inserted come from `key`). */
function withinTwoEdits(key: string, known: string): boolean {
  if (Math.abs(key.length - known.length) > 2) return false;
  const alphabet = [...new Set(key)];
  const first = oneEdit(known, alphabet);
  return key === known || first.includes(key) || first.some((n) => Math.abs(n.length - key.length) <= 1 && oneEdit(n, alphabet).includes(key));
}

/**
 * D1's folding, restated (and widened to fail closed): NFKD, case folded, each lookalike of a letter
 * of "suppress" read as that letter, and only letters and digits kept, not modifier letters nor
 * default-ignorable (invisible) ones; again until nothing changes; then no lone surrogate half.
 */
const caseFold = (k: string): string =>
  Array.from(k.normalize("NFKD"))
    .map((c) => c.toUpperCase().toLowerCase())
    .join("")
    .normalize("NFKD");
const readAs = new Map(Object.entries(LOOKALIKES).flatMap(([letter, chars]) => Array.from(chars, (c) => [c, letter] as const)));
const kept = (c: string): boolean => /^[\p{L}\p{N}\p{Cs}]$/u.test(c) && !/^[\p{Lm}\p{Default_Ignorable_Code_Point}]$/u.test(c);
const squash = (k: string): string => {
  let text = caseFold(k);
  // Until nothing changes: halves of a pair that an ignored character kept apart join, and are folded and judged again.
  for (let before = ""; before !== text; ) {
    before = text;
    text = caseFold(Array.from(text, (c) => readAs.get(c) ?? c).filter(kept).join(""));
  }
  return Array.from(text).filter((c) => !/^\p{Cs}$/u.test(c)).join("");
};

/** True when some run of `folded` reaches "suppress" in two edits (letters inserted come from "suppress"). */
export function holdsSuppress(folded: string): boolean {
  const target = "suppress";
  for (let from = 0; from < folded.length; from++) {
    for (let to = from + 6; to <= Math.min(folded.length, from + 10); to++) {
      const run = folded.slice(from, to);
      // An edit keeps all but at most one of the run's letters of "suppress": fewer than 6 cannot reach it.
      const pool = [...target];
      const kept = [...run].filter((c) => (pool.includes(c) ? (pool.splice(pool.indexOf(c), 1), true) : false)).length;
      if (kept < 6) continue;
      if (run === target || oneEdit(run, [...new Set(target)]).some((n) => n === target || oneEdit(n, [...new Set(target)]).includes(target))) return true;
    }
  }
  return false;
}

/**
 * D1: an unknown key that nearly spells a known one (folded equal, or 2 edits of a 5+ letter key);
 * on a vault, one holding "suppress"; or one over the key length limit, which is not judged.
 */
export function isNearMiss(key: string, known: readonly string[], vault = false): boolean {
  if (known.includes(key)) return false;
  if (key.length > MAX_KEY_LENGTH) return true;
  const k2 = squash(key);
  if (known.some((k) => squash(k) === k2 || (squash(k).length >= 5 && withinTwoEdits(k2, squash(k))))) return true;
  return vault && holdsSuppress(k2);
}

/** A value that says yes: true, 1, or one of these strings in any case, spaces around. */
const yes = (value: unknown): boolean => value === true || value === 1 || (typeof value === "string" && ["true", "yes", "y", "on", "1"].includes(value.trim().toLowerCase()));

/**
 * No unknown key nearly spells a known one (on a vault, top level or edge: nor holds "suppress"),
 * and none says yes with a name that is more than ASCII, punctuation and spaces once accents are
 * off: such a name may say "suppressed" unreadably.
 */
const noNearMiss = (o: Obj, known: readonly string[], vault = false): boolean =>
  Object.keys(o).every((k) => known.includes(k) || (!isNearMiss(k, known, vault) && !(yes(o[k]) && /[^ -~\p{P}\p{Zs}]/u.test(k.normalize("NFD").replace(/[\u0300-\u0362]/g, "")))));

const labelTableOk = (t: unknown): boolean =>
  t === null || (isObj(t) && Object.values(t).every((label) => nonEmpty(label)));

/** True exactly when `x` is a valid source under D1. */
export function isValidSource(x: unknown): boolean {
  if (!isObj(x)) return false;
  // The top level and an edge refuse a key holding "suppress" too: only a vault's own withholds.
  if (!noNearMiss(x, ["registry_schema_version", "generated_at", "source_inventory_sha", "licence", "labels", "vaults", "edges"], true)) return false;
  if (!nonEmpty(x["registry_schema_version"]) || !has(x, "registry_schema_version")) return false;
  if (!has(x, "generated_at") || !isTimestamp(x["generated_at"])) return false;
  const sha = x["source_inventory_sha"];
  if (!has(x, "source_inventory_sha") || !str(sha) || !/^[0-9a-f]+$/.test(sha) || ![40, 64].includes(sha.length)) return false;
  const licence = has(x, "licence") ? x["licence"] : null;
  if (licence !== null && !(isObj(licence) && noNearMiss(licence, ["id", "url"]) && has(licence, "id") && nonEmpty(licence["id"]) && has(licence, "url") && isHttpUrl(licence["url"]))) return false;
  const labels = has(x, "labels") ? x["labels"] : null;
  if (labels !== null && !(isObj(labels) && noNearMiss(labels, ["class", "status"]) && optionalKey(labels, "class", labelTableOk) && optionalKey(labels, "status", labelTableOk))) return false;

  const vaults = x["vaults"];
  const edges = x["edges"];
  if (!has(x, "vaults") || !Array.isArray(vaults) || !has(x, "edges") || !Array.isArray(edges)) return false;
  const slugs: string[] = [];
  for (const v of vaults as unknown[]) {
    if (!isObj(v) || !has(v, "vault_slug") || !has(v, "display_name") || !has(v, "status")) return false;
    if (!noNearMiss(v, ["vault_slug", "display_name", "class", "status", "persona", "note", "tagline", "last_synced", "suppressed"], true)) return false;
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
    if (!noNearMiss(e, ["source", "target", "type"], true)) return false;
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
