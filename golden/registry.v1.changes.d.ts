/* Types of /api/registry.v1.changes.json (JSON Feed 1.1 with the _registry extension), generated from its schema by json-schema-to-typescript. Do not edit. */

export type Row = FullRow | MinimalRow;

export interface ChangeFeed {
  version: "https://jsonfeed.org/version/1.1";
  title: string;
  home_page_url: string;
  feed_url: string;
  description: string;
  language: "en";
  /**
   * @minItems 1
   * @maxItems 1000
   */
  items: ChangeFeedItem[];
  [k: string]: unknown;
}
export interface ChangeFeedItem {
  id: string;
  url: string;
  title: string;
  content_text: string;
  date_published: string;
  _registry: RegistryChange;
  [k: string]: unknown;
}
/**
 * How to bring a copy of the `from` document to the `to` document (each named by its built_at and identity ETag): vaults `remove`, then `upsert` by vault_slug; edges `remove_touching` (every edge whose source or target is named), `remove`, then `add`. Rows are as the current document shows them. Lists are sorted as the document sorts. `from: null` marks a snapshot, the start of a history: its lists are empty, and a copy never merges it. `resync: true` means the lists would pass 1 MiB: they are empty, and a consumer refetches the document. `class` is the worst class of the change, as `registry diff` classifies it.
 */
export interface RegistryChange {
  from: null | {
    built_at: string;
    etag: string;
    [k: string]: unknown;
  };
  to: {
    built_at: string;
    etag: string;
    [k: string]: unknown;
  };
  class: "data" | "additive" | "dangerous" | "breaking";
  resync: boolean;
  vaults: {
    upsert: Row[];
    remove: string[];
    [k: string]: unknown;
  };
  edges: {
    add: Edge[];
    remove: Edge[];
    remove_touching: string[];
    [k: string]: unknown;
  };
  /**
   * On the newest item only: the `to` document's top-level members other than `vaults` and `edges`.
   */
  envelope?: {
    [k: string]: unknown;
  };
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
