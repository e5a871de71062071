/** The allow-list's front door: a `Source` holds only the keys the format names, so no internal key reaches a build. */
import { tierOf } from "./document.ts";
import { fold } from "./fold.ts";
import { isObject } from "./json.ts";
import { MAX_INTERNAL_KEY_LENGTH, MAX_INTERNAL_KEYS, MAX_STRING_LENGTH } from "./limits.ts";
import { MAX_PROBLEMS, type Warning } from "./messages.ts";

export type { Warning } from "./messages.ts";

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

/** The normalized source, or the first `MAX_PROBLEMS` problems and a count of the others (a short answer always). */
export type Validation =
  | { readonly ok: true; readonly source: Source; readonly warnings: readonly Warning[] }
  | { readonly ok: false; readonly problems: readonly string[]; readonly omitted: number };

/** What validation knows of the source's text that its parsed value no longer shows. */
export interface ValidationOptions {
  /** Indexes of vaults with a key repeated in the text: never quoted, since the copy JSON dropped may withhold. */
  readonly withheldVaults?: ReadonlySet<number>;
  /** Internal key names given beside the source (`--internal-keys`), joined with its `internal_keys` by one rule. */
  readonly internalKeys?: readonly string[];
  /** How messages name the list `internalKeys` (default `internalKeys`). */
  readonly internalKeysPlace?: string;
  /** The text repeats a top-level key: no vault is quoted, no undeclared key named (the lost copy may differ). */
  readonly repeatedAtTop?: boolean;
  /** False when names meant for `internalKeys` were refused before they got here: no undeclared key is then named. */
  readonly nameUndeclared?: boolean;
}

type Level = "top" | "licence" | "labels" | "vault" | "edge";

/** The keys the source format names at each level; any other key must be declared internal. */
export const KNOWN_KEYS: Readonly<Record<Level, readonly string[]>> = {
  top: [
    "$schema",
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
  vault: ["vault_slug", "display_name", "class", "status", "persona", "note", "tagline", "last_synced", "suppressed"],
  edge: ["source", "target", "type"],
};

/** The same keys as Sets, for the per-key test of 100k rows. */
const KNOWN_KEY_SETS = new Map((Object.keys(KNOWN_KEYS) as Level[]).map((l) => [l, new Set(KNOWN_KEYS[l])]));

const LEVEL_NAMES: Readonly<Record<Level, string>> = {
  top: "the top level",
  licence: "licence",
  labels: "labels",
  vault: "a vault",
  edge: "an edge",
};

const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

const TIMESTAMP_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const SHA_PATTERN = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

type JsonObject = { readonly [key: string]: unknown };

/**
 * Checks any value against the source format: the normalized source, or every problem prefixed with its JSON path
 * (`vaults[12].status: expected a string, got 3`). Never throws. Messages name places, never private content: a value
 * is quoted only where it would be published anyway (a full row's fields, any row's identity, the envelope); elsewhere
 * only its kind is named. A declared internal key is skipped unread and never named. An undeclared key is refused by
 * name (the operator needs it to declare or fix it), its value never quoted. A vault counts as withheld, for what
 * messages quote, when its `suppressed` is present and not `false`, when it or the top level holds an undeclared key,
 * or when a key of it is repeated in the text (`options`).
 *
 * @example
 * ```ts
 * const text = '{"internal_keys": ["owner"], "vaults": [{ "owner": "ops" }]}';
 * const result = validateSource(JSON.parse(text), { internalKeys: ["cost_centre"], internalKeysPlace: "--internal-keys" });
 * if (!result.ok) console.error(result.problems.join("\n"));
 * ```
 */
export function validateSource(value: unknown, options: ValidationOptions = {}): Validation {
  // A line is text, or a function that writes it once every place is counted (one line per undeclared key and level):
  // a message is made only when it is kept, and a source may hold millions of undeclared keys.
  const lines: (string | (() => string))[] = [];
  let omitted = 0;
  const report: Report = (path, message) => {
    if (lines.length < MAX_PROBLEMS) lines.push(`${path}: ${typeof message === "string" ? message : message()}`);
    else omitted++;
  };
  const refused = () => ({ ok: false as const, problems: lines.map((l) => typeof l === "string" ? l : l()), omitted });

  if (!isObject(value)) {
    report("$", `expected an object, got ${kindOf(value)}`);
    return refused();
  }
  const warnings: Warning[] = [];
  const warnName = (line: string): void => void warnings.push({ kind: "public-name", line });
  const internalKeys = options.internalKeys ?? [];
  const outside = checkInternalKeys(internalKeys, options.internalKeysPlace ?? "internalKeys", report, warnName);
  const declared = readInternalKeys(value, outside, report, warnName);
  // While a declaration is refused, or the top level repeats a key, a key not declared may be one the operator meant to
  // declare: it is named by position, never by name.
  const nameKeys = declared.complete && outside.length === internalKeys.length &&
    options.repeatedAtTop !== true && options.nameUndeclared !== false;
  let undeclaredAbove = false;
  const undeclared = new UndeclaredKeys(declared.names, nameKeys, (line) => {
    if (lines.length < MAX_PROBLEMS) return lines.push(line) > 0;
    omitted++;
    return false;
  });
  const unknownKeys: UnknownKeys = (obj, level, at) => {
    const found = undeclared.refuse(obj, level, at);
    if (level !== "vault" && level !== "edge") undeclaredAbove ||= found;
    return found;
  };
  unknownKeys(value, "top", "$");
  if (Object.hasOwn(value, "$schema") && typeof value["$schema"] !== "string") {
    report("$schema", `expected a string (the URL of a JSON Schema), got ${kindOf(value["$schema"])}`);
  }

  const registrySchemaVersion = required(value, "registry_schema_version", "", report, nonEmptyString);
  const generatedAt = required(value, "generated_at", "", report, timestamp);
  const sha = required(value, "source_inventory_sha", "", report, inventorySha);
  const licence = readLicence(value, report, unknownKeys);
  const { classLabels, statusLabels } = readLabels(value, report, unknownKeys);
  // An undeclared key above the vaults (`private_vaults`, `labels.hidden`) may name any vault, and a repeated `vaults`
  // or `edges` may say another thing than the copy JSON kept: none is quoted.
  const everyVaultWithheld = undeclaredAbove || options.repeatedAtTop === true;
  const withheldVaults = everyVaultWithheld ? { has: () => true } : (options.withheldVaults ?? new Set<number>());
  const warnCase = (line: string): void => void warnings.push({ kind: "status-case", line });
  const { vaults, slugs, withheld } = readVaults(value, report, unknownKeys, withheldVaults, warnCase);
  const edges = readEdges(value, slugs, withheld, report, unknownKeys);

  // Each is undefined only when a problem was reported: this narrows the types.
  if (
    lines.length > 0 || registrySchemaVersion === undefined || generatedAt === undefined || sha === undefined ||
    vaults === undefined || edges === undefined
  ) {
    return refused();
  }
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

/** What a value that is not a timestamp is told. */
export const NOT_A_TIMESTAMP = "expected an RFC 3339 UTC timestamp like 2026-11-14T08:30:00Z";

/** True when `text` is an RFC 3339 UTC timestamp with whole seconds naming a real instant. */
export function isUtcTimestamp(text: string): boolean {
  const m = TIMESTAMP_PATTERN.exec(text);
  return m !== null && isRealDate(Number(m[1]), Number(m[2]), Number(m[3])) && Number(m[4]) < 24 && Number(m[5]) < 60 &&
    Number(m[6]) < 60;
}

/** True when `text` is a `YYYY-MM-DD` date that exists in the calendar. */
export function isCalendarDate(text: string): boolean {
  const m = DATE_PATTERN.exec(text);
  return m !== null && isRealDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** True when the day exists in the proleptic Gregorian calendar as Date counts (year 0 leaps); 100k rows ask it. */
function isRealDate(year: number, month: number, day: number): boolean {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a month outside 1 to 12 has no entry in MONTH_DAYS, and a day compared with undefined is false as well
  if (month < 1 || month > 12) return false;
  if (day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : (MONTH_DAYS[month - 1] as number));
}

type Report = (path: string, message: string | (() => string)) => void;
/** Refuses an object's undeclared keys (see UndeclaredKeys); true when it has one. */
type UnknownKeys = (obj: JsonObject, level: Level, at: string) => boolean;
/**
 * Checks one value; returns the accepted value, or what was expected (the caller says what it got) and, for a string
 * over the limit, its length (said only where the value may be quoted).
 */
type Check<T> = (value: unknown) => { ok: T } | { expected: string; length?: number };

const tooLong = (value: string) => ({
  expected: `expected at most ${MAX_STRING_LENGTH} characters`,
  length: value.length,
});

function nonEmptyString(value: unknown): ReturnType<Check<string>> {
  if (typeof value === "string" && value.length > MAX_STRING_LENGTH) return tooLong(value);
  return typeof value === "string" && value.length > 0
    ? { ok: value }
    : { expected: typeof value === "string" ? "expected a non-empty string" : "expected a string" };
}

function anyString(value: unknown): ReturnType<Check<string>> {
  if (typeof value === "string" && value.length > MAX_STRING_LENGTH) return tooLong(value);
  return typeof value === "string" ? { ok: value } : { expected: "expected a string" };
}

function stringOrNull(value: unknown): ReturnType<Check<string | null>> {
  if (typeof value === "string" && value.length > MAX_STRING_LENGTH) return tooLong(value);
  return value === null || typeof value === "string" ? { ok: value } : { expected: "expected a string or null" };
}

function check<T>(accepts: (value: unknown) => boolean, expected: string): Check<T> {
  return (value) => accepts(value) ? { ok: value as T } : { expected };
}
const isString = (value: unknown): value is string => typeof value === "string";
const timestamp = check<string>((v) => isString(v) && isUtcTimestamp(v), NOT_A_TIMESTAMP);
const dateOrNull = check<string | null>(
  (v) => v === null || (isString(v) && isCalendarDate(v)),
  "expected a YYYY-MM-DD date or null",
);
const inventorySha = check<string>(
  (v) => isString(v) && SHA_PATTERN.test(v),
  "expected 40 or 64 lowercase hex characters",
);
const slug = check<string>(
  (v) => isString(v) && SLUG_PATTERN.test(v),
  "expected a slug matching ^[a-z0-9]+(-[a-z0-9]+)*$",
);
const httpUrl = check<string>((v) => isString(v) && isHttpUrl(v), "expected an absolute http or https URL");
const boolean = check<boolean>((v) => typeof v === "boolean", "expected a boolean");
const array = check<unknown[]>(Array.isArray, "expected an array");

/** What a message says was expected and what it got: the value itself where it is public, else only its kind. */
const said = (result: { expected: string; length?: number }, value: unknown, quote: boolean): string =>
  quote
    ? `${result.expected}${result.length === undefined ? "" : ` (this string has ${result.length})`}, got ${
      describe(value)
    }`
    : `${result.expected}, got ${kindOf(value)}`;

/** Reads a key that must be present. Reports and returns undefined when it is missing or wrong. */
function required<T>(
  obj: JsonObject,
  key: string,
  at: string,
  report: Report,
  check: Check<T>,
  quote = true,
): T | undefined {
  const result = Object.hasOwn(obj, key) ? check(obj[key]) : undefined;
  if (result !== undefined && "ok" in result) return result.ok;
  // The path is made only for a report: a valid source of 100k vaults never needs one.
  report(
    at === "" ? key : `${at}.${key}`,
    result === undefined ? "required key is missing" : said(result, obj[key], quote),
  );
  return undefined;
}

/** Reads a key that may be absent; absent gives `fallback`. */
function optional<T>(
  obj: JsonObject,
  key: string,
  at: string,
  report: Report,
  check: Check<T>,
  fallback: T,
  quote = true,
): T {
  if (!Object.hasOwn(obj, key)) return fallback;
  const result = check(obj[key]);
  if ("ok" in result) return result.ok;
  report(`${at}.${key}`, said(result, obj[key], quote));
  return fallback;
}

function readLicence(root: JsonObject, report: Report, unknownKeys: UnknownKeys): Source["licence"] {
  if (!Object.hasOwn(root, "licence") || root["licence"] === null) return null;
  const licence = root["licence"];
  if (!isObject(licence)) {
    report("licence", `expected an object with id and url, or null, got ${kindOf(licence)}`);
    return null;
  }
  unknownKeys(licence, "licence", "licence");
  const id = required(licence, "id", "licence", report, nonEmptyString);
  const url = required(licence, "url", "licence", report, httpUrl);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: either is undefined only when a problem was reported
  return id === undefined || url === undefined ? null : { id, url };
}

function readLabels(
  root: JsonObject,
  report: Report,
  unknownKeys: UnknownKeys,
): Pick<Source, "classLabels" | "statusLabels"> {
  const empty = { classLabels: new Map<string, string>(), statusLabels: new Map<string, string>() };
  if (!Object.hasOwn(root, "labels") || root["labels"] === null) return empty;
  const labels = root["labels"];
  if (!isObject(labels)) {
    report("labels", `expected an object, got ${kindOf(labels)}`);
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

function readLabelTable(
  labels: JsonObject,
  key: "class" | "status",
  root: JsonObject,
  report: Report,
): Map<string, string> {
  const table = new Map<string, string>();
  if (!Object.hasOwn(labels, key) || labels[key] === null) return table;
  const raw = labels[key];
  const at = `labels.${key}`;
  if (!isObject(raw)) {
    report(at, `expected an object of raw value to label, got ${kindOf(raw)}`);
    return table;
  }
  // Which raw values some vault declares is asked only of a bad label: a valid table costs nothing.
  let used: Set<unknown> | undefined;
  Object.entries(raw).forEach(([rawValue, label], i) => {
    if (typeof label === "string" && label.length > MAX_STRING_LENGTH) {
      report(at, `key #${i + 1}: ${tooLong(label).expected} (this string has ${label.length})`);
    } else if (rawValue.length > MAX_STRING_LENGTH) {
      report(at, `key #${i + 1}: a raw value of ${rawValue.length} characters; at most ${MAX_STRING_LENGTH}`);
    } else if (typeof label === "string" && label.length > 0) table.set(rawValue, label);
    // A raw value no vault declares, and its label, are never published: name it by position.
    else if ((used ??= usedValues(root, key)).has(rawValue)) {
      report(`${at}${member(rawValue)}`, `expected a non-empty string label, got ${describe(label)}`);
    } else {report(
        at,
        `key #${i + 1} (a raw value no vault declares): expected a non-empty string label, got ${kindOf(label)}`,
      );}
  });
  return table;
}

/**
 * The valid vaults; every slug declared (valid vault or not) for edges to refer to; and the slugs whose detail is
 * withheld, whose values beyond identity are never quoted: fail closed, a vault is withheld unless `suppressed` is
 * absent or plainly `false`, it has no undeclared key, and no key of it is repeated in the text (`withheldVaults`).
 */
function readVaults(
  root: JsonObject,
  report: Report,
  unknownKeys: UnknownKeys,
  withheldVaults: { has(index: number): boolean },
  warn: (line: string) => void,
): { vaults?: SourceVault[]; slugs?: Slugs; withheld: Set<string> } {
  const withheld = new Set<string>();
  const list = required(root, "vaults", "", report, array, false);
  // Stryker disable next-line ObjectLiteral: with no vault list no edge's end is declared, so withheld is never asked
  if (list === undefined) return { withheld };
  const vaults: SourceVault[] = [];
  const firstIndex = new Map<string, number>();
  const malformed = new Set<string>();
  list.forEach((item: unknown, i) => {
    const at = `vaults[${i}]`;
    if (!isObject(item)) {
      report(at, `expected an object, got ${kindOf(item)}`);
      return;
    }
    const undeclared = unknownKeys(item, "vault", at);
    const published = (!Object.hasOwn(item, "suppressed") || item["suppressed"] === false) && !withheldVaults.has(i) &&
      !undeclared;
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
    // Asked only of a status that is not exactly one of the two: most of 100k rows are.
    const folded = status === undefined || status === "active" || status === "pending"
      ? undefined
      : status.trim().toLowerCase();
    const meant = folded === "active" || folded === "pending" ? folded : undefined;
    if (meant !== undefined) {
      const shown = `${quoted(status as string, 60)} is not "${meant}"`;
      warn(`${at}.status: ${shown}: its tier is planned, not ${tierOf(meant)} (tier follows the exact value)`);
    }
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
  return { vaults, slugs: { has: (slug) => firstIndex.has(slug) || malformed.has(slug) }, withheld };
}

/** The slugs declared by some vault, valid or not. */
type Slugs = { has(slug: string): boolean };

function readEdges(
  root: JsonObject,
  declared: Slugs | undefined,
  withheld: ReadonlySet<string>,
  report: Report,
  unknownKeys: UnknownKeys,
): SourceEdge[] | undefined {
  const list = required(root, "edges", "", report, array, false);
  if (list === undefined) return undefined;
  const firstIndex = new Map<string, number>();
  /** Edges whose values no message may quote (an undeclared key of theirs, or an end withheld). */
  const unquoted = new Set<number>();
  const edges: SourceEdge[] = [];
  // An edge is published only between two vaults published in full; only then are its values quoted. Each end is
  // looked up once: at 100k edges the lookups are most of this loop's time. A Map answers false for a non-string.
  const isDeclared = (end: unknown): boolean => declared?.has(end as string) === true;
  list.forEach((item: unknown, i) => {
    const at = `edges[${i}]`;
    if (!isObject(item)) {
      report(at, `expected an object, got ${kindOf(item)}`);
      return;
    }
    const undeclared = unknownKeys(item, "edge", at);
    const sourceDeclared = isDeclared(item["source"]);
    const targetDeclared = isDeclared(item["target"]);
    const quote = !undeclared && sourceDeclared && targetDeclared && !withheld.has(item["source"] as string) &&
      !withheld.has(item["target"] as string);
    const source = required(item, "source", at, report, anyString, false);
    const target = required(item, "target", at, report, anyString, false);
    const type = required(item, "type", at, report, nonEmptyString, quote);
    // Without a readable vault list, dangling ends cannot be judged, so they are not reported.
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
      const triple = quote && !unquoted.has(first)
        ? ` = [${[source, target, type].map((t) => quoted(t)).join(",")}]`
        : "";
      return report(at, `duplicate edge: the same (source, target, type)${triple} as edges[${first}]`);
    }
    firstIndex.set(identity, i);
    if (!quote) unquoted.add(i);
    edges.push({ source, target, type });
  });
  return edges;
}

/** Every key the format reads at some level, and where. */
const READ_AT = new Map<string, Level[]>();
for (const [level, keys] of Object.entries(KNOWN_KEYS) as [Level, readonly string[]][]) {
  for (const key of keys) READ_AT.set(key, [...(READ_AT.get(key) ?? []), level]);
}

/**
 * Checks declared internal key names (`internal_keys`, or `--internal-keys` beside it) and returns those accepted:
 * strings of 1 to MAX_INTERNAL_KEY_LENGTH characters, no repeats, no look-alike of `suppressed` (it would publish what it
 * meant to withhold), at most MAX_INTERNAL_KEYS with `elsewhere`'s. Problems name an entry by place (`at[3]`), never by
 * name; a name the format reads at some level gets one warning, quoting it, since it is the format's own.
 *
 * @example
 * ```ts
 * const problems: string[] = [];
 * const declared = checkInternalKeys(["sync_owner", "note"], "--internal-keys", (at, m) => problems.push(`${at}: ${m}`), console.warn);
 * // declared: ["sync_owner", "note"]; one warning, about "note", which a vault reads
 * ```
 */
export function checkInternalKeys(
  names: readonly unknown[],
  at: string,
  report: (path: string, message: string) => void,
  warn: (line: string) => void,
  elsewhere: ReadonlySet<string> = new Set(),
): string[] {
  // Distinct names of both lists; a list alone over the limit is refused without counting.
  const total = names.length > MAX_INTERNAL_KEYS ? names.length : new Set([...names, ...elsewhere]).size;
  if (total > MAX_INTERNAL_KEYS) {
    report(at, `${total} names in all; the limit is ${MAX_INTERNAL_KEYS}`);
    return [];
  }
  const first = new Map<string, number>();
  const accepted: string[] = [];
  names.forEach((name, i) => {
    const place = `${at}[${i}]`;
    if (typeof name !== "string") return report(place, `expected a key name (a string), got ${kindOf(name)}`);
    if (name.length === 0 || name.length > MAX_INTERNAL_KEY_LENGTH) {
      return report(place, `expected a key name of 1 to ${MAX_INTERNAL_KEY_LENGTH} characters, got ${name.length}`);
    }
    const earlier = first.get(name);
    if (earlier !== undefined) return report(place, `the same name as ${at}[${earlier}]`);
    first.set(name, i);
    if (editDistance(Array.from(fold(name)), foldedKeysOf().suppressed, 1) <= 1) {
      return report(
        place,
        `a name that folds to within one edit of "suppressed" cannot be declared internal: only "suppressed": true withholds a vault, and a look-alike or misspelling of it would publish the vault in full`,
      );
    }
    accepted.push(name);
    const levels = READ_AT.get(name);
    // A name the other list declares too was warned of there.
    if (levels !== undefined && !elsewhere.has(name)) {
      const where = levels.map((l) => LEVEL_NAMES[l]).join(" and ");
      warn(
        `${place}: ${
          quoted(name)
        } is a key the format reads on ${where}, where it stays the format's; it is internal only at the other levels`,
      );
    }
  });
  return accepted;
}

/** The declared internal key names, `outside` and `internal_keys` (checked here); `complete` when all are accepted. */
function readInternalKeys(
  root: JsonObject,
  outside: readonly string[],
  report: Report,
  warn: (line: string) => void,
): { names: ReadonlySet<string>; complete: boolean } {
  const names = new Set(outside);
  if (!Object.hasOwn(root, "internal_keys") || root["internal_keys"] === null) return { names, complete: true };
  const list = root["internal_keys"];
  if (!Array.isArray(list)) {
    report("internal_keys", `expected an array of key names, got ${kindOf(list)}`);
    return { names, complete: false };
  }
  const accepted = checkInternalKeys(list, "internal_keys", report, warn, names);
  for (const name of accepted) names.add(name);
  return { names, complete: accepted.length === list.length };
}

/** Where one undeclared key was refused at one level: how many places, and the first. */
interface Refusal {
  count: number;
  readonly firstAt: string;
  /** The key's position among the first place's keys, 1 first: how it is named when names are not. */
  readonly position: number;
}

/** Distinct undeclared keys past the problem list's end that are still told apart, so each counts once. */
const MAX_OMITTED_KEYS = 100_000;

/**
 * Refuses each key neither named by the format at its level nor declared, one line per key and level however many rows
 * hold it (`vaults[*].owner: undeclared key, in 20 vaults (first vaults[0])`), naming the key (by position when
 * `nameKeys` is false) and what it may have meant; never its value. A look-alike of `suppressed` is never offered for
 * declaring: declaring it would be refused.
 */
class UndeclaredKeys {
  readonly #seen = new Map<Level, Map<string, Refusal | null>>();
  #tracked = 0;

  readonly #declared: ReadonlySet<string>;
  readonly #nameKeys: boolean;
  /** Adds a line to the problem list, written when the list is read; false when the list was full. */
  readonly #keep: (line: () => string) => boolean;

  constructor(declared: ReadonlySet<string>, nameKeys: boolean, keep: (line: () => string) => boolean) {
    this.#declared = declared;
    this.#nameKeys = nameKeys;
    this.#keep = keep;
  }

  /** Refuses `obj`'s undeclared keys, at `at` on `level`; true when it has one. */
  refuse(obj: JsonObject, level: Level, at: string): boolean {
    const known = KNOWN_KEY_SETS.get(level) as ReadonlySet<string>;
    let seen = this.#seen.get(level);
    let found = false;
    let position = 0;
    for (const key in obj) {
      position++;
      if (known.has(key) || this.#declared.has(key)) continue;
      found = true;
      seen ??= this.#seen.set(level, new Map()).get(level) as Map<string, Refusal | null>;
      const before = seen.get(key);
      if (before !== undefined) {
        if (before !== null) before.count++;
        continue;
      }
      const refusal: Refusal = { count: 1, firstAt: at, position };
      const kept = this.#keep(() => this.#line(key, level, refusal));
      // Past the list's end a key is remembered only to count it once, and only so many.
      if (kept || this.#tracked++ < MAX_OMITTED_KEYS) seen.set(key, kept ? refusal : null);
    }
    return found;
  }

  #line(key: string, level: Level, { count, firstAt, position }: Refusal): string {
    const plural = level === "vault" ? "vaults" : "edges";
    const place = count > 1 ? `${plural}[*]` : firstAt;
    if (!this.#nameKeys) {
      const which = count > 1 ? `, in ${count} ${plural} (first ${firstAt}, its key #${position}; ` : ` #${position} (`;
      return `${place}: undeclared key${which}not named while the declaration of internal keys is refused or repeated): not a key of ${
        LEVEL_NAMES[level]
      }`;
    }
    const where = count > 1 ? `, in ${count} ${plural} (first ${firstAt})` : "";
    const head = (lookAlike: boolean) =>
      `${pathOf(place, key, lookAlike)}: undeclared key${where}: not a key of ${LEVEL_NAMES[level]}`;
    const declare = "it is internal, list it in internal_keys (or --internal-keys)";
    const only = `did you mean "suppressed"? Only "suppressed": true`;
    // A key too long to declare is not folded either: folding may make it 18 times longer.
    if (key.length > MAX_INTERNAL_KEY_LENGTH) {
      return `${
        head(false)
      }, and too long to declare (a declared name has at most ${MAX_INTERNAL_KEY_LENGTH} characters)`;
    }
    const folded = Array.from(fold(key));
    if (editDistance(folded, foldedKeysOf().suppressed, 1) <= 1) {
      return `${head(true)}: ${only}${
        level === "vault" ? "" : " on a vault"
      } withholds, and this name cannot be declared`;
    }
    const meant = didYouMean(folded, level);
    // A near miss of "suppressed" is not offered for declaring either: it may mean to withhold the vault.
    if (meant === "suppressed") return `${head(true)}: ${only} withholds a vault`;
    if (meant !== undefined) return `${head(true)}: did you mean ${quoted(meant)}? If ${declare}`;
    return `${head(false)}; if ${declare}`;
  }
}

/** The path of `key` in the object at `at` (`vaults[3].owner`, `vaults[*]["odd key"]`, `owner`), the key `shownKey`. */
function pathOf(at: string, key: string, lookAlike: boolean): string {
  if (key.length <= SHOWN_KEY_CHARACTERS && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
    return at === "$" ? key : `${at}.${key}`;
  }
  return `${at === "$" ? "$" : at}[${shownKey(key, lookAlike)}]`;
}

/**
 * `suppressed` and the keys of each level, folded, one element per character: made on first use,
 * since folding at import would slow every program's start, the server's too.
 */
let foldedKeys: { suppressed: string[]; byLevel: Map<Level, { key: string; folded: string[] }[]> } | undefined;

function foldedKeysOf(): NonNullable<typeof foldedKeys> {
  return foldedKeys ??= {
    suppressed: Array.from(fold("suppressed")),
    byLevel: new Map(
      (Object.keys(KNOWN_KEYS) as Level[]).map((level) => [
        level,
        KNOWN_KEYS[level].map((key) => ({ key, folded: Array.from(fold(key)) })),
      ]),
    ),
  };
}

/** The key of `level` that the `folded` key is within two edits of, the nearest first; else undefined. */
function didYouMean(folded: readonly string[], level: Level): string | undefined {
  let best: { key: string; distance: number } | undefined;
  for (const candidate of foldedKeysOf().byLevel.get(level) ?? []) {
    const distance = editDistance(folded, candidate.folded, 2);
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { key: candidate.key, distance };
  }
  return best?.key;
}

/** The longest part of an undeclared key a message shows, in characters. */
const SHOWN_KEY_CHARACTERS = 64;

/**
 * A key as a message shows it: `quoted`, cut at 64 characters with `…`; with `lookAlike`, every character outside
 * printable ASCII escaped too (`\u0455uppressed`), so that a look-alike never prints as the key it imitates.
 */
export function shownKey(key: string, lookAlike = false): string {
  const shown = quoted(key, SHOWN_KEY_CHARACTERS, "…");
  return lookAlike ? shown.replace(/[^\x20-\x7e]/gu, escapeOf) : shown;
}

/**
 * Text as a message quotes it: a JSON string, with every control, format (such as a direction override), separator
 * other than the ASCII space, unassigned or default-ignorable code point written as an escape, so that a terminal shows
 * what the text holds; cut at `max` characters (a surrogate pair never split), `cut` marking a cut.
 */
export function quoted(text: string, max = Infinity, cut = "..."): string {
  const characters = text.length > max ? Array.from(text.slice(0, 2 * max + 2)) : undefined;
  const kept = characters === undefined || characters.length <= max ? text : characters.slice(0, max).join("");
  return unshownEscaped(JSON.stringify(kept)) + (kept === text ? "" : cut);
}

/**
 * What a terminal would not show as itself: every control, format, separator but the ASCII space, lone surrogate
 * half, private-use, unassigned or default-ignorable code point. Made on first use, from a string: V8 reads these
 * Unicode classes when it parses a module holding them as a literal (about 5 million instructions, 2 ms), which the
 * Node server's start, whose messages need them only for a bad setting, would otherwise pay.
 */
let unshown: RegExp | undefined;

/** `text` with each character a terminal would not show as itself written as an escape, but those in `kept`. */
export function unshownEscaped(text: string, kept = ""): string {
  unshown ??= new RegExp("(?! )[\\p{C}\\p{Z}\\p{Default_Ignorable_Code_Point}]", "gu");
  return text.replace(unshown, (c) => (kept.includes(c) ? c : escapeOf(c)));
}

/** A character as messages escape it: `\u` and four hex digits, `\u{…}` past them (JSON text takes only the first). */
export function escapeOf(c: string): string {
  const hex = (c.codePointAt(0) as number).toString(16);
  return hex.length > 4 ? `\\u{${hex}}` : `\\u${hex.padStart(4, "0")}`;
}

/**
 * The optimal string alignment distance (insert, delete, substitute, swap neighbours) between strings (by UTF-16 code
 * unit) or arrays of characters, or `limit + 1` once it is sure to pass `limit`.
 */
export function editDistance(a: string | readonly string[], b: string | readonly string[], limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let smallest = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, (before[j - 2] as number) + 1);
      }
      row.push(d);
      smallest = Math.min(smallest, d);
    }
    if (smallest > limit) return limit + 1;
    before = previous;
    previous = row;
  }
  return Math.min(previous[b.length] as number, limit + 1);
}

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === "http:" || protocol === "https:";
}

/** A path segment for an object member: `.name` for identifiers, `["odd key"]` otherwise. */
function member(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${quoted(key, 60)}]`;
}

/** The kind of a value, for messages about a place whose values are private (`a string`, `null`). */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value === "") return "an empty string";
  const kind = typeof value;
  return kind === "object" ? "an object" : kind === "undefined" ? "undefined" : `a ${kind}`;
}

/** A short, JSON-like description of a value for error messages (`3`, `null`, `"abc"`, `an array`), a string `quoted`. */
function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") {
    // An excerpt ends before a surrogate pair it would split.
    const end = /[\ud800-\udbff]/.test(value.charAt(56)) ? 56 : 57;
    return quoted(value.length > 60 ? `${value.slice(0, end)}...` : value);
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return typeof value === "object" ? "an object" : typeof value;
}
