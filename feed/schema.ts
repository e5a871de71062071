/** JSON Schema (draft 2020-12) of the JSON change feed; rows and edges by `$ref` to the document's own schema. */
import { FEED_LIMITS, JSON_FEED_VERSION } from "./feed.ts";

const utcTimestamp = { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$" } as const;
const slug = { type: "string", pattern: "^[a-z0-9]+(-[a-z0-9]+)*$" } as const;
const strongEtag = { type: "string", pattern: '^"[0-9a-f]{32}"$' } as const;

/** An object with `properties`, all required; `exact`: and no other key. */
const objectOf = (exact: boolean) => (properties: Record<string, unknown>) => ({
  type: "object",
  required: Object.keys(properties),
  properties,
  ...(exact ? { additionalProperties: false } : {}),
});

/** The schema of the `_registry` extension of one item; `exact` admits no key beyond those described. */
function registryChangeSchema(rowRef: string, edgeRef: string, exact: boolean): Record<string, unknown> {
  const object = objectOf(exact);
  const build = object({ built_at: utcTimestamp, etag: strongEtag });
  const list = (items: unknown) => ({ type: "array", items });
  const change = object({
    from: { oneOf: [{ type: "null" }, build] },
    to: build,
    class: { enum: ["data", "additive", "dangerous", "breaking"] },
    resync: { type: "boolean" },
    vaults: object({ upsert: list({ $ref: rowRef }), remove: list(slug) }),
    edges: object({ add: list({ $ref: edgeRef }), remove: list({ $ref: edgeRef }), remove_touching: list(slug) }),
  });
  return {
    ...change,
    // On the newest item only, so not required.
    properties: {
      ...change.properties,
      envelope: {
        type: "object",
        description: "On the newest item only: the `to` document's top-level members other than `vaults` and `edges`.",
      },
    },
    description:
      "How to bring a copy of the `from` document to the `to` document (each named by its built_at and identity ETag): vaults " +
      "`remove`, then `upsert` by vault_slug; edges `remove_touching` (every edge whose source or target is named), `remove`, then " +
      "`add`. Rows are as the current document shows them. Lists are sorted as the document sorts. `from: null` marks a snapshot, " +
      "the start of a history: its lists are empty, and a copy never merges it. `resync: true` means the lists would pass 1 MiB: they are empty, and a consumer refetches the " +
      "document. `class` is the worst class of the change, as `registry diff` classifies it.",
  };
}

/**
 * The schema of a whole JSON change feed, with the absolute `$id` given. As served (OpenAPI), it admits added keys
 * (consumers ignore keys they do not know); `exact` (a build checking a previous feed it will carry on) admits none.
 */
export function changeFeedSchema(id: string, rowRef: string, edgeRef: string, exact = false): Record<string, unknown> {
  const object = objectOf(exact);
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: id,
    title: "Registry change feed (JSON Feed 1.1)",
    ...object({
      version: { const: JSON_FEED_VERSION },
      title: { type: "string", minLength: 1 },
      home_page_url: { type: "string", format: "uri" },
      feed_url: { type: "string", format: "uri" },
      description: { type: "string" },
      language: { const: "en" },
      items: {
        type: "array",
        minItems: 1,
        maxItems: FEED_LIMITS.maxItems,
        items: object({
          id: { type: "string", minLength: 1 },
          url: { type: "string", format: "uri" },
          title: { type: "string", minLength: 1, maxLength: 2000 },
          content_text: { type: "string" },
          date_published: utcTimestamp,
          _registry: registryChangeSchema(rowRef, edgeRef, exact),
        }),
      },
    }),
  };
}
