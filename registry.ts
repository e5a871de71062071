/** `buildRegistry` and `serializeRegistry`: every key written here is a literal, so the document is an allow-list. */
import { parseBaseUrl } from "./contract/config.ts";
import {
  type Coverage,
  COVERAGE_FIELDS,
  type CoverageField,
  type Edge,
  type Registry,
  type Row,
  SCHEMA_VERSION,
  type Tier,
  tierOf,
} from "./contract/document.ts";
import { compareCodeUnits } from "./contract/json.ts";
import { jsonTextLength } from "./contract/json-length.ts";
import { prettyJsonPieces } from "./contract/json-pieces.ts";
import { LimitError, MAX_DOCUMENT_BYTES, sizeOf } from "./contract/limits.ts";
import { isUtcTimestamp, NOT_A_TIMESTAMP, type Source, type SourceVault } from "./contract/source.ts";
export { type Source, validateSource, type Validation } from "./contract/source.ts";
export * from "./contract/document.ts";

/** What a build needs besides the source: `baseUrl` as `parseBaseUrl` gives it, `builtAt` an RFC 3339 UTC timestamp. */
export interface BuildOptions {
  readonly baseUrl: string;
  readonly builtAt: string;
  /** The addresses `about` names, relative to the base URL: from the version table (assembly/versions.ts). */
  readonly paths: { readonly canonical: string; readonly versioned: string; readonly schema: string };
}

const TIERS: Record<Tier, { label: string; meaning: string }> = {
  in_use: { label: "in use", meaning: "The vault is declared active: it is in use on this node." },
  chartered: { label: "chartered", meaning: "The vault is chartered: declared and approved, but not yet in use." },
  planned: {
    label: "planned",
    meaning: "The vault is declared but neither in use nor chartered: its status is neither active nor pending.",
  },
};

const VERSIONING_POLICY =
  "This is contract version 1.0, served at the versioned URL. A breaking change is published at a new " +
  "versioned URL (the next is /api/registry.v2.json); the previous versioned URL keeps serving for at " +
  "least 90 days after the new one is published, and the canonical URL /vaults.json moves to the new " +
  "version only after that window has closed. Once a successor is published, this version's answers say so " +
  'with the Deprecation, Sunset and Link (rel="successor-version") headers; after its sunset, its URL ' +
  "answers 410 Gone. Adding a field is not a breaking change and may happen " +
  "at any time: consumers must ignore keys they do not recognise. registry_schema_version is the " +
  "separate version of the underlying registry's schema.";

const CAVEAT = "Self-declared: every vault, status and relationship in this document is as declared by the operator " +
  "of one node, and nothing in it is corroborated by an external signal. It is not a census of adoption. " +
  "Sparse fields are sparse on purpose (internal language was removed from the public projection; see " +
  "field_coverage). last_synced records a registry sync, not vault activity, and is not a freshness signal.";

const LISTING_NOTE = "Minimal listing: this vault is real and governed, but its detail is private by ruling. " +
  "Keys this row omits are withheld, not unknown.";

/**
 * Builds the v1 document from a validated source. Pure: the same source and options give an equal
 * document, whatever the order of the source's arrays.
 *
 * @example
 * ```ts
 * const text = '{"registry_schema_version": "1.0", "generated_at": "2026-11-14T08:30:00Z", "source_inventory_sha": "' + "a".repeat(40) + '", "vaults": [], "edges": []}';
 * const result = validateSource(JSON.parse(text));
 * const paths = { canonical: "/vaults.json", versioned: "/api/registry.v1.json", schema: "/api/registry.v1.schema.json" };
 * if (result.ok) buildRegistry(result.source, { baseUrl: "https://example.org", builtAt: "2026-11-21T00:00:00Z", paths });
 * ```
 */
export function buildRegistry(source: Source, options: BuildOptions): Registry {
  const { baseUrl, builtAt, paths } = checkOptions(options);
  const classLabel = (raw: string | null): string | null =>
    // Stryker disable next-line ConditionalExpression: a Map has no null key, so get(null) ?? null is null too
    raw === null ? null : (source.classLabels.get(raw) ?? raw);
  const statusLabel = (raw: string): string => source.statusLabels.get(raw) ?? raw;

  // Each row is one complete object literal, so every row of a kind shares one compact shape.
  // The identity fields are written twice on purpose: building them once and spreading them left
  // large builds' rows in V8 dictionary mode, which made such a build several times slower.
  const rowOf = (v: SourceVault): Row => {
    if (v.suppressed) {
      return {
        vault_slug: v.vault_slug,
        display_name: v.display_name,
        class: v.class,
        class_label: classLabel(v.class),
        status: v.status,
        status_label: statusLabel(v.status),
        persona: v.persona,
        listing: "minimal",
        listing_note: LISTING_NOTE,
      };
    }
    const tier = tierOf(v.status);
    return {
      vault_slug: v.vault_slug,
      display_name: v.display_name,
      class: v.class,
      class_label: classLabel(v.class),
      status: v.status,
      status_label: statusLabel(v.status),
      tier,
      tier_label: TIERS[tier].label,
      tier_meaning: TIERS[tier].meaning,
      persona: v.persona,
      note: v.note,
      url: `${baseUrl}/vaults/${v.vault_slug}/`,
      markdown_url: `${baseUrl}/vaults/${v.vault_slug}.md`,
      last_synced: v.last_synced,
      tagline: null, // withheld in v1 whatever the source says (docs/document.md)
    };
  };

  const suppressed = new Set(source.vaults.filter((v) => v.suppressed).map((v) => v.vault_slug));
  const vaults = source.vaults.map(rowOf).sort((a, b) => compareCodeUnits(a.vault_slug, b.vault_slug));
  const edges = source.edges
    .filter((e) => !suppressed.has(e.source) && !suppressed.has(e.target))
    .map((e): Edge => ({ source: e.source, target: e.target, type: e.type }))
    .sort((a, b) =>
      compareCodeUnits(a.source, b.source) || compareCodeUnits(a.target, b.target) || compareCodeUnits(a.type, b.type)
    );

  return {
    schema_version: SCHEMA_VERSION,
    about: {
      canonical_url: baseUrl + paths.canonical,
      versioned_url: baseUrl + paths.versioned,
      schema_url: baseUrl + paths.schema,
      versioning_policy: VERSIONING_POLICY,
      licence: source.licence === null ? null : { id: source.licence.id, url: source.licence.url },
    },
    generated_at: source.generated_at,
    built_at: builtAt,
    snapshot_note: `This document is a build-time snapshot of one operator-run node's registry declarations, ` +
      `generated at ${source.generated_at}. It is not read live: it changes only when the registry is regenerated and rebuilt.`,
    registry_schema_version: source.registry_schema_version,
    source_inventory_sha: source.source_inventory_sha,
    caveat: CAVEAT,
    vault_count: vaults.length,
    edge_count: edges.length,
    field_coverage: coverageOf(vaults),
    vaults,
    edges,
  };
}

/**
 * How many rows populate each field: present, and not `null`, `""` or `[]` (docs/document.md).
 * Exported so that tests and `verify` recompute it from the rows.
 */
export function coverageOf(rows: readonly object[]): Record<CoverageField, Coverage> {
  const populated = COVERAGE_FIELDS.map(() => 0);
  for (const row of rows) {
    const record = row as Record<string, unknown>;
    for (let i = 0; i < COVERAGE_FIELDS.length; i++) {
      const field = COVERAGE_FIELDS[i] as CoverageField;
      if (!Object.hasOwn(record, field)) continue;
      const value = record[field];
      if (value !== null && value !== "" && !(Array.isArray(value) && value.length === 0)) populated[i]! += 1;
    }
  }
  return Object.fromEntries(
    COVERAGE_FIELDS.map((field, i) => [field, { populated: populated[i] as number, of: rows.length }]),
  ) as Record<CoverageField, Coverage>;
}

/**
 * The exact bytes of a document (docs/document.md): UTF-8 without BOM, two-space indentation,
 * keys in the document's order, non-ASCII as is, one trailing newline. A document over `limit`
 * bytes throws `LimitError`: one whose compact text is over already before any text is made (rows
 * that repeat the longest labels make a text many times the source), any other as its text is
 * made, a piece of 128 rows at a time, counted and dropped as soon as it is over.
 */
export function serializeRegistry(document: Registry, limit = MAX_DOCUMENT_BYTES): Uint8Array<ArrayBuffer> {
  const atLeast = jsonTextLength(document);
  if (atLeast > limit) {
    throw new LimitError(`the document would be over ${sizeOf(atLeast)}; the limit is ${sizeOf(limit)}`);
  }
  const encoder = new TextEncoder();
  let pieces: Uint8Array[] | undefined = [];
  let size = 1; // the trailing newline
  for (const text of prettyJsonPieces(document)) {
    const bytes = encoder.encode(text);
    size += bytes.byteLength;
    // Past the limit the text is dropped and only counted on, so that the refusal names the document's size.
    if (size > limit) pieces = undefined;
    else pieces?.push(bytes);
  }
  if (pieces === undefined) {
    throw new LimitError(`the document is ${sizeOf(size)}; the limit is ${sizeOf(limit)}`);
  }
  const whole = new Uint8Array(size);
  let at = 0;
  for (const bytes of pieces) {
    whole.set(bytes, at);
    at += bytes.byteLength;
  }
  whole[at] = 0x0a;
  return whole;
}

function checkOptions(options: BuildOptions): BuildOptions {
  const base = parseBaseUrl(options.baseUrl);
  if ("error" in base) throw new TypeError(`baseUrl: ${base.error}`);
  if (!isUtcTimestamp(options.builtAt)) {
    throw new TypeError(`builtAt: ${NOT_A_TIMESTAMP}, got ${JSON.stringify(options.builtAt)}`);
  }
  return { baseUrl: base.ok, builtAt: options.builtAt, paths: options.paths };
}
