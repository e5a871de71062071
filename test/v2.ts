/**
 * A test-only v2 (never shipped): the v1 document without `tagline`, in rows and in
 * `field_coverage`: one breaking difference (a key removed), plus `schema_version` "2.0" so the two
 * are told apart. With it, a test table whose dates exercise every step of the lifecycle.
 */
import type { ContractVersion } from "../contract/version-policy.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { buildRegistry, type Registry, serializeRegistry } from "../registry.ts";
import { registrySchema } from "../contract/schema.ts";

const V1 = VERSIONS[0] as ContractVersion;

export const V2: ContractVersion = {
  number: 2,
  path: "/api/registry.v2.json",
  schemaPath: "/api/registry.v2.schema.json",
  openapiPath: "/api/registry.v2.openapi.json",
  published: "2027-03-01",
  build(source, context) {
    const document = buildRegistry(source, context) as unknown as Record<string, unknown> & Registry;
    const rows = document.vaults.map((row) =>
      Object.fromEntries(Object.entries(row).filter(([key]) => key !== "tagline"))
    );
    const coverage = Object.fromEntries(Object.entries(document.field_coverage).filter(([key]) => key !== "tagline"));
    const v2 = { ...document, schema_version: "2.0", field_coverage: coverage, vaults: rows } as unknown as Registry;
    return {
      bytes: serializeRegistry(v2),
      document: v2,
      vaultCount: document.vault_count,
      edgeCount: document.edge_count,
    };
  },
  schema(context) {
    const schema = structuredClone(registrySchema(context.baseUrl + context.paths.schema)) as Record<string, any>;
    schema["title"] = "Registry document, v2 (test only)";
    schema["properties"].schema_version = { const: "2.0" };
    const full = schema["$defs"].full_row;
    full.required = full.required.filter((key: string) => key !== "tagline");
    delete full.properties.tagline;
    const coverage = schema["properties"].field_coverage;
    coverage.required = coverage.required.filter((key: string) => key !== "tagline");
    delete coverage.properties.tagline;
    return schema;
  },
};

/** v1 with a sunset 92 days after v2's publication, then v2: the table the lifecycle goldens use. */
export const TEST_TABLE: readonly ContractVersion[] = [{ ...V1, sunset: "2027-06-01" }, V2];

/** The built_at of each lifecycle golden, and what it shows. */
export const LIFECYCLE_DATES = [
  { name: "1-before-v2", builtAt: "2027-02-28T12:00:00Z", canonical: 1 },
  { name: "2-v2-published", builtAt: "2027-03-01T00:00:00Z", canonical: 1 },
  { name: "3-day-89", builtAt: "2027-05-29T00:00:00Z", canonical: 1 },
  { name: "4-day-90", builtAt: "2027-05-30T00:00:00Z", canonical: 2 },
  { name: "5-v1-sunset", builtAt: "2027-06-01T00:00:00Z", canonical: 2 },
] as const;
