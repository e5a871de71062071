/**
 * The source: the node's internal registry declaration (DECISIONS.md D1), and its validation.
 *
 * `validateSource` is the allow-list's front door: it reads only the keys D1 names and returns a
 * normalized `Source` that holds nothing else, so an internal key can never reach the build.
 * Web standards only; this module runs unchanged on Node, Deno, Bun and in a Lambda bundle.
 */

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

/** The outcome of validation: the normalized source, or every problem found. */
export type Validation =
  | { readonly ok: true; readonly source: Source; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly problems: readonly string[] };

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
 * @example
 * const result = validateSource(JSON.parse(text));
 * if (!result.ok) console.error(result.problems.join("\n"));
 */
export function validateSource(value: unknown): Validation {
  const problems: string[] = [];
  const report = (path: string, message: string): void => {
    problems.push(`${path}: ${message}`);
  };

  if (!isObject(value)) {
    report("$", `expected an object, got ${describe(value)}`);
    return { ok: false, problems };
  }
  const warnings: string[] = [];
  reportNearMisses(value, "top", "$", report);

  const registrySchemaVersion = required(value, "registry_schema_version", "", report, nonEmptyString);
  const generatedAt = required(value, "generated_at", "", report, timestamp);
  const sha = required(value, "source_inventory_sha", "", report, inventorySha);
  const licence = readLicence(value, report);
  const { classLabels, statusLabels } = readLabels(value, report);
  const { vaults, declared } = readVaults(value, report, (path, message) => warnings.push(`${path}: ${message}`));
  const edges = readEdges(value, declared, report);

  if (problems.length > 0) return { ok: false, problems };
  // Stryker disable next-line ConditionalExpression,LogicalOperator: each is undefined only when a problem was reported
  if (registrySchemaVersion === undefined || generatedAt === undefined || sha === undefined || vaults === undefined || edges === undefined) {
    return { ok: false, problems };
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

/** True when `text` is an RFC 3339 UTC timestamp with whole seconds naming a real instant. */
export function isUtcTimestamp(text: string): boolean {
  const m = TIMESTAMP_PATTERN.exec(text);
  if (m === null) return false;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  return isRealDate(y, mo, d) && h < 24 && mi < 60 && s < 60;
}

/** True when `text` is a `YYYY-MM-DD` date that exists in the calendar. */
export function isCalendarDate(text: string): boolean {
  const m = DATE_PATTERN.exec(text);
  if (m === null) return false;
  const [, y, mo, d] = m.map(Number) as [number, number, number, number];
  return isRealDate(y, mo, d);
}

/**
 * True when the day exists in that month of that year. An impossible day or month overflows into
 * another month (day 30 of February is in March; month 13 is January), so the month tells.
 * setUTCFullYear, unlike Date.UTC, does not read years 0 to 99 as 1900 to 1999.
 */
function isRealDate(year: number, month: number, day: number): boolean {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCMonth() === month - 1;
}

// --- field readers -------------------------------------------------------------------------------

type Report = (path: string, message: string) => void;
/** Checks one value; returns the accepted value, or a message saying what was expected. */
type Check<T> = (value: unknown) => { ok: T } | { error: string };

function nonEmptyString(value: unknown): { ok: string } | { error: string } {
  if (typeof value !== "string") return { error: `expected a string, got ${describe(value)}` };
  if (value.length === 0) return { error: "expected a non-empty string, got \"\"" };
  return { ok: value };
}

function anyString(value: unknown): { ok: string } | { error: string } {
  return typeof value === "string" ? { ok: value } : { error: `expected a string, got ${describe(value)}` };
}

function stringOrNull(value: unknown): { ok: string | null } | { error: string } {
  if (value === null || typeof value === "string") return { ok: value };
  return { error: `expected a string or null, got ${describe(value)}` };
}

function timestamp(value: unknown): { ok: string } | { error: string } {
  if (typeof value === "string" && isUtcTimestamp(value)) return { ok: value };
  return { error: `expected an RFC 3339 UTC timestamp like 2026-11-14T08:30:00Z, got ${describe(value)}` };
}

function dateOrNull(value: unknown): { ok: string | null } | { error: string } {
  if (value === null || (typeof value === "string" && isCalendarDate(value))) return { ok: value };
  return { error: `expected a YYYY-MM-DD date or null, got ${describe(value)}` };
}

function inventorySha(value: unknown): { ok: string } | { error: string } {
  if (typeof value === "string" && SHA_PATTERN.test(value)) return { ok: value };
  return { error: `expected 40 or 64 lowercase hex characters, got ${describe(value)}` };
}

function slug(value: unknown): { ok: string } | { error: string } {
  if (typeof value === "string" && SLUG_PATTERN.test(value)) return { ok: value };
  return { error: `expected a slug matching ^[a-z0-9]+(-[a-z0-9]+)*$, got ${describe(value)}` };
}

function httpUrl(value: unknown): { ok: string } | { error: string } {
  if (typeof value === "string" && isHttpUrl(value)) return { ok: value };
  return { error: `expected an absolute http or https URL, got ${describe(value)}` };
}

function boolean(value: unknown): { ok: boolean } | { error: string } {
  return typeof value === "boolean" ? { ok: value } : { error: `expected a boolean, got ${describe(value)}` };
}

/** Reads a key that must be present. Reports and returns undefined when it is missing or wrong. */
function required<T>(obj: JsonObject, key: string, at: string, report: Report, check: Check<T>): T | undefined {
  const path = at + (at === "" ? "" : ".") + key;
  if (!Object.hasOwn(obj, key)) {
    report(path, "required key is missing");
    return undefined;
  }
  const result = check(obj[key]);
  if ("error" in result) {
    report(path, result.error);
    return undefined;
  }
  return result.ok;
}

/** Reads a key that may be absent; absent gives `fallback`. */
function optional<T>(obj: JsonObject, key: string, at: string, report: Report, check: Check<T>, fallback: T): T {
  if (!Object.hasOwn(obj, key)) return fallback;
  const result = check(obj[key]);
  if ("error" in result) {
    report(`${at}.${key}`, result.error);
    return fallback;
  }
  return result.ok;
}

function readLicence(root: JsonObject, report: Report): Source["licence"] {
  if (!Object.hasOwn(root, "licence") || root["licence"] === null) return null;
  const licence = root["licence"];
  if (!isObject(licence)) {
    report("licence", `expected an object with id and url, or null, got ${describe(licence)}`);
    return null;
  }
  reportNearMisses(licence, "licence", "licence", report);
  const id = required(licence, "id", "licence", report, nonEmptyString);
  const url = required(licence, "url", "licence", report, httpUrl);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: either is undefined only when a problem was reported
  return id === undefined || url === undefined ? null : { id, url };
}

function readLabels(root: JsonObject, report: Report): Pick<Source, "classLabels" | "statusLabels"> {
  const empty = { classLabels: new Map<string, string>(), statusLabels: new Map<string, string>() };
  if (!Object.hasOwn(root, "labels") || root["labels"] === null) return empty;
  const labels = root["labels"];
  if (!isObject(labels)) {
    report("labels", `expected an object, got ${describe(labels)}`);
    return empty;
  }
  reportNearMisses(labels, "labels", "labels", report);
  return {
    classLabels: readLabelTable(labels, "class", report),
    statusLabels: readLabelTable(labels, "status", report),
  };
}

function readLabelTable(labels: JsonObject, key: "class" | "status", report: Report): Map<string, string> {
  const table = new Map<string, string>();
  if (!Object.hasOwn(labels, key) || labels[key] === null) return table;
  const raw = labels[key];
  if (!isObject(raw)) {
    report(`labels.${key}`, `expected an object of raw value to label, got ${describe(raw)}`);
    return table;
  }
  for (const [rawValue, label] of Object.entries(raw)) {
    if (typeof label === "string" && label.length > 0) table.set(rawValue, label);
    else report(`labels.${key}${member(rawValue)}`, `expected a non-empty string label, got ${describe(label)}`);
  }
  return table;
}

/** The valid vaults, and every slug declared (valid vault or not) for edges to refer to. */
function readVaults(root: JsonObject, report: Report, warn: Report): { vaults?: SourceVault[]; declared?: Set<string> } {
  if (!Object.hasOwn(root, "vaults")) {
    report("vaults", "required key is missing");
    return {};
  }
  const list = root["vaults"];
  if (!Array.isArray(list)) {
    report("vaults", `expected an array, got ${describe(list)}`);
    return {};
  }
  const vaults: SourceVault[] = [];
  const firstIndex = new Map<string, number>();
  const malformed = new Set<string>();
  list.forEach((item: unknown, i) => {
    const at = `vaults[${i}]`;
    if (!isObject(item)) {
      report(at, `expected an object, got ${describe(item)}`);
      return;
    }
    reportNearMisses(item, "vault", at, report);
    const vaultSlug = required(item, "vault_slug", at, report, slug);
    // A malformed slug is still declared: its edges are not dangling, only the slug is wrong.
    if (vaultSlug === undefined && typeof item["vault_slug"] === "string") malformed.add(item["vault_slug"]);
    if (vaultSlug !== undefined) {
      const first = firstIndex.get(vaultSlug);
      if (first === undefined) firstIndex.set(vaultSlug, i);
      else report(`${at}.vault_slug`, `duplicate slug "${vaultSlug}", first declared at vaults[${first}]`);
    }
    const displayName = required(item, "display_name", at, report, nonEmptyString);
    const status = required(item, "status", at, report, anyString);
    const meant = status === undefined ? undefined : (["active", "pending"] as const).find((s) => s !== status && s === status.trim().toLowerCase());
    if (meant !== undefined) warn(`${at}.status`, `${JSON.stringify(status)} is not "${meant}": its tier is planned, not ${tierNameOf(meant)} (tier follows the exact value)`);
    const vaultClass = optional(item, "class", at, report, stringOrNull, null);
    const persona = optional(item, "persona", at, report, stringOrNull, null);
    const note = optional(item, "note", at, report, stringOrNull, null);
    const lastSynced = optional(item, "last_synced", at, report, dateOrNull, null);
    const suppressed = optional(item, "suppressed", at, report, boolean, false);
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
  return { vaults, declared: new Set([...firstIndex.keys(), ...malformed]) };
}

function readEdges(root: JsonObject, declared: ReadonlySet<string> | undefined, report: Report): SourceEdge[] | undefined {
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
  const edges: SourceEdge[] = [];
  list.forEach((item: unknown, i) => {
    const at = `edges[${i}]`;
    if (!isObject(item)) {
      report(at, `expected an object, got ${describe(item)}`);
      return;
    }
    reportNearMisses(item, "edge", at, report);
    const source = required(item, "source", at, report, anyString);
    const target = required(item, "target", at, report, anyString);
    const type = required(item, "type", at, report, nonEmptyString);
    for (const [key, end] of [["source", source], ["target", target]] as const) {
      if (end !== undefined && declared !== undefined && !declared.has(end)) {
        report(`${at}.${key}`, `${describe(end)} is not the slug of a declared vault`);
      }
    }
    if (source === undefined || target === undefined || type === undefined) return;
    const identity = JSON.stringify([source, target, type]);
    const first = firstIndex.get(identity);
    if (first !== undefined) {
      report(at, `duplicate edge (source, target, type) = ${identity}, first declared at edges[${first}]`);
      return;
    }
    firstIndex.set(identity, i);
    edges.push({ source, target, type });
  });
  return edges;
}

// --- near misses ---------------------------------------------------------------------------------

function tierNameOf(status: "active" | "pending"): string {
  return status === "active" ? "in_use" : "chartered";
}

/**
 * Refuses every unknown key of `obj` that is a near miss of a key the format knows there: equal
 * ignoring case, `_` and `-`, or within edit distance 2 (transpositions count as one edit) of a
 * known key of 5 or more letters. Unknown keys are internal and never published, so a misspelled
 * `suppressed` would otherwise publish a private row: when in doubt, refuse.
 */
function reportNearMisses(obj: JsonObject, level: Level, at: string, report: Report): void {
  for (const key of Object.keys(obj)) {
    if (KNOWN_KEYS[level].includes(key)) continue;
    const meant = nearMissOf(key, FOLDED[level]);
    if (meant !== undefined) {
      report(at, `unknown key ${JSON.stringify(key)}: did you mean ${JSON.stringify(meant)}? (rename it, or give an internal key a name that is not a near miss)`);
    }
  }
}

/** The known key that `key` nearly spells, if any; `known` pairs each known key with its folded form. */
function nearMissOf(key: string, known: readonly (readonly [string, string])[]): string | undefined {
  const folded = fold(key);
  const lower = key.toLowerCase();
  return known.find(([k, f]) => f === folded || (k.length >= 5 && Math.abs(lower.length - k.length) <= 2 && editDistance(lower, k) <= 2))?.[0];
}

const fold = (key: string): string => key.toLowerCase().replace(/[_-]/g, "");

/** Each level's known keys with their folded forms, computed once rather than per unknown key. */
const withFolds = (keys: readonly string[]) => keys.map((k) => [k, fold(k)] as const);
const FOLDED: Readonly<Record<Level, readonly (readonly [string, string])[]>> = {
  top: withFolds(KNOWN_KEYS.top),
  licence: withFolds(KNOWN_KEYS.licence),
  labels: withFolds(KNOWN_KEYS.labels),
  vault: withFolds(KNOWN_KEYS.vault),
  edge: withFolds(KNOWN_KEYS.edge),
};

/**
 * Damerau-Levenshtein distance (insertions, deletions, substitutions and adjacent transpositions,
 * any edit may touch a transposed pair: "uasppressed" is 2 from "suppressed"), Lowrance-Wagner.
 */
function editDistance(a: string, b: string): number {
  const inf = a.length + b.length;
  const lastRow = new Map<string, number>();
  const d: number[][] = [Array.from({ length: b.length + 2 }, () => inf)];
  for (let i = 0; i <= a.length; i++) d.push([inf, ...Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0))]);
  for (let i = 1; i <= a.length; i++) {
    let lastMatchColumn = 0;
    for (let j = 1; j <= b.length; j++) {
      const i1 = lastRow.get(b[j - 1] as string) ?? 0;
      const j1 = lastMatchColumn;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      if (cost === 0) lastMatchColumn = j;
      const row = d[i + 1] as number[];
      row[j + 1] = Math.min(
        (d[i] as number[])[j]! + cost,
        row[j]! + 1,
        (d[i] as number[])[j + 1]! + 1,
        (d[i1] as number[])[j1]! + (i - i1 - 1) + 1 + (j - j1 - 1),
      );
    }
    lastRow.set(a[i - 1] as string, i);
  }
  return (d[a.length + 1] as number[])[b.length + 1] as number;
}

// --- helpers -------------------------------------------------------------------------------------

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True for an absolute http(s) URL. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
    // Stryker disable next-line BlockStatement: without it the function returns undefined, also falsy
  } catch {
    return false;
  }
}

/** A path segment for an object member: `.name` for identifiers, `["odd key"]` otherwise. */
function member(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
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
