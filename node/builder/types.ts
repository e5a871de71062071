// json-schema-to-typescript reads draft 2020-12 as written (`$defs`, `const`, type arrays for `T | null`, `false`
// for a key that never appears) and keeps `additionalProperties` open as an index signature: the types say what the
// schema says.
import { readFile } from "node:fs/promises";
import { VERSIONS } from "../../assembly/versions.ts";
import { changesPaths } from "../../contract/version-policy.ts";
import { changeFeedSchema } from "../../feed/schema.ts";

/** Where the reviewed schemas and their types are: the repository's and the package's `golden/`. */
const GOLDEN = new URL("../../golden/", import.meta.url);

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

/**
 * The `.d.ts` text of the schema served at `schemaPath`: see `reviewedTypes`, else generated (`typesOf`).
 */
export async function servedTypesOf(schema: Record<string, unknown>, schemaPath: string): Promise<string> {
  return (await reviewedTypes(schema, schemaPath, (n) => `registry.v${n}.d.ts`)) ?? typesOf(schema, schemaPath);
}

/** The `.d.ts` text of the change feed at `feedPath`, beside `documentSchema`: see `reviewedTypes`, else generated. */
export async function servedFeedTypesOf(documentSchema: Record<string, unknown>, feedPath: string): Promise<string> {
  return (await reviewedTypes(documentSchema, feedPath, (n) => `registry.v${n}.changes.d.ts`)) ??
    feedTypesOf(documentSchema, feedPath);
}

/**
 * golden/'s `name` of a shipped version served at `path` (its schema's or its JSON feed's) when `schema` is the
 * reviewed schema golden/ holds for it ($id aside: it names the base URL, which types never show). contract.test.ts
 * proves that the generator makes those bytes of that schema; sparing a build the generator and its formatter saves it
 * near a second.
 */
async function reviewedTypes(
  schema: Record<string, unknown>,
  path: string,
  name: (version: number) => string,
): Promise<string | undefined> {
  const version = VERSIONS.find((v) => path === v.schemaPath || path === changesPaths(v).json);
  if (version === undefined) return undefined;
  const golden = await readGolden(`registry.v${version.number}.schema.json`);
  if (golden === undefined || !sameBesideId(JSON.parse(golden) as Record<string, unknown>, schema)) return undefined;
  return readGolden(name(version.number));
}

function readGolden(name: string): Promise<string | undefined> {
  return readFile(new URL(name, GOLDEN), "utf8").catch(() => undefined);
}

function sameBesideId(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const { $id: _a, ...restA } = a;
  const { $id: _b, ...restB } = b;
  return JSON.stringify(restA) === JSON.stringify(restB);
}

/** The `.d.ts` text of `schema` (a served JSON Schema), the same for the same schema on any machine. */
export async function typesOf(schema: Record<string, unknown>, schemaPath: string): Promise<string> {
  const banner = `/* Types of ${schemaPath}, generated from it by json-schema-to-typescript. Do not edit. */`;
  const { compile } = await import("json-schema-to-typescript");
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
  const { compile } = await import("json-schema-to-typescript");
  return compile(structuredClone(schema) as never, "ChangeFeed", {
    bannerComment: banner,
    ...OPTIONS,
    ignoreMinAndMaxItems: true,
  });
}
