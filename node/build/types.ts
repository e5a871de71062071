/**
 * TypeScript types for consumers, generated from a version's JSON Schema by
 * json-schema-to-typescript: it reads draft 2020-12 as written (`$defs`, `const`, type arrays for
 * `T | null`, `false` for a key that never appears) and keeps `additionalProperties` open as an
 * index signature, so the types say what the schema says and nothing of ours sits between them.
 */
import { compile } from "json-schema-to-typescript";

/** The path of a version's types beside its schema: `/api/registry.v1.schema.json` gives `/api/registry.v1.d.ts`. */
export function typesPath(schemaPath: string): string {
  return schemaPath.replace(/\.schema\.json$/, ".d.ts");
}

/** The `.d.ts` text of `schema` (a served JSON Schema), the same for the same schema on any machine. */
export async function typesOf(schema: Record<string, unknown>, schemaPath: string): Promise<string> {
  const banner = `/* Types of ${schemaPath}, generated from it by json-schema-to-typescript. Do not edit. */`;
  // compile() annotates the object it is given: it gets a copy.
  return compile(structuredClone(schema) as never, "Registry", { bannerComment: banner, additionalProperties: true, strictIndexSignatures: false, unreachableDefinitions: false, format: true, style: { printWidth: 100 } });
}
