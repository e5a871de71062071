// json-schema-to-typescript reads draft 2020-12 as written (`$defs`, `const`, type arrays for `T | null`, `false`
// for a key that never appears) and keeps `additionalProperties` open as an index signature: the types say what the
// schema says.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { changeFeedSchema } from "../../feed/schema.ts";

/** Where the reviewed types and their inputs' digests are: the repository's and the package's `golden/`. */
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
 * What json-schema-to-typescript is given. With options of plain data (a function would not be in the digest) and
 * `$ref`s within the schema (the generator would read a file for any other), this is all its output depends on, but
 * its own and its dependencies' versions: contract.test.ts checks both conditions of every shipped version's inputs.
 */
export interface Generation {
  readonly schema: Record<string, unknown>;
  readonly name: string;
  readonly options: Record<string, unknown>;
}

/** The `.d.ts` text of `schema` (a served JSON Schema), the same for the same schema on any machine. */
export function typesOf(schema: Record<string, unknown>, schemaPath: string): Promise<string> {
  return generate(documentTypesInput(schema, schemaPath));
}

/** The path of a version's change-feed types beside its feed: `/api/registry.v1.changes.d.ts` for `.changes.json`. */
export function feedTypesPath(feedPath: string): string {
  return feedPath.replace(/\.json$/, ".d.ts");
}

/** The `.d.ts` text of a version's JSON change feed, standing alone: the document schema's definitions copied in. */
export function feedTypesOf(documentSchema: Record<string, unknown>, feedPath: string): Promise<string> {
  return generate(feedTypesInput(documentSchema, feedPath));
}

/** `typesOf`, or golden/'s own file when it was made of the same input (see `reviewedTypes`). */
export async function servedTypesOf(schema: Record<string, unknown>, schemaPath: string): Promise<string> {
  const input = documentTypesInput(schema, schemaPath);
  return (await reviewedTypes(basename(typesPath(schemaPath)), input)) ?? generate(input);
}

/** `feedTypesOf`, or golden/'s own file when it was made of the same input (see `reviewedTypes`). */
export async function servedFeedTypesOf(documentSchema: Record<string, unknown>, feedPath: string): Promise<string> {
  const input = feedTypesInput(documentSchema, feedPath);
  return (await reviewedTypes(basename(feedTypesPath(feedPath)), input)) ?? generate(input);
}

/**
 * golden/`name` (a shipped version's types are there under their served file name) when golden/`name`.input names
 * the digest of `input` and that file's own: the generator made that very file of that very input (contract.test.ts
 * writes and proves both; the input holds the path, so a file of the same name elsewhere is not it). Else undefined,
 * as when either file is missing, unreadable or edited. Sparing a build the generator and its formatter saves near a
 * second.
 */
export async function reviewedTypes(name: string, input: Generation): Promise<string | undefined> {
  const [made, types] = [await readGolden(`${name}.input`), await readGolden(name)];
  if (made === undefined || types === undefined) return undefined;
  return made === provenance(input, types) ? types : undefined;
}

/** The text of golden/'s `.input` file of `types`, made of `input`: both SHA-256 digests. */
export function provenance(input: Generation, types: string): string {
  const made = JSON.stringify([input.name, input.options, input.schema]);
  return `input sha256:${sha256(made)}\noutput sha256:${sha256(types)}\n`;
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

function readGolden(name: string): Promise<string | undefined> {
  return readFile(new URL(name, GOLDEN), "utf8").catch(() => undefined);
}

/** The document types' input: without `$id`, the base URL, so that no base URL can change them. */
export function documentTypesInput(schema: Record<string, unknown>, schemaPath: string): Generation {
  const { $id: _id, ...rest } = schema;
  const banner = `/* Types of ${schemaPath}, generated from it by json-schema-to-typescript. Do not edit. */`;
  return { schema: rest, name: "Registry", options: { bannerComment: banner, ...OPTIONS } };
}

/** The change feed types' input: the feed schema, the document schema's definitions copied in. */
export function feedTypesInput(documentSchema: Record<string, unknown>, feedPath: string): Generation {
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
  return { schema, name: "ChangeFeed", options: { bannerComment: banner, ...OPTIONS, ignoreMinAndMaxItems: true } };
}

async function generate({ schema, name, options }: Generation): Promise<string> {
  const { compile } = await import("json-schema-to-typescript");
  // compile() annotates the object it is given: it gets a copy.
  return compile(structuredClone(schema) as never, name, options);
}
