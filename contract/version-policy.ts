/** The version lifecycle: a table that breaks the policy is refused here, so a build can never ship it. */
import type { Registry } from "./document.ts";
import { isCalendarDate, type Source } from "./source.ts";

/** The canonical, unversioned address: it serves the bytes of one versioned path. */
export const CANONICAL_PATH = "/vaults.json";

/** The minimum time a superseded version keeps serving, and `/vaults.json` waits to move. */
const RETENTION_DAYS = 90;

const DAY_MS = 86_400_000;

/** Where one version's document is built for, handed to its builder and schema. */
export interface VersionContext {
  readonly baseUrl: string;
  readonly builtAt: string;
  readonly paths: { readonly canonical: string; readonly versioned: string; readonly schema: string };
  /** The most bytes a document may have (contract/limits.ts); the builder refuses more with a LimitError. */
  readonly documentLimit?: number;
}

/** A built document: its exact bytes, the document itself, and the counts a start line reports. */
export interface BuiltDocument {
  readonly bytes: Uint8Array<ArrayBuffer>;
  /** The document the bytes serialize: the change feed reads its vaults and edges, and classifies it. */
  readonly document: Registry;
  readonly vaultCount: number;
  readonly edgeCount: number;
}

/** One contract version: a row of the version table. */
export interface ContractVersion {
  /** 1, 2, ...: the table lists them in order, without gaps. */
  readonly number: number;
  /** The versioned path of the document, like `/api/registry.v1.json`. */
  readonly path: string;
  readonly schemaPath: string;
  /** The path of its OpenAPI 3.1 description. */
  readonly openapiPath: string;
  /** The day it is first served, `YYYY-MM-DD` (from 00:00 UTC). */
  readonly published: string;
  /** The day it stops serving and answers 410 Gone instead, `YYYY-MM-DD`; absent: never. */
  readonly sunset?: string | undefined;
  readonly build: (source: Source, context: VersionContext) => BuiltDocument;
  readonly schema: (context: VersionContext) => Record<string, unknown>;
}

/** What one served version's answers say about its lifecycle. */
export interface ServedVersion {
  readonly version: ContractVersion;
  /** The published successor, once there is one. */
  readonly successor?: ContractVersion | undefined;
  /** `Deprecation` (RFC 9745): `@` and the epoch seconds of the successor's publication. */
  readonly deprecation?: string | undefined;
  /** `Sunset` (RFC 8594): the HTTP-date of the sunset, once deprecated and when one is set. */
  readonly sunset?: string | undefined;
}

/** What a build serves at its `built_at`. */
export interface Plan {
  /** Versions published and not sunset, oldest first. */
  readonly served: readonly ServedVersion[];
  /** Versions past their sunset: their paths answer 410, naming their successor. */
  readonly gone: readonly { readonly version: ContractVersion; readonly successor: ContractVersion }[];
  /** The version whose bytes `/vaults.json` serves. */
  readonly canonical: ContractVersion;
}

/** The epoch milliseconds of 00:00 UTC on a `YYYY-MM-DD` day, or NaN. */
function dayStart(day: string): number {
  return isCalendarDate(day) ? Date.parse(`${day}T00:00:00Z`) : Number.NaN;
}

/**
 * Every way `table` breaks the policy, one line each (empty when it keeps it): versions numbered 1, 2, ... in order;
 * real days, publications in order; no two paths alike, nor the canonical path; a sunset only with a successor, after
 * the successor's publication (the version's deprecation) and at least 90 days after it.
 */
function tableProblems(table: readonly ContractVersion[]): string[] {
  const problems: string[] = [];
  if (table.length === 0) return ["the version table is empty: nothing would be served"];
  const owners = new Map<string, string>([[CANONICAL_PATH, "the canonical address"]]);
  table.forEach((v, i) => {
    const name = `v${v.number}`;
    if (v.number !== i + 1) {
      problems.push(
        `${name}: row ${i + 1} of the version table must be v${i + 1}: versions are numbered 1, 2, 3, ... in order`,
      );
    }
    const paths = [["path", v.path], ["schema path", v.schemaPath], ["description path", v.openapiPath]] as const;
    for (const [what, path] of paths) {
      if (!path.startsWith("/")) problems.push(`${name}: its ${what} ${JSON.stringify(path)} must start with /`);
      const owner = owners.get(path);
      if (owner !== undefined) {
        problems.push(`${name}: two versions on one path: its ${what} ${path} is already ${owner}'s`);
      } else owners.set(path, name);
    }
    const published = dayStart(v.published);
    if (Number.isNaN(published)) {
      problems.push(`${name}: published ${JSON.stringify(v.published)} is not a day like 2026-11-21`);
    }
    const previous = table[i - 1];
    if (previous !== undefined && !Number.isNaN(published) && published <= dayStart(previous.published)) {
      problems.push(`${name}: published ${v.published}, not after v${previous.number} (${previous.published})`);
    }
    if (v.sunset === undefined) return;
    const sunset = dayStart(v.sunset);
    const successor = table[i + 1];
    if (Number.isNaN(sunset)) problems.push(`${name}: sunset ${JSON.stringify(v.sunset)} is not a day like 2027-03-01`);
    else if (successor === undefined) {
      problems.push(
        `${name}: sunset ${v.sunset}, but no successor: a version is deprecated only by a published successor`,
      );
    } else {
      const deprecated = dayStart(successor.published);
      if (Number.isNaN(deprecated)) return;
      const earliest = deprecated + RETENTION_DAYS * DAY_MS;
      if (sunset <= deprecated) {
        problems.push(
          `${name}: sunset ${v.sunset} is before its own deprecation (v${successor.number} published ${successor.published})`,
        );
      } else if (sunset < earliest) {
        problems.push(
          `${name}: sunset ${v.sunset} is less than ${RETENTION_DAYS} days after v${successor.number}'s publication (${successor.published}); the earliest allowed is ${
            new Date(earliest).toISOString().slice(0, 10)
          }`,
        );
      }
    }
  });
  return problems;
}

/**
 * What a build at `builtAt` serves from `table`: every version published and not sunset; `/vaults.json` the newest
 * version published at least 90 days before `builtAt` (the first version from its publication on). Refuses a table that
 * breaks the policy, and a `builtAt` before anything is published.
 */
export function planAt(table: readonly ContractVersion[], builtAt: string): { ok: Plan } | { problems: string[] } {
  const problems = tableProblems(table);
  if (problems.length > 0) return { problems: problems.map((p) => `version table: ${p}`) };
  const now = Date.parse(builtAt);
  const published = (v: ContractVersion) => dayStart(v.published) <= now;
  const first = table[0] as ContractVersion;
  if (!published(first)) {
    return {
      problems: [`built_at ${builtAt}: nothing is published yet (v${first.number} is published on ${first.published})`],
    };
  }

  const served: ServedVersion[] = [];
  const gone: { version: ContractVersion; successor: ContractVersion }[] = [];
  table.forEach((version, i) => {
    if (!published(version)) return;
    const next = table[i + 1];
    const successor = next !== undefined && published(next) ? next : undefined;
    if (version.sunset !== undefined && dayStart(version.sunset) <= now) {
      return void gone.push({ version, successor: successor as ContractVersion });
    }
    if (successor === undefined) return void served.push({ version });
    const deprecation = `@${dayStart(successor.published) / 1000}`;
    const sunset = version.sunset === undefined ? undefined : new Date(dayStart(version.sunset)).toUTCString();
    served.push({ version, successor, deprecation, sunset });
  });
  const settled = table.filter((v, i) =>
    published(v) && (i === 0 || dayStart(v.published) + RETENTION_DAYS * DAY_MS <= now)
  );
  const canonical = settled[settled.length - 1] as ContractVersion;
  return { ok: { served, gone, canonical } };
}

/** A version's change feeds beside its document, as `/api/registry.v1.changes.json` (JSON Feed) and `.atom` (Atom). */
export function changesPaths(version: Pick<ContractVersion, "path">): { readonly json: string; readonly atom: string } {
  const stem = version.path.replace(/\.json$/, "");
  return { json: `${stem}.changes.json`, atom: `${stem}.changes.atom` };
}

/** Every path the table can ever answer: the canonical one, then each version's five. */
export function tablePaths(table: readonly ContractVersion[]): string[] {
  return [
    CANONICAL_PATH,
    ...table.flatMap((v) => [v.path, v.schemaPath, v.openapiPath, changesPaths(v).json, changesPaths(v).atom]),
  ];
}

/** The context a version's builder and schema get in a build for `baseUrl` at `builtAt`. */
export function contextOf(
  version: ContractVersion,
  settings: { readonly baseUrl: string; readonly builtAt: string },
): VersionContext {
  return {
    baseUrl: settings.baseUrl,
    builtAt: settings.builtAt,
    paths: { canonical: CANONICAL_PATH, versioned: version.path, schema: version.schemaPath },
  };
}
