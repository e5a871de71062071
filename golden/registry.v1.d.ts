/* Types of /api/registry.v1.schema.json, generated from it by json-schema-to-typescript. Do not edit. */

export type Row = FullRow | MinimalRow;

/**
 * A build-time snapshot of one node's registry declarations. Consumers must ignore keys they do not recognise. In a minimal row, an omitted key is withheld by ruling; in any row, null means not known.
 */
export interface RegistryDocumentV1 {
  schema_version: "1.0";
  about: {
    canonical_url: string;
    versioned_url: string;
    schema_url: string;
    versioning_policy: string;
    licence: null | {
      id: string;
      url: string;
      [k: string]: unknown;
    };
    [k: string]: unknown;
  };
  generated_at: string;
  built_at: string;
  snapshot_note: string;
  registry_schema_version: string;
  source_inventory_sha: string;
  caveat: string;
  vault_count: number;
  edge_count: number;
  field_coverage: {
    vault_slug: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    display_name: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    class: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    class_label: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    status: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    status_label: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    tier: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    tier_label: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    tier_meaning: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    persona: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    note: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    url: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    markdown_url: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    last_synced: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    tagline: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    listing: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    listing_note: {
      populated: number;
      of: number;
      [k: string]: unknown;
    };
    [k: string]: unknown;
  };
  vaults: Row[];
  edges: Edge[];
  [k: string]: unknown;
}
export interface FullRow {
  vault_slug: string;
  display_name: string;
  class: string | null;
  class_label: string | null;
  status: string;
  status_label: string;
  persona: string | null;
  tier: "in_use" | "chartered" | "planned";
  tier_label: "in use" | "chartered" | "planned";
  tier_meaning: string;
  note: string | null;
  url: string;
  markdown_url: string;
  last_synced: string | null;
  tagline: null;
  listing?: never;
  listing_note?: never;
  [k: string]: unknown;
}
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
  tier?: never;
  tier_label?: never;
  tier_meaning?: never;
  note?: never;
  url?: never;
  markdown_url?: never;
  last_synced?: never;
  tagline?: never;
  [k: string]: unknown;
}
export interface Edge {
  source: string;
  target: string;
  type: string;
  [k: string]: unknown;
}
