import project from "../../package.json" with { type: "json" };
import tools from "../../deploy/tools/package.json" with { type: "json" };

/** The base URL the starter recipes build for: the operator puts their own in its place. */
export const STARTER_BASE_URL = "https://registry.example.org";

/** The source file every recipe builds from; `.gitignore` names it, so it is never committed. */
export const SOURCE_FILE = "registry.source.json";

const STARTER = {
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
};

/** One full vault, one withheld (suppressed), an edge between them, and an internal key declared in `internal_keys`. */
export const STARTER_SOURCE = `${JSON.stringify(STARTER, null, 2)}\n`;

/** The platforms `init` knows. */
export const PLATFORMS = ["netlify", "cloudflare", "aws", "node", "deno", "static"] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Other names `--platform` takes for a platform. */
export const ALIASES: Readonly<Record<string, Platform>> = { lambda: "aws" };

// `npx <package>@<version>`: a deploy tool at the version its lockfile installs (the tests check it); an alias
// (`npm:osls@^4.3.1`) names the real package.
function pinned(name: string, spec: string): string {
  const [, alias, version] = /^(?:npm:(.+)@)?[\^~]?(\d+\.\d+\.\d+)$/.exec(spec) ?? [];
  if (version === undefined) throw new Error(`${name}: ${spec} pins no version`);
  return `npx ${alias ?? name}@${version}`;
}

/** Each platform's deploy tool, pinned: netlify-cli and wrangler from deploy/tools/, osls from the project. */
const TOOLS = {
  netlify: pinned("netlify-cli", tools.devDependencies["netlify-cli"]),
  wrangler: pinned("wrangler", tools.devDependencies.wrangler),
  serverless: pinned("serverless", project.devDependencies.serverless),
} as const;

/** Names the base URL once: every line after it says "$BASE_URL". */
const BASE_URL_LINE = `BASE_URL=${STARTER_BASE_URL}`;

/** The build line of every recipe deployed to a host: `--previous` carries the live history on (first deploy: 404). */
export const BUILD_LINE =
  `npx registry-endpoint build --source ${SOURCE_FILE} --base-url "$BASE_URL" --previous "$BASE_URL"`;

/** A platform's recipe: the file's name, where its template is in the package (if any), and the lines around it. */
export interface Recipe {
  readonly file: string;
  /** The package file whose text the recipe is, below `head`; absent: `body` is all of it. */
  readonly template?: string;
  readonly body?: string;
  /** The comment character of the file's format, for the head; absent: no head (JSON). */
  readonly comment?: string;
  /** The lines that build and deploy it, when the file is not itself the script: the head names them. */
  readonly deploy?: readonly string[];
  /** What to do then (after `deploy`), for the explanation `init` prints. */
  readonly steps: readonly string[];
}

const verifyLine = (origin: string): string => `npx registry-endpoint verify ${origin}`;
const deployLines = (deploy: string): string[] => [BASE_URL_LINE, BUILD_LINE, deploy];

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
    deploy: deployLines(`${TOOLS.netlify} deploy --prod --no-build`),
    steps: [verifyLine(STARTER_BASE_URL)],
  },
  cloudflare: {
    file: "wrangler.toml",
    template: "deploy/cloudflare/wrangler.toml",
    comment: "#",
    deploy: deployLines(`${TOOLS.wrangler} deploy`),
    steps: [verifyLine(STARTER_BASE_URL)],
  },
  aws: {
    file: "serverless.yml",
    template: "deploy/aws/serverless.yml",
    comment: "#",
    deploy: deployLines(`${TOOLS.serverless} deploy`),
    steps: [verifyLine(`<the API's URL, or the Function URL of registry-stream> --expect-base ${STARTER_BASE_URL}`)],
  },
  node: {
    file: "start.sh",
    comment: "#",
    body: `set -e
# Every start rebuilds, while the server is down: the live URL cannot answer --previous, so the
# change feeds' history carries on from the build already in dist/ (.registry-build is the build's
# marker), and the first start begins it (--new-history; --unsigned when no signing key is set).
# Each build must be later than the one it carries on: leave SOURCE_DATE_EPOCH unset here.
if [ -f dist/.registry-build ]; then previous="--previous dist"
elif [ -n "\${REGISTRY_SIGNING_KEY:-}" ]; then previous="--new-history"
else previous="--new-history --unsigned"; fi
npx registry-endpoint build --source ${SOURCE_FILE} --base-url ${STARTER_BASE_URL} --out dist $previous
# The bundled server needs no node_modules: copy dist/node/server.mjs anywhere with Node 22 or newer.
exec node dist/node/server.mjs
`,
    steps: ["sh start.sh", verifyLine(`http://127.0.0.1:8787 --expect-base ${STARTER_BASE_URL}`)],
  },
  deno: {
    file: "deno.json",
    body: `${JSON.stringify({ tasks: { build: `${BASE_URL_LINE} && ${BUILD_LINE}` } }, null, 2)}\n`,
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
${BASE_URL_LINE}
${BUILD_LINE}
# Upload dist/static/ to any static host or CDN; its _headers file gives Netlify or Cloudflare
# Pages the server's headers. Elsewhere, set them from it (docs/deploying.md).
`,
    steps: ["sh build.sh", "upload dist/static/", verifyLine(`${STARTER_BASE_URL} --static`)],
  },
};

/** The head of a recipe file: where it comes from and, when it is not the script, how to build and deploy it. */
export function recipeHead(comment: string, deploy: readonly string[] | undefined): string {
  return [
    ...(deploy === undefined ? [`${comment} Written by registry-endpoint init.`] : [
      `${comment} Written by registry-endpoint init. Build and deploy:`,
      ...deploy.map((line) => `${comment}   ${line}`),
      `${comment} --previous "$BASE_URL" carries the change feeds' history on from the live deployment (the`,
      `${comment} first deploy, which answers 404, starts it; --new-history starts one on purpose).`,
    ]),
    `${comment} Internal keys: list them in the source's internal_keys, or add --internal-keys NAME,NAME`,
    `${comment} (or set INTERNAL_KEYS) when another program writes the source.`,
    "",
  ].join("\n");
}
