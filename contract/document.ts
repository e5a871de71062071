/** The contract version carried in `schema_version`. */
export const SCHEMA_VERSION = "1.0";

export type Tier = "in_use" | "chartered" | "planned";

/** The tier of a status (docs/document.md): it depends on the status alone. */
export function tierOf(status: string): Tier {
  if (status === "active") return "in_use";
  if (status === "pending") return "chartered";
  return "planned";
}

/** A vault that is published in full. Key order is the serialized order (docs/document.md). */
export interface FullRow {
  vault_slug: string;
  display_name: string;
  class: string | null;
  class_label: string | null;
  status: string;
  status_label: string;
  tier: Tier;
  tier_label: string;
  tier_meaning: string;
  persona: string | null;
  note: string | null;
  url: string;
  markdown_url: string;
  last_synced: string | null;
  tagline: null;
}

/** A suppressed vault: identity, class, status and persona only (docs/document.md). */
export interface MinimalRow {
  vault_slug: string;
  display_name: string;
  class: string | null;
  class_label: string | null;
  status: string;
  status_label: string;
  persona: string | null;
  listing: "minimal";
  listing_note: string;
}

export type Row = FullRow | MinimalRow;

const IDENTITY_KEYS = ["vault_slug", "display_name", "class", "class_label", "status", "status_label"] as const;

/** The keys of a full row, in the serialized order. */
export const FULL_ROW_KEYS = [
  ...IDENTITY_KEYS,
  "tier",
  "tier_label",
  "tier_meaning",
  "persona",
  "note",
  "url",
  "markdown_url",
  "last_synced",
  "tagline",
] as const satisfies readonly (keyof FullRow)[];

/** The keys of a minimal row, in the serialized order. */
export const MINIMAL_ROW_KEYS = [
  ...IDENTITY_KEYS,
  "persona",
  "listing",
  "listing_note",
] as const satisfies readonly (keyof MinimalRow)[];

/** `List` when it names every key of `T`; `never` (a type error where it is used) when a key of `T` is missing. */
type EveryKey<T, List extends readonly (keyof T)[]> = Exclude<keyof T, List[number]> extends never ? List : never;
// The interfaces state each key's type, the lists their order: tsc fails when the two name different keys.
const ROW_KEY_LISTS = [
  (FULL_ROW_KEYS satisfies EveryKey<FullRow, typeof FULL_ROW_KEYS>).join(","),
  (MINIMAL_ROW_KEYS satisfies EveryKey<MinimalRow, typeof MINIMAL_ROW_KEYS>).join(","),
];

/** True when `row`'s own keys are exactly a full row's or a minimal row's, in order. */
export function hasRowKeys(row: object): boolean {
  return ROW_KEY_LISTS.includes(Object.keys(row).join(","));
}

export interface Edge {
  source: string;
  target: string;
  type: string;
}

export interface Coverage {
  populated: number;
  of: number;
}

/** Every row key that `field_coverage` reports, in its fixed order (docs/document.md). */
export const COVERAGE_FIELDS = [...FULL_ROW_KEYS, "listing", "listing_note"] as const;

export type CoverageField = (typeof COVERAGE_FIELDS)[number];

/** The v1 registry document. Key order is the serialized order (docs/document.md). */
export interface Registry {
  schema_version: typeof SCHEMA_VERSION;
  about: {
    canonical_url: string;
    versioned_url: string;
    schema_url: string;
    versioning_policy: string;
    licence: { id: string; url: string } | null;
  };
  generated_at: string;
  built_at: string;
  snapshot_note: string;
  registry_schema_version: string;
  source_inventory_sha: string;
  caveat: string;
  vault_count: number;
  edge_count: number;
  field_coverage: Record<CoverageField, Coverage>;
  vaults: Row[];
  edges: Edge[];
}
