/** The version table (docs/choices.md); everything derives from it and `version-policy.ts` says what it must keep. */
import { registrySchema } from "../contract/schema.ts";
import { buildRegistry, serializeRegistry } from "../registry.ts";
import type { ContractVersion } from "../contract/version-policy.ts";

/** The shipped versions, oldest first. */
export const VERSIONS: readonly ContractVersion[] = [
  {
    number: 1,
    path: "/api/registry.v1.json",
    schemaPath: "/api/registry.v1.schema.json",
    openapiPath: "/api/registry.v1.openapi.json",
    published: "2026-11-21",
    build(source, context) {
      const document = buildRegistry(source, context);
      return {
        bytes: serializeRegistry(document, context.documentLimit),
        document,
        vaultCount: document.vault_count,
        edgeCount: document.edge_count,
      };
    },
    schema: (context) => registrySchema(context.baseUrl + context.paths.schema),
  },
];
