/**
 * The golden review of a pull request, run as CI runs it, against a real temporary git
 * repository; and the workflow that runs it, checked by a linter from npm.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { cleanEnv, run } from "./process.ts";

const work = mkdtempSync(join(tmpdir(), "registry-review-"));
const repo = join(work, "repo");
const home = join(work, "home");
mkdirSync(join(repo, "golden", "http"), { recursive: true });
mkdirSync(home);
const gitEnv = cleanEnv({ HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "Test", GIT_AUTHOR_EMAIL: "test@example.org", GIT_COMMITTER_NAME: "Test", GIT_COMMITTER_EMAIL: "test@example.org" });
const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { env: gitEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const document = () => JSON.parse(readFileSync("golden/registry.json", "utf8"));
const write = (path: string, text: string) => writeFileSync(join(repo, path), text);
const commit = (message: string) => {
  git("add", "-A");
  git("commit", "-q", "-m", message);
};
const review = (...args: string[]) => run("node", ["--import", "tsx", "node/bin/review.ts", "--repo", repo, ...args], { env: gitEnv, timeoutMs: 60_000 });

git("init", "-q");
write("golden/registry.json", readFileSync("golden/registry.json", "utf8"));
write("golden/http/answers.txt", readFileSync("golden/http/answers.txt", "utf8"));
commit("goldens as on main");

test("a breaking change to the shipped v1 document fails the review, and the summary says why", async () => {
  const changed = document();
  for (const row of changed.vaults) delete row.tagline;
  changed.vaults[0].display_name = "Renamed";
  write("golden/registry.json", `${JSON.stringify(changed, null, 2)}\n`);
  write("golden/http/answers.txt", readFileSync("golden/http/answers.txt", "utf8").replace("referrer-policy: no-referrer", "referrer-policy: same-origin"));
  commit("drop tagline");
  const summary = join(work, "summary-1.md");
  writeFileSync(summary, "earlier steps wrote this\n");
  const result = await review("--base", "HEAD~1", "--head", "HEAD", "--summary", summary);
  assert.is(result.code, 1, result.stderr);
  const text = readFileSync(summary, "utf8");
  assert.ok(text.startsWith("earlier steps wrote this\n## Golden review: "), "appended to the summary, as $GITHUB_STEP_SUMMARY wants");
  assert.match(text, /\*\*Fails:\*\* a breaking change to a shipped versioned path: golden\/registry\.json \(v1, \/api\/registry\.v1\.json\)/);
  assert.match(text, /\| `golden\/registry\.json` \| document of v1, \/api\/registry\.v1\.json, shipped \| \*\*1 breaking\*\* · 0 dangerous · 0 additive · 1 data \*\*\(fails\)\*\* \|/);
  assert.match(text, /\| \*\*breaking\*\* \| `key.removed` \| vaults\[\] \(full rows\) \| tagline \|/);
  assert.match(text, /\| data \| `vault.field` \| vaults\[[a-z0-9-]+\]\.display_name \| .+ \| Renamed \|/);
  assert.match(text, /<code>golden\/http\/answers\.txt<\/code>: line diff[\s\S]*-  referrer-policy: no-referrer\n\+  referrer-policy: same-origin/);
});

test("a data-only change passes, and a breaking change to a document of no shipped version passes too", async () => {
  const changed = JSON.parse(git("show", "HEAD:golden/registry.json"));
  changed.vaults[1].note = "A new note.";
  write("golden/registry.json", `${JSON.stringify(changed, null, 2)}\n`);
  const draft = document();
  draft.about.versioned_url = "https://registry.example.org/api/registry.v9.json";
  write("golden/draft.json", `${JSON.stringify(draft, null, 2)}\n`);
  commit("data and a draft");
  for (const row of draft.vaults) delete row.tagline;
  write("golden/draft.json", `${JSON.stringify(draft, null, 2)}\n`);
  commit("draft drops tagline");
  const result = await review("--base", "HEAD~2", "--head", "HEAD");
  assert.is(result.code, 0, result.stderr);
  const text = result.stdout.toString();
  assert.match(text, /\*\*Passes:\*\* no breaking change to a shipped versioned path\./);
  assert.match(text, /\| `golden\/registry\.json` \| document of v1, \/api\/registry\.v1\.json, shipped \| 0 breaking · 0 dangerous · 0 additive · 1 data \|/);
  assert.match(text, /\| `golden\/draft\.json` \| document, added \| nothing to compare it with \|/);
  const draftOnly = await review("--base", "HEAD~1");
  assert.is(draftOnly.code, 0);
  assert.match(draftOnly.stdout.toString(), /\| `golden\/draft\.json` \| document of no shipped version \| \*\*1 breaking\*\*/);
});

test("no golden changed: the review says so and passes", async () => {
  write("README.md", "unrelated\n");
  commit("docs only");
  const result = await review("--base", "HEAD~1");
  assert.is(result.code, 0);
  assert.match(result.stdout.toString(), /No golden file changed: no public byte moves\./);
});

test("review: an unknown commit, a missing --base or a bad flag is one line and exit 2", async () => {
  const cases: [string[], RegExp][] = [
    [["--base", "no-such-ref"], /^review: git rev-parse --verify no-such-ref\^\{commit\}: fatal: /],
    [[], /^--base: required/],
    [["--base", "HEAD", "--bogus"], /^Unknown option '--bogus'/],
  ];
  for (const [args, message] of cases) {
    const result = await review(...args);
    assert.is(result.code, 2, args.join(" "));
    assert.match(result.stderr, message);
    assert.is(result.stderr.trimEnd().split("\n").length, 1, result.stderr);
  }
  const help = await review("--help");
  assert.is(help.code, 0);
  assert.match(help.stdout.toString(), /--summary FILE/);
});

// --- the workflow ------------------------------------------------------------------------------

const WORKFLOW = ".github/workflows/ci.yml";
const validate = (file: string) => run("node_modules/.bin/action-validator", [file], { env: cleanEnv({ HOME: home }), timeoutMs: 60_000 });

test("the workflow passes action-validator, which does reject a broken one", async () => {
  const ok = await validate(WORKFLOW);
  assert.is(ok.code, 0, ok.stdout.toString() + ok.stderr);
  const broken = join(work, "broken.yml");
  writeFileSync(broken, readFileSync(WORKFLOW, "utf8").replace("runs-on:", "runs-in:"));
  assert.is((await validate(broken)).code, 1);
});

test("the workflow runs the README's test command, and the review on pull requests with base and head", () => {
  const text = readFileSync(WORKFLOW, "utf8");
  const readme = readFileSync("README.md", "utf8");
  assert.ok(readme.includes("npm ci && npm test"), "the README's test command");
  assert.match(text, /^\s+run: npm ci && npm test$/m);
  assert.match(text, /^\s+if: \$\{\{ always\(\) && github\.event_name == 'pull_request' \}\}$/m);
  assert.match(text, /^\s+run: npm run --silent review -- --base "\$BASE_SHA" --head "\$HEAD_SHA" --summary "\$GITHUB_STEP_SUMMARY"$/m);
  assert.match(text, /BASE_SHA: \$\{\{ github\.event\.pull_request\.base\.sha \}\}/);
  assert.match(text, /fetch-depth: 0/);
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test.run();
