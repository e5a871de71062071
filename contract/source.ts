/**
 * The source: the node's internal registry declaration (docs/choices.md), and its validation.
 *
 * `validateSource` is the allow-list's front door: it reads only the keys D1 names and returns a
 * normalized `Source` that holds nothing else, so an internal key can never reach the build.
 * Web standards only; this module runs unchanged on Node, Deno, Bun and in a Lambda bundle.
 */
import { nearMissJudge, readsPlainly, saysYes, type NearMiss } from "./key-names.ts";
import { MAX_KEY_LENGTH, MAX_STRING_LENGTH, MAX_UNKNOWN_KEY_CHARACTERS } from "./limits.ts";
import { MAX_PROBLEMS } from "./messages.ts";

/** A validated vault declaration; only the fields the build may read. */
export interface SourceVault {
  readonly vault_slug: string;
  readonly display_name: string;
  readonly class: string | null;
  readonly status: string;
  readonly persona: string | null;
  readonly note: string | null;
  readonly last_synced: string | null;
  readonly suppressed: boolean;
}

/** A validated edge declaration. */
export interface SourceEdge {
  readonly source: string;
  readonly target: string;
  readonly type: string;
}

/** A validated source. Label tables are Maps so that raw values such as `__proto__` stay data. */
export interface Source {
  readonly registry_schema_version: string;
  readonly generated_at: string;
  readonly source_inventory_sha: string;
  readonly licence: { readonly id: string; readonly url: string } | null;
  readonly classLabels: ReadonlyMap<string, string>;
  readonly statusLabels: ReadonlyMap<string, string>;
  readonly vaults: readonly SourceVault[];
  readonly edges: readonly SourceEdge[];
}

/** One warning: where, what, and its kind (warnings of one kind are summarized together). */
export interface Warning {
  readonly kind: "status-case" | "unknown-true" | "short-near-miss";
  readonly line: string;
}

/**
 * The outcome of validation: the normalized source, or the first `MAX_PROBLEMS` problems found and
 * a count of the others (a source with a problem in each of a million values stays a short answer).
 */
export type Validation =
  | { readonly ok: true; readonly source: Source; readonly warnings: readonly Warning[] }
  | { readonly ok: false; readonly problems: readonly string[]; readonly omitted: number };

/** What validation knows of the source's text that its parsed value no longer shows. */
export interface ValidationOptions {
  /**
   * Indexes of vaults with a key repeated in the text (JSON keeps only the last): whatever the
   * parsed value says, their detail is never quoted, since the repeated key may mean to withhold.
   */
  readonly withheldVaults?: ReadonlySet<number>;
}

/** The levels of a source that have keys of their own. */
type Level = "top" | "licence" | "labels" | "vault" | "edge";

/** The keys the source format knows at each level (D1); any other key is internal. */
export const KNOWN_KEYS: Readonly<Record<Level, readonly string[]>> = {
  top: ["registry_schema_version", "generated_at", "source_inventory_sha", "licence", "labels", "vaults", "edges"],
  licence: ["id", "url"],
  labels: ["class", "status"],
  vault: ["vault_slug", "display_name", "class", "status", "persona", "note", "tagline", "last_synced", "suppressed"],
  edge: ["source", "target", "type"],
};

/** The same keys as Sets, for the per-key test of 100k rows. */
const KNOWN_KEY_SETS: Readonly<Record<Level, ReadonlySet<string>>> = {
  top: new Set(KNOWN_KEYS.top),
  licence: new Set(KNOWN_KEYS.licence),
  labels: new Set(KNOWN_KEYS.labels),
  vault: new Set(KNOWN_KEYS.vault),
  edge: new Set(KNOWN_KEYS.edge),
};

/** The pattern D1 fixes for `vault_slug`. */
export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

const TIMESTAMP_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const SHA_PATTERN = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

type JsonObject = { readonly [key: string]: unknown };

/**
 * Checks any value against D1 and returns the normalized source or every problem, each prefixed
 * with its JSON path (`vaults[12].status: expected a string, got 3`). Never throws.
 *
 * Messages name places, never private content: a value is quoted only where it would be published
 * anyway (a full row's fields, any row's identity, the envelope); elsewhere only its type is named.
 * Unknown keys are internal, so their names are never printed: they are named by position. A vault
 * counts as withheld, for what messages quote, when any key of it means to withhold: `suppressed`
 * not plainly `false`, a key that nearly spells it, a key set to `true` whose name does not read
 * plainly, or a key repeated in the text (`options`).
 *
 * @example
 * const result = validateSource(JSON.parse(text));
 * if (!result.ok) console.error(result.problems.join("\n"));
 */
export function validateSource(value: unknown, options: ValidationOptions = {}): Validation {
  const problems: string[] = [];
  let omitted = 0;
  const report = (path: string, message: string): void => {
    if (problems.length < MAX_PROBLEMS) problems.push(`${path}: ${message}`);
    else omitted++;
  };

  if (!isObject(value)) {
    report("$", `expected an object, got ${describe(value)}`);
    return { ok: false, problems, omitted };
  }
  const warnings: Warning[] = [];
  const judges = nearMissJudges();
  const unknownKeys: UnknownKeys = (obj, level, at, published) =>
    reportUnknownKeys(obj, level, at, published, judges, report, (kind, line) => warnings.push({ kind, line }));
  // A top-level key that means to withhold (`suppressed_vaults`) may name any vault: none is quoted.
  const everyVaultWithheld = unknownKeys(value, "top", "$");

  const registrySchemaVersion = required(value, "registry_schema_version", "", report, nonEmptyString);
  const generatedAt = required(value, "generated_at", "", report, timestamp);
  const sha = required(value, "source_inventory_sha", "", report, inventorySha);
  const licence = readLicence(value, report, unknownKeys);
  const { classLabels, statusLabels } = readLabels(value, report, unknownKeys);
  const withheldVaults = everyVaultWithheld ? { has: () => true } : (options.withheldVaults ?? new Set<number>());
  const { vaults, declared, withheld } = readVaults(value, report, unknownKeys, withheldVaults, (line) => warnings.push({ kind: "status-case", line }));
  const edges = readEdges(value, declared, withheld, report, unknownKeys);

  if (problems.length > 0) return { ok: false, problems, omitted };
  // Stryker disable all: each is undefined only when a problem was reported, so this never returns (it narrows the types)
  if (registrySchemaVersion === undefined || generatedAt === undefined || sha === undefined || vaults === undefined || edges === undefined) {
    return { ok: false, problems, omitted };
  }
  // Stryker restore all
  return {
    ok: true,
    source: {
      registry_schema_version: registrySchemaVersion,
      generated_at: generatedAt,
      source_inventory_sha: sha,
      licence,
      classLabels,
      statusLabels,
      vaults,
      edges,
    },
    warnings,
  };
}

/** True when `text` is an RFC 3339 UTC timestamp with whole seconds naming a real instant. */
export function isUtcTimestamp(text: string): boolean {
  const m = TIMESTAMP_PATTERN.exec(text);
  return m !== null && isRealDate(Number(m[1]), Number(m[2]), Number(m[3])) && Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 60;
}

/** True when `text` is a `YYYY-MM-DD` date that exists in the calendar. */
export function isCalendarDate(text: string): boolean {
  const m = DATE_PATTERN.exec(text);
  return m !== null && isRealDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** Days in each month of a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * True when the day exists in that month of that year of the proleptic Gregorian calendar, as
 * JavaScript's Date counts (year 0 is a leap year). Arithmetic, not a Date: 100k rows ask it.
 */
function isRealDate(year: number, month: number, day: number): boolean {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a month outside 1 to 12 has no entry in MONTH_DAYS, and a day compared with undefined is false as well
  if (month < 1 || month > 12) return false;
  if (day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : (MONTH_DAYS[month - 1] as number));
}

// --- field readers -------------------------------------------------------------------------------

type Report = (path: string, message: string) => void;
/**
 * Judges `obj`'s unknown keys and tells `published` whether one of them means to withhold (a near
 * miss of `suppressed`); `published`, asked after the verdicts, says whether a vault is published in full.
 */
/** Judges an object's unknown keys (see reportUnknownKeys); true when one means (or may mean) to withhold. */
type UnknownKeys = (obj: JsonObject, level: Level, at: string, published?: (withholdingKey: boolean) => boolean) => boolean;
/** Checks one value; returns the accepted value, or what was expected (the caller says what it got). */
type Check<T> = (value: unknown) => { ok: T } | { expected: string };

/** What a string over the length limit is told. */
const tooLong = (value: string) => ({ expected: `expected at most ${MAX_STRING_LENGTH} characters (this string has ${value.length})` });

function nonEmptyString(value: unknown): { ok: string } | { expected: string } {
  if (typeof value === "string" && value.length > MAX_STRING_LENGTH) return tooLong(value);
  return typeof value === "string" && value.length > 0 ? { ok: value } : { expected: typeof value === "string" ? "expected a non-empty string" : "expected a string" };
}

function anyString(value: unknown): { ok: string } | { expected: string } {
  if (typeof value === "string" && value.length > MAX_STRING_LENGTH) return tooLong(value);
  return typeof value === "string" ? { ok: value } : { expected: "expected a string" };
}

function stringOrNull(value: unknown): { ok: string | null } | { expected: string } {
  if (typeof value === "string" && value.length > MAX_STRING_LENGTH) return tooLong(value);
  return value === null || typeof value === "string" ? { ok: value } : { expected: "expected a string or null" };
}

function timestamp(value: unknown): { ok: string } | { expected: string } {
  return typeof value === "string" && isUtcTimestamp(value) ? { ok: value } : { expected: "expected an RFC 3339 UTC timestamp like 2026-11-14T08:30:00Z" };
}

function dateOrNull(value: unknown): { ok: string | null } | { expected: string } {
  return value === null || (typeof value === "string" && isCalendarDate(value)) ? { ok: value } : { expected: "expected a YYYY-MM-DD date or null" };
}

function inventorySha(value: unknown): { ok: string } | { expected: string } {
  return typeof value === "string" && SHA_PATTERN.test(value) ? { ok: value } : { expected: "expected 40 or 64 lowercase hex characters" };
}

function slug(value: unknown): { ok: string } | { expected: string } {
  return typeof value === "string" && SLUG_PATTERN.test(value) ? { ok: value } : { expected: "expected a slug matching ^[a-z0-9]+(-[a-z0-9]+)*$" };
}

function httpUrl(value: unknown): { ok: string } | { expected: string } {
  return typeof value === "string" && isHttpUrl(value) ? { ok: value } : { expected: "expected an absolute http or https URL" };
}

function boolean(value: unknown): { ok: boolean } | { expected: string } {
  return typeof value === "boolean" ? { ok: value } : { expected: "expected a boolean" };
}

/** What a message says it got: the value itself where it is public, else only its kind. */
const shown = (value: unknown, quote: boolean): string => (quote ? describe(value) : kindOf(value));

/** Reads a key that must be present. Reports and returns undefined when it is missing or wrong. */
function required<T>(obj: JsonObject, key: string, at: string, report: Report, check: Check<T>, quote = true): T | undefined {
  // The path is made only for a report: a valid source of 100k vaults never needs one.
  if (!Object.hasOwn(obj, key)) {
    report(at === "" ? key : `${at}.${key}`, "required key is missing");
    return undefined;
  }
  const result = check(obj[key]);
  if ("expected" in result) {
    report(at === "" ? key : `${at}.${key}`, `${result.expected}, got ${shown(obj[key], quote)}`);
    return undefined;
  }
  return result.ok;
}

/** Reads a key that may be absent; absent gives `fallback`. */
function optional<T>(obj: JsonObject, key: string, at: string, report: Report, check: Check<T>, fallback: T, quote = true): T {
  if (!Object.hasOwn(obj, key)) return fallback;
  const result = check(obj[key]);
  if ("expected" in result) {
    report(`${at}.${key}`, `${result.expected}, got ${shown(obj[key], quote)}`);
    return fallback;
  }
  return result.ok;
}

function readLicence(root: JsonObject, report: Report, unknownKeys: UnknownKeys): Source["licence"] {
  if (!Object.hasOwn(root, "licence") || root["licence"] === null) return null;
  const licence = root["licence"];
  if (!isObject(licence)) {
    report("licence", `expected an object with id and url, or null, got ${describe(licence)}`);
    return null;
  }
  unknownKeys(licence, "licence", "licence");
  const id = required(licence, "id", "licence", report, nonEmptyString);
  const url = required(licence, "url", "licence", report, httpUrl);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: either is undefined only when a problem was reported
  return id === undefined || url === undefined ? null : { id, url };
}

function readLabels(root: JsonObject, report: Report, unknownKeys: UnknownKeys): Pick<Source, "classLabels" | "statusLabels"> {
  const empty = { classLabels: new Map<string, string>(), statusLabels: new Map<string, string>() };
  if (!Object.hasOwn(root, "labels") || root["labels"] === null) return empty;
  const labels = root["labels"];
  if (!isObject(labels)) {
    report("labels", `expected an object, got ${describe(labels)}`);
    return empty;
  }
  unknownKeys(labels, "labels", "labels");
  return {
    classLabels: readLabelTable(labels, "class", root, report),
    statusLabels: readLabelTable(labels, "status", root, report),
  };
}

/** The string values of `key` that some vault declares: their labels are published, others' are not. */
function usedValues(root: JsonObject, key: string): Set<unknown> {
  const used = new Set<unknown>();
  // Stryker disable next-line ArrayDeclaration: an entry that is not an object adds nothing
  const vaults = Array.isArray(root["vaults"]) ? root["vaults"] : [];
  for (const vault of vaults) if (isObject(vault)) used.add(vault[key]); // only a string can equal a raw value
  return used;
}

function readLabelTable(labels: JsonObject, key: "class" | "status", root: JsonObject, report: Report): Map<string, string> {
  const table = new Map<string, string>();
  if (!Object.hasOwn(labels, key) || labels[key] === null) return table;
  const raw = labels[key];
  if (!isObject(raw)) {
    report(`labels.${key}`, `expected an object of raw value to label, got ${describe(raw)}`);
    return table;
  }
  // Which raw values some vault declares is asked only of a bad label: a valid table costs nothing.
  let used: Set<unknown> | undefined;
  Object.entries(raw).forEach(([rawValue, label], i) => {
    if (typeof label === "string" && label.length > MAX_STRING_LENGTH) report(`labels.${key}`, `key #${i + 1}: ${tooLong(label).expected}`);
    else if (rawValue.length > MAX_STRING_LENGTH) report(`labels.${key}`, `key #${i + 1}: a raw value of ${rawValue.length} characters; at most ${MAX_STRING_LENGTH}`);
    else if (typeof label === "string" && label.length > 0) table.set(rawValue, label);
    // A raw value no vault declares, and its label, are never published: name it by position.
    else if ((used ??= usedValues(root, key)).has(rawValue)) report(`labels.${key}${member(rawValue)}`, `expected a non-empty string label, got ${describe(label)}`);
    else report(`labels.${key}`, `key #${i + 1} (a raw value no vault declares): expected a non-empty string label, got ${kindOf(label)}`);
  });
  return table;
}

/**
 * The valid vaults; every slug declared (valid vault or not) for edges to refer to; and the slugs
 * whose detail is withheld, whose values beyond identity are never quoted: fail closed, a vault is
 * withheld unless `suppressed` is absent or plainly `false`, no other key of it means to withhold,
 * and no key of it is repeated in the text (`withheldVaults`).
 */
function readVaults(
  root: JsonObject,
  report: Report,
  unknownKeys: UnknownKeys,
  withheldVaults: { has(index: number): boolean },
  warn: (line: string) => void,
): { vaults?: SourceVault[]; declared?: Declared; withheld: Set<string> } {
  const withheld = new Set<string>();
  if (!Object.hasOwn(root, "vaults")) {
    report("vaults", "required key is missing");
    // Stryker disable next-line ObjectLiteral: with no vault list no edge's end is declared, so withheld is never asked
    return { withheld };
  }
  const list = root["vaults"];
  if (!Array.isArray(list)) {
    report("vaults", `expected an array, got ${describe(list)}`);
    // Stryker disable next-line ObjectLiteral: as above
    return { withheld };
  }
  const vaults: SourceVault[] = [];
  const firstIndex = new Map<string, number>();
  const malformed = new Set<string>();
  list.forEach((item: unknown, i) => {
    const at = `vaults[${i}]`;
    if (!isObject(item)) {
      report(at, `expected an object, got ${kindOf(item)}`);
      return;
    }
    const plainlyPublished = (!Object.hasOwn(item, "suppressed") || item["suppressed"] === false) && !withheldVaults.has(i);
    let published = plainlyPublished;
    unknownKeys(item, "vault", at, (withholdingKey) => (published = plainlyPublished && !withholdingKey));
    // Stryker disable next-line ConditionalExpression: a vault_slug that is not a string is no edge's end, so adding it changes no answer
    if (!published && typeof item["vault_slug"] === "string") withheld.add(item["vault_slug"]);
    const vaultSlug = required(item, "vault_slug", at, report, slug);
    // A malformed slug is still declared: its edges are not dangling, only the slug is wrong.
    // Stryker disable next-line ConditionalExpression,LogicalOperator: memory only: a valid slug is in firstIndex too, and no edge's end is a non-string
    if (vaultSlug === undefined && typeof item["vault_slug"] === "string") malformed.add(item["vault_slug"]);
    if (vaultSlug !== undefined) {
      const first = firstIndex.get(vaultSlug);
      if (first === undefined) firstIndex.set(vaultSlug, i);
      else report(`${at}.vault_slug`, `duplicate slug "${vaultSlug}", first declared at vaults[${first}]`);
    }
    const displayName = required(item, "display_name", at, report, nonEmptyString);
    const status = required(item, "status", at, report, anyString);
    const meant = status === undefined ? undefined : (["active", "pending"] as const).find((s) => s !== status && s === status.trim().toLowerCase());
    if (meant !== undefined) warn(`${at}.status: ${JSON.stringify(status)} is not "${meant}": its tier is planned, not ${tierNameOf(meant)} (tier follows the exact value)`);
    const vaultClass = optional(item, "class", at, report, stringOrNull, null);
    const persona = optional(item, "persona", at, report, stringOrNull, null);
    const note = optional(item, "note", at, report, stringOrNull, null, published);
    const lastSynced = optional(item, "last_synced", at, report, dateOrNull, null, published);
    const suppressed = optional(item, "suppressed", at, report, boolean, false, false);
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a problem was reported, so the source is refused whatever is kept
    if (vaultSlug === undefined || displayName === undefined || status === undefined) return;
    vaults.push({
      vault_slug: vaultSlug,
      display_name: displayName,
      class: vaultClass,
      status,
      persona,
      note,
      last_synced: lastSynced,
      suppressed,
    });
  });
  // Asked of the two collections rather than copied into a third: a copy of 100,000 slugs costs memory.
  return { vaults, declared: { has: (slug) => firstIndex.has(slug) || malformed.has(slug) }, withheld };
}

/** The slugs declared by some vault, valid or not. */
interface Declared {
  has(slug: string): boolean;
}

function readEdges(root: JsonObject, declared: Declared | undefined, withheld: ReadonlySet<string>, report: Report, unknownKeys: UnknownKeys): SourceEdge[] | undefined {
  if (!Object.hasOwn(root, "edges")) {
    report("edges", "required key is missing");
    return undefined;
  }
  const list = root["edges"];
  if (!Array.isArray(list)) {
    report("edges", `expected an array, got ${describe(list)}`);
    return undefined;
  }
  // Without a readable vault list, dangling ends cannot be judged, so they are not reported.
  const firstIndex = new Map<string, number>();
  /** Edges whose values no message may quote (a key of theirs means to withhold, or an end is withheld). */
  const unquoted = new Set<number>();
  const edges: SourceEdge[] = [];
  // An edge is published only between two vaults published in full; only then are its values quoted.
  // Each end is looked up once: at 100k edges the lookups are most of this loop's time.
  // A Map of slugs answers false for an end that is not a string.
  const isDeclared = (end: unknown): boolean => declared?.has(end as string) === true;
  list.forEach((item: unknown, i) => {
    const at = `edges[${i}]`;
    if (!isObject(item)) {
      report(at, `expected an object, got ${kindOf(item)}`);
      return;
    }
    const edgeWithholds = unknownKeys(item, "edge", at);
    const sourceDeclared = isDeclared(item["source"]);
    const targetDeclared = isDeclared(item["target"]);
    const quote = !edgeWithholds && sourceDeclared && targetDeclared && !withheld.has(item["source"] as string) && !withheld.has(item["target"] as string);
    const source = required(item, "source", at, report, anyString, false);
    const target = required(item, "target", at, report, anyString, false);
    const type = required(item, "type", at, report, nonEmptyString, quote);
    if (declared !== undefined) {
      if (source !== undefined && !sourceDeclared) report(`${at}.source`, "not the slug of a declared vault");
      if (target !== undefined && !targetDeclared) report(`${at}.target`, "not the slug of a declared vault");
    }
    if (source === undefined || target === undefined || type === undefined) return;
    // Length-prefixed, so no two triples share a key; cheaper than JSON text for 100k edges.
    const identity = `${source.length}:${source}${target.length}:${target}${type}`;
    const first = firstIndex.get(identity);
    if (first !== undefined) {
      // The triple is the first copy's too: quoted only when neither copy may hide it.
      const shown = quote && !unquoted.has(first);
      report(at, `duplicate edge: the same (source, target, type)${shown ? ` = ${JSON.stringify([source, target, type])}` : ""} as edges[${first}]`);
      return;
    }
    firstIndex.set(identity, i);
    if (!quote) unquoted.add(i);
    edges.push({ source, target, type });
  });
  return edges;
}

// --- unknown keys --------------------------------------------------------------------------------

function tierNameOf(status: "active" | "pending"): string {
  return status === "active" ? "in_use" : "chartered";
}

/** Each level's judge of unknown keys, made once per validation so that verdicts are remembered. */
function nearMissJudges(): Record<Level, (key: string) => NearMiss | undefined> {
  const budget = { left: MAX_UNKNOWN_KEY_CHARACTERS };
  return {
    top: nearMissJudge(KNOWN_KEYS.top, { suppress: true }, budget),
    licence: nearMissJudge(KNOWN_KEYS.licence, {}, budget),
    labels: nearMissJudge(KNOWN_KEYS.labels, {}, budget),
    vault: nearMissJudge(KNOWN_KEYS.vault, { suppress: true, short: true }, budget),
    edge: nearMissJudge(KNOWN_KEYS.edge, { short: true, suppress: true }, budget),
  };
}

/**
 * Refuses every unknown key of `obj` that nearly spells a key the format knows there, or, on a
 * vault, a way of saying "suppressed" (see `key-names.ts`), and every key over MAX_KEY_LENGTH; on
 * a vault or an edge, warns of a key one edit from a short known key (`notes`), which stays
 * internal; at any level, refuses an unknown key that says yes (`saysYes`) and whose name does not
 * read plainly (`readsPlainly`: it may say "suppressed", or "not public", in a way no check reads);
 * on a vault published in full, warns of any other unknown key set to `true`, because only
 * `suppressed` withholds a vault. Unknown keys are internal: they are named by their position in
 * the object, never by name. Returns whether a key means (or, too long or not judged, may mean)
 * to withhold, and tells a vault's `published` so before any message is written.
 */
function reportUnknownKeys(
  obj: JsonObject,
  level: Level,
  at: string,
  published: ((withholdingKey: boolean) => boolean) | undefined,
  judges: ReturnType<typeof nearMissJudges>,
  report: Report,
  warn: (kind: Warning["kind"], line: string) => void,
): boolean {
  const known = KNOWN_KEY_SETS[level];
  // Remembered by the judge: asking again costs a lookup.
  const verdictOf = (key: string) => (key.length > MAX_KEY_LENGTH ? "too long" : judges[level](key));
  // One pass judges the unknown keys; a second, for messages, runs only when one has something to say.
  let withholding = false;
  // Stryker disable next-line BooleanLiteral: true only runs the second pass with nothing to say
  let toSay = false;
  for (const key in obj) {
    if (known.has(key)) continue;
    const verdict = verdictOf(key);
    const yes = saysYes(obj[key]);
    if (verdict !== undefined || yes) toSay = true;
    if (verdict === "too long" || verdict?.kind === "suppress" || verdict?.kind === "unjudged" || (verdict?.kind === "known" && verdict.meant === "suppressed") || (yes && !readsPlainly(key))) withholding = true;
  }
  // Only a vault passes `published`: whether it is published in full, given its keys.
  const inFull = published?.(withholding) ?? false;
  if (!toSay) return withholding;
  const keys = Object.keys(obj);
  const where = (i: number): string => `key #${i + 1} of ${keys.length} (an unknown key; its name is not printed)`;
  keys.forEach((key, i) => {
    if (known.has(key)) return;
    const verdict = verdictOf(key);
    if (verdict === "too long") {
      report(at, `${where(i)} has ${key.length} characters; the limit for a key is ${MAX_KEY_LENGTH}`);
    } else if (verdict?.kind === "unjudged") {
      report(at, `${where(i)} was not judged: the source's unknown key names pass ${MAX_UNKNOWN_KEY_CHARACTERS} characters in all once decomposed (NFKD), the limit; a name not judged might say "suppressed"`);
    } else if (verdict?.kind === "known") {
      report(at, `${where(i)} nearly spells "${verdict.meant}": did you mean "${verdict.meant}"? Rename it, or give the internal key a name that is not a near miss`);
    } else if (verdict?.kind === "suppress" && level === "vault") {
      report(at, `${where(i)} looks like a way to say "suppressed": did you mean "suppressed"? Only "suppressed": true withholds a vault; rename it, or give the internal key a name without "suppress"`);
    } else if (verdict?.kind === "suppress") {
      report(at, `${where(i)} looks like a way to say "suppressed", but only a vault's own "suppressed": true withholds it; rename it, or give the internal key a name without "suppress"`);
    } else if (saysYes(obj[key]) && !readsPlainly(key)) {
      report(at, `${where(i)} says yes, and its name holds characters other than ASCII letters and digits (with or without accents), punctuation and spaces (another script, a symbol, an invisible or direction control), so the build cannot tell whether it means "suppressed": only "suppressed": true withholds a vault; rename the key in ASCII, or remove it`);
    } else if (verdict?.kind === "short") {
      warn("short-near-miss", `${at}: ${where(i)} is one edit from "${verdict.meant}": did you mean "${verdict.meant}"? As it is, it is internal and not published`);
    } else if (inFull && obj[key] === true) { // inFull is only ever true on a vault published in full
      warn("unknown-true", `${at}: ${where(i)} is true, but only "suppressed": true withholds a vault: this vault is published in full`);
    }
  });
  return withholding;
}

// --- helpers -------------------------------------------------------------------------------------

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True for an absolute http(s) URL. */
export function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === "http:" || protocol === "https:";
}

/** A path segment for an object member: `.name` for identifiers, `["odd key"]` otherwise. */
function member(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** The kind of a value, for messages about a place whose values are private (`a string`, `null`). */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value === "") return "an empty string";
  const kind = typeof value;
  return kind === "object" ? "an object" : kind === "undefined" ? "undefined" : `a ${kind}`;
}

/** A short, JSON-like description of a value for error messages (`3`, `null`, `"abc"`, `an array`). */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string": {
      const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
      return JSON.stringify(shown);
    }
    case "number":
    case "boolean":
      return String(value);
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}
