// json-schema-to-typescript reads draft 2020-12 as written (`$defs`, `const`, type arrays for `T | null`, `false`
// for a key that never appears) and keeps `additionalProperties` open as an index signature: the types say what the
// schema says.
import { compile } from "json-schema-to-typescript";
import { changeFeedSchema } from "../../feed/schema.ts";

const OPTIONS = {
  additionalProperties: true,
  strictIndexSignatures: false,
  unreachableDefinitions: false,
  format: true,
  style: { printWidth: 100 },
} as const;

/** The path of a version's types beside its schema: `/api/registry.v1.schema.json` gives `/api/registry.v1.d.ts`. */
export function typesPath(schemaPath: string): string {
  return schemaPath.replace(/\.schema\.json$/, ".d.ts");
}

/** The `.d.ts` text of `schema` (a served JSON Schema), the same for the same schema on any machine. */
export async function typesOf(schema: Record<string, unknown>, schemaPath: string): Promise<string> {
  const banner = `/* Types of ${schemaPath}, generated from it by json-schema-to-typescript. Do not edit. */`;
  // compile() annotates the object it is given: it gets a copy.
  return compile(structuredClone(schema) as never, "Registry", { bannerComment: banner, ...OPTIONS });
}

/** The path of a version's change-feed types beside its feed: `/api/registry.v1.changes.d.ts` for `.changes.json`. */
export function feedTypesPath(feedPath: string): string {
  return feedPath.replace(/\.json$/, ".d.ts");
}

/** The `.d.ts` text of a version's JSON change feed, standing alone: the document schema's definitions copied in. */
export async function feedTypesOf(documentSchema: Record<string, unknown>, feedPath: string): Promise<string> {
  const { $schema, $id: _id, title: _title, ...feed } = changeFeedSchema(
    feedPath,
    "#/$defs/row",
    "#/$defs/edge",
  ) as Record<string, any>;
  // The item and its extension as named definitions, so the types are ChangeFeedItem and RegistryChange.
  const item = feed["properties"]["items"]["items"];
  const change = item["properties"]["_registry"];
  const schema = {
    $schema,
    title: "ChangeFeed",
    ...feed,
    properties: {
      ...feed["properties"],
      items: { ...feed["properties"]["items"], items: { $ref: "#/$defs/change_feed_item" } },
    },
    $defs: {
      ...(documentSchema["$defs"] as Record<string, unknown>),
      change_feed_item: {
        ...item,
        title: "ChangeFeedItem",
        properties: { ...item["properties"], _registry: { $ref: "#/$defs/registry_change" } },
      },
      registry_change: { ...change, title: "RegistryChange" },
    },
  };
  const banner =
    `/* Types of ${feedPath} (JSON Feed 1.1 with the _registry extension), generated from its schema by json-schema-to-typescript. Do not edit. */`;
  return compile(structuredClone(schema) as never, "ChangeFeed", {
    bannerComment: banner,
    ...OPTIONS,
    ignoreMinAndMaxItems: true,
  });
}
