/** What `registry-endpoint init` writes: a starter source and each platform's recipe file. */

/** The base URL the starter recipes build for: the operator puts their own in its place. */
export const STARTER_BASE_URL = "https://registry.example.org";

/** The source file every recipe builds from; `.gitignore` names it, so it is never committed. */
export const SOURCE_FILE = "registry.source.json";

/**
 * One full vault, one withheld (suppressed: a minimal row, its note and its edge not published), an
 * edge between them, and one internal key (`owner`), declared in `internal_keys` so it is never published.
 */
export const STARTER_SOURCE = `${
  JSON.stringify(
    {
      registry_schema_version: "1.0",
      generated_at: "2026-11-20T09:00:00Z",
      source_inventory_sha: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
      internal_keys: ["owner"],
      vaults: [
        {
          vault_slug: "harbour-ledger",
          display_name: "Harbour Ledger",
          status: "active",
          note: "The ledger of the harbour.",
          owner: "ops@harbour.example",
        },
        {
          vault_slug: "quiet-room",
          display_name: "Quiet Room",
          status: "pending",
          note: "Not for publication.",
          suppressed: true,
        },
      ],
      edges: [{ source: "harbour-ledger", target: "quiet-room", type: "feeds" }],
    },
    null,
    2,
  )
}\n`;

/** The platforms `init` knows. */
export const PLATFORMS = ["netlify", "cloudflare", "aws", "node", "deno", "static"] as const;
export type Platform = (typeof PLATFORMS)[number];

/** The build line every recipe names: one build, stamped once; the deploy ships that build. */
export const BUILD_LINE = `npx registry-endpoint build --source ${SOURCE_FILE} --base-url ${STARTER_BASE_URL}`;

/** A platform's recipe: the file's name, where its template is in the package (if any), and the lines around it. */
export interface Recipe {
  readonly file: string;
  /** The package file whose text the recipe is, below `head`; absent: `body` is all of it. */
  readonly template?: string;
  readonly body?: string;
  /** The comment character of the file's format, for the head; absent: no head (JSON). */
  readonly comment?: string;
  /** How to build, run and deploy it, for the explanation `init` prints. */
  readonly steps: readonly string[];
}

const verifyLine = (origin: string): string => `npx registry-endpoint verify ${origin}`;

/** Each platform's recipe. */
export const RECIPES: Record<Platform, Recipe> = {
  netlify: {
    file: "netlify.toml",
    comment: "#",
    body: `# Netlify: deploys what the build made, and nothing else. No build command: the source is never
# committed, so the artifacts are built here before deploying.
[build]
  publish = "dist/static"

[functions]
  directory = "dist/fetch"
`,
    steps: [BUILD_LINE, "npx netlify-cli deploy --prod --no-build", verifyLine(STARTER_BASE_URL)],
  },
  cloudflare: {
    file: "wrangler.toml",
    template: "deploy/cloudflare/wrangler.toml",
    comment: "#",
    steps: [BUILD_LINE, "npx wrangler deploy", verifyLine(STARTER_BASE_URL)],
  },
  aws: {
    file: "serverless.yml",
    template: "deploy/aws/serverless.yml",
    comment: "#",
    steps: [BUILD_LINE, "npx serverless deploy", verifyLine(`<the API's URL> --expect-base ${STARTER_BASE_URL}`)],
  },
  node: {
    file: "start.sh",
    comment: "#",
    body: `set -e
${BUILD_LINE}
# The bundled server needs no node_modules: copy dist/node/server.mjs anywhere with Node 20 or newer.
exec node dist/node/server.mjs
`,
    steps: ["sh start.sh", verifyLine(`http://127.0.0.1:8787 --expect-base ${STARTER_BASE_URL}`)],
  },
  deno: {
    file: "deno.json",
    body: `${JSON.stringify({ tasks: { build: BUILD_LINE } }, null, 2)}\n`,
    steps: [
      "deno task build",
      "deno serve dist/fetch/index.mjs",
      verifyLine(`http://localhost:8000 --expect-base ${STARTER_BASE_URL}`),
    ],
  },
  static: {
    file: "build.sh",
    comment: "#",
    body: `set -e
${BUILD_LINE}
# Upload dist/static/ to any static host or CDN; its _headers file gives Netlify or Cloudflare
# Pages the server's headers. Elsewhere, set them from it (docs/deploying.md).
`,
    steps: ["sh build.sh", "upload dist/static/", verifyLine(`${STARTER_BASE_URL} --static`)],
  },
};

/** The head of a recipe file: where it comes from and its build line. */
export function recipeHead(comment: string): string {
  return [
    `${comment} Written by registry-endpoint init. Build (set SOURCE_DATE_EPOCH for byte-identical rebuilds):`,
    `${comment}   ${BUILD_LINE}`,
    `${comment} Internal keys: list them in the source's internal_keys, or add --internal-keys NAME,NAME`,
    `${comment} (or set INTERNAL_KEYS) when another program writes the source.`,
    "",
  ].join("\n");
}
