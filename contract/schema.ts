/** Unknown keys are allowed where docs/document.md allows adding fields; a minimal row may not carry a withheld one. */
import { COVERAGE_FIELDS, FULL_ROW_KEYS, MINIMAL_ROW_KEYS } from "./document.ts";

const nullableString = { type: ["string", "null"] } as const;
const utcTimestamp = {
  type: "string",
  format: "date-time",
  pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$",
} as const;
const slug = { type: "string", pattern: "^[a-z0-9]+(-[a-z0-9]+)*$" } as const;
/** The keys both kinds of row carry, in a minimal row's order; and those a minimal row withholds, in a full row's. */
const SHARED = MINIMAL_ROW_KEYS.filter((key) => (FULL_ROW_KEYS as readonly string[]).includes(key));
const WITHHELD = FULL_ROW_KEYS.filter((key) => !(MINIMAL_ROW_KEYS as readonly string[]).includes(key));
const identity = {
  vault_slug: slug,
  display_name: { type: "string", minLength: 1 },
  class: nullableString,
  class_label: nullableString,
  status: { type: "string" },
  status_label: { type: "string" },
  persona: nullableString,
} as const satisfies Record<Extract<(typeof MINIMAL_ROW_KEYS)[number], (typeof FULL_ROW_KEYS)[number]>, unknown>;
const coverage = {
  type: "object",
  required: ["populated", "of"],
  properties: { populated: { type: "integer", minimum: 0 }, of: { type: "integer", minimum: 0 } },
} as const;

/** Builds the schema with the absolute `$id` it is served at (the version table names the path). */
export function registrySchema(id: string): Record<string, unknown> {
  const properties = {
    schema_version: { const: "1.0" },
    about: {
      type: "object",
      required: ["canonical_url", "versioned_url", "schema_url", "versioning_policy", "licence"],
      properties: {
        canonical_url: { type: "string", format: "uri" },
        versioned_url: { type: "string", format: "uri" },
        schema_url: { type: "string", format: "uri" },
        versioning_policy: { type: "string", minLength: 1 },
        licence: {
          oneOf: [
            { type: "null" },
            {
              type: "object",
              required: ["id", "url"],
              properties: { id: { type: "string" }, url: { type: "string", format: "uri" } },
            },
          ],
        },
      },
    },
    generated_at: utcTimestamp,
    built_at: utcTimestamp,
    snapshot_note: { type: "string", minLength: 1 },
    registry_schema_version: { type: "string", minLength: 1 },
    source_inventory_sha: { type: "string", pattern: "^([0-9a-f]{40}|[0-9a-f]{64})$" },
    caveat: { type: "string", minLength: 1 },
    vault_count: { type: "integer", minimum: 0 },
    edge_count: { type: "integer", minimum: 0 },
    field_coverage: {
      type: "object",
      required: [...COVERAGE_FIELDS],
      properties: Object.fromEntries(COVERAGE_FIELDS.map((field) => [field, coverage])),
    },
    vaults: { type: "array", items: { $ref: "#/$defs/row" } },
    edges: { type: "array", items: { $ref: "#/$defs/edge" } },
  };
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: id,
    title: "Registry document, v1",
    description:
      "A build-time snapshot of one node's registry declarations. Consumers must ignore keys they do not recognise. " +
      "In a minimal row, an omitted key is withheld by ruling; in any row, null means not known.",
    type: "object",
    required: Object.keys(properties),
    properties,
    $defs: {
      row: { oneOf: [{ $ref: "#/$defs/full_row" }, { $ref: "#/$defs/minimal_row" }] },
      full_row: {
        type: "object",
        required: [...SHARED, ...WITHHELD],
        properties: {
          ...identity,
          tier: { enum: ["in_use", "chartered", "planned"] },
          tier_label: { enum: ["in use", "chartered", "planned"] },
          tier_meaning: { type: "string", minLength: 1 },
          note: nullableString,
          url: { type: "string", format: "uri" },
          markdown_url: { type: "string", format: "uri" },
          last_synced: { type: ["string", "null"], format: "date", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
          tagline: { type: "null" },
          // Keys only a minimal row has: `false` admits no value, so the key may not appear.
          listing: false,
          listing_note: false,
        },
      },
      minimal_row: {
        type: "object",
        required: [...MINIMAL_ROW_KEYS],
        properties: {
          ...identity,
          listing: { const: "minimal" },
          listing_note: { type: "string", minLength: 1 },
          ...Object.fromEntries(WITHHELD.map((key) => [key, false])),
        },
      },
      edge: {
        type: "object",
        required: ["source", "target", "type"],
        properties: { source: slug, target: slug, type: { type: "string", minLength: 1 } },
      },
    },
  };
}
