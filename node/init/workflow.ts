import { BUILD_LINE, RECIPES, SOURCE_FILE, STARTER_BASE_URL } from "./starter.ts";

/** Where the workflow is written. */
export const WORKFLOW_FILE = ".github/workflows/registry.yml";

/** The public key set the workflow's verify pins: committed in the repository (keygen prints it). */
export const KEYS_FILE = "registry.keys.json";

/** Where `init` tells the operator to write the private key: git-ignored, deleted once it is a secret. */
export const SIGNING_KEY_FILE = "registry-signing.pem";

/** Where a source in a private GitHub repository is downloaded from (the contents API, raw). */
const SOURCE_URL_EXAMPLE = "https://api.github.com/repos/OWNER/REPO/contents/registry.source.json?ref=main";

/** verify's state (the last accepted manifest), kept between runs in the Actions cache. */
const STATE_FILE = "verify-state.json";

/** The platforms the workflow deploys to: those whose recipe deploys with a pinned tool. */
export const CI_PLATFORMS = ["netlify", "cloudflare", "aws"] as const;
export type CiPlatform = (typeof CI_PLATFORMS)[number];

/** The secrets each platform's deploy tool reads from its environment. */
const DEPLOY_SECRETS: Record<CiPlatform, readonly string[]> = {
  netlify: ["NETLIFY_AUTH_TOKEN", "NETLIFY_SITE_ID"],
  cloudflare: ["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_ACCOUNT_ID"],
  aws: ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"],
};

/** The recipe's own deploy line: its platform's tool, pinned. */
function deployLine(platform: CiPlatform): string {
  const line = RECIPES[platform].deploy?.at(-1);
  if (line === undefined) throw new Error(`${platform}: its recipe has no deploy line`);
  return line;
}

/** The actions it uses, pinned by commit (as the project's own workflows are), the tag beside it. */
const CHECKOUT = "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2";
const SETUP_NODE = "actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020 # v4.4.0";
const CACHE = "5a3ec84eff668545956fd18022155c47e93e2684 # v4.2.3";

const VERIFY_LINE = `npx registry-endpoint verify "$BASE_URL" --keys ${KEYS_FILE} --state ${STATE_FILE}`;

/** The steps both jobs begin with: the repository, Node, the installed package, the source. */
const FIRST_STEPS = `      - uses: ${CHECKOUT}
      - uses: ${SETUP_NODE}
        with:
          node-version: 22
      - name: Install
        run: npm ci
      # The source is never committed: it is downloaded with a read-only token.
      - name: Fetch the source
        env:
          REGISTRY_SOURCE_URL: \${{ vars.REGISTRY_SOURCE_URL }}
          REGISTRY_SOURCE_TOKEN: \${{ secrets.REGISTRY_SOURCE_TOKEN }}
        run: >-
          curl --fail --silent --show-error --proto =https,http
          -H "Authorization: Bearer $REGISTRY_SOURCE_TOKEN" -H "Accept: application/vnd.github.raw"
          -o ${SOURCE_FILE} "$REGISTRY_SOURCE_URL"`;

/** The workflow `init --platform P --ci github` writes, byte for byte. */
export function githubWorkflow(platform: CiPlatform): string {
  const recipe = RECIPES[platform];
  const secrets = DEPLOY_SECRETS[platform];
  return `# Written by registry-endpoint init --platform ${platform} --ci github (docs/deploying.md, "The CI
# workflow"). On a push to main, daily and on demand: downloads the source (never committed),
# builds it reading the live deployment (--previous "$BASE_URL": the change feeds' history and the
# signature carry on; a first deploy, which finds 404 everywhere, starts them), deploys with the
# tool of ${recipe.file}, then verifies the live deployment against the key set pinned in
# ${KEYS_FILE}. The daily run re-signs well before a signature's 7 days end. On a pull request:
# the live document against what this branch would publish, failing on a breaking or privacy change.
# The repository's settings it reads:
#   variable REGISTRY_SOURCE_URL    where the source is downloaded from
#   secret   REGISTRY_SOURCE_TOKEN  a read-only token for it
#   secret   REGISTRY_SIGNING_KEY   the private key (registry-endpoint keygen)
#   secrets  ${secrets.join(", ")}
# Actions are pinned by commit, the tag beside it.
name: registry

on:
  push:
    branches: [main]
  pull_request:
  schedule:
    - cron: "17 3 * * *"
  workflow_dispatch:

permissions:
  contents: read

env:
  BASE_URL: ${STARTER_BASE_URL}

jobs:
  deploy:
    if: github.event_name != 'pull_request'
    runs-on: ubuntu-latest
    timeout-minutes: 30
    concurrency:
      group: registry-deploy
      cancel-in-progress: false
    steps:
${FIRST_STEPS}
      - name: Build
        env:
          REGISTRY_SIGNING_KEY: \${{ secrets.REGISTRY_SIGNING_KEY }}
        run: ${BUILD_LINE}
      - name: Deploy
        env:
${secrets.map((name) => `          ${name}: \${{ secrets.${name} }}`).join("\n")}
        run: ${deployLine(platform)}
      - uses: actions/cache/restore@${CACHE}
        with:
          path: ${STATE_FILE}
          key: registry-verify-\${{ github.run_id }}-\${{ github.run_attempt }}
          restore-keys: registry-verify-
      - name: Verify
        run: ${VERIFY_LINE}
      - uses: actions/cache/save@${CACHE}
        with:
          path: ${STATE_FILE}
          key: registry-verify-\${{ github.run_id }}-\${{ github.run_attempt }}

  review:
    # A fork's pull request gets no secrets, so it cannot download the source.
    if: github.event_name == 'pull_request' && github.event.pull_request.head.repo.full_name == github.repository
    runs-on: ubuntu-latest
    timeout-minutes: 15
    steps:
${FIRST_STEPS}
      - name: Review
        run: |
          npx registry-endpoint preview ${SOURCE_FILE} --base-url "$BASE_URL" > preview.json
          status=$(curl --silent --show-error -H "Cache-Control: no-cache" -o live.json -w "%{http_code}" "$BASE_URL/api/registry.v1.json")
          if [ "$status" = 404 ]; then
            echo "Nothing is published at $BASE_URL yet: the first deploy publishes all of it." >> "$GITHUB_STEP_SUMMARY"
            exit 0
          fi
          if [ "$status" != 200 ]; then echo "$BASE_URL/api/registry.v1.json answered $status" >&2; exit 1; fi
          verdict=0
          npx registry-endpoint diff live.json preview.json --fail-on breaking,privacy > review.md || verdict=$?
          cat review.md >> "$GITHUB_STEP_SUMMARY"
          exit "$verdict"
`;
}

/** What to do for the workflow: the key, the settings it reads, and what to commit. */
export function ciSteps(platform: CiPlatform): string {
  return `
${WORKFLOW_FILE} builds and deploys from GitHub Actions (docs/deploying.md,
"The CI workflow"). Replace ${STARTER_BASE_URL} in it too, make the signing key, commit the
public key set it prints (verify pins it), and set what the workflow reads in the repository's
settings (here with the GitHub CLI, gh):
  npx registry-endpoint keygen ${SIGNING_KEY_FILE} > ${KEYS_FILE}
  gh secret set REGISTRY_SIGNING_KEY < ${SIGNING_KEY_FILE}
  gh variable set REGISTRY_SOURCE_URL --body "${SOURCE_URL_EXAMPLE}"
  gh secret set REGISTRY_SOURCE_TOKEN
${DEPLOY_SECRETS[platform].map((name) => `  gh secret set ${name}`).join("\n")}
Then keep ${SIGNING_KEY_FILE} somewhere safe off this machine (or delete it), and commit
${KEYS_FILE}, ${RECIPES[platform].file} and ${WORKFLOW_FILE} with your package.json and lockfile.
`;
}
