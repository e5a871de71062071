/** The addresses the registry is served at, relative to the base URL. */
export const PATHS = {
  canonical: "/vaults.json",
  versioned: "/api/registry.v1.json",
  schema: "/api/registry.v1.schema.json",
} as const;
