/**
 * The golden review of a pull request, run as CI runs it, against a real temporary git
 * repository; and the workflow that runs it, checked by a linter from npm.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { cleanEnv, run, runCommand } from "./process.ts";
import { runReview } from "../node/review/review-command.ts";

const work = mkdtempSync(join(tmpdir(), "registry-review-"));
const repo = join(work, "repo");
const home = join(work, "home");
mkdirSync(join(repo, "golden", "http"), { recursive: true });
mkdirSync(home);
const gitEnv = cleanEnv({
  HOME: home,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.org",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.org",
});
const git = (...args: string[]) =>
  execFileSync("git", ["-C", repo, ...args], { env: gitEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const document = () => JSON.parse(readFileSync("golden/registry.json", "utf8"));
const write = (path: string, text: string) => writeFileSync(join(repo, path), text);
const commit = (message: string) => {
  git("add", "-A");
  git("commit", "-q", "-m", message);
};
/** The review in process (the workflow's step below runs the real bin). */
const review = (...args: string[]) => runCommand(runReview, ["--repo", repo, ...args], { env: gitEnv });

git("init", "-q");
write("golden/registry.json", readFileSync("golden/registry.json", "utf8"));
write("golden/http/answers.txt", readFileSync("golden/http/answers.txt", "utf8"));
commit("goldens as on main");

test("a breaking change to the shipped v1 document fails the review, and the summary says why", async () => {
  const changed = document();
  for (const row of changed.vaults) delete row.tagline;
  changed.vaults[0].display_name = "Renamed";
  write("golden/registry.json", `${JSON.stringify(changed, null, 2)}\n`);
  write(
    "golden/http/answers.txt",
    readFileSync("golden/http/answers.txt", "utf8").replace(
      "referrer-policy: no-referrer",
      "referrer-policy: same-origin",
    ),
  );
  commit("drop tagline");
  const summary = join(work, "summary-1.md");
  writeFileSync(summary, "earlier steps wrote this\n");
  const result = await review("--base", "HEAD~1", "--head", "HEAD", "--summary", summary);
  assert.is(result.code, 1, result.stderr);
  const text = readFileSync(summary, "utf8");
  assert.ok(
    text.startsWith("earlier steps wrote this\n## Golden review: "),
    "appended to the summary, as $GITHUB_STEP_SUMMARY wants",
  );
  assert.match(
    text,
    /\*\*Fails:\*\* a breaking change to a shipped versioned path: `golden\/registry\.json` \(v1, \/api\/registry\.v1\.json\)/,
  );
  assert.match(
    text,
    /\| `golden\/registry\.json` \| document of v1, \/api\/registry\.v1\.json, shipped \| \*\*1 breaking\*\* · 0 dangerous · 0 additive · 1 data \*\*\(fails\)\*\* \|/,
  );
  assert.match(text, /\| \*\*breaking\*\* \| `key.removed` \| vaults\\\[\\\] \(full rows\) \| tagline \|/);
  assert.match(text, /\| data \| `vault.field` \| vaults\\\[[a-z0-9-]+\\\]\.display\\_name \| .+ \| Renamed \|/);
  assert.match(
    text,
    /<code>golden\/http\/answers\.txt<\/code>: line diff[\s\S]*-  referrer-policy: no-referrer\n\+  referrer-policy: same-origin/,
  );
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
  assert.match(
    text,
    /\| `golden\/registry\.json` \| document of v1, \/api\/registry\.v1\.json, shipped \| 0 breaking · 0 dangerous · 0 additive · 1 data \|/,
  );
  assert.match(text, /\| `golden\/draft\.json` \| document, added \| nothing to compare it with \|/);
  const draftOnly = await review("--base", "HEAD~1");
  assert.is(draftOnly.code, 0);
  assert.match(
    draftOnly.stdout.toString(),
    /\| `golden\/draft\.json` \| document of no shipped version \| \*\*1 breaking\*\*/,
  );
});

test("no golden changed: the review says so and passes", async () => {
  write("README.md", "unrelated\n");
  commit("docs only");
  const result = await review("--base", "HEAD~1");
  assert.is(result.code, 0);
  assert.match(result.stdout.toString(), /No golden file changed: no public byte moves\./);
});

test("main moved on: a pull request that touches no golden passes (merge base to head, three dots)", async () => {
  const start = git("rev-parse", "HEAD").trim();
  git("checkout", "-q", "-b", "pr", start);
  write("README.md", "the pull request's own change\n");
  commit("pr: docs");
  git("checkout", "-q", "-");
  const added = JSON.parse(git("show", "HEAD:golden/registry.json"));
  for (const row of added.vaults) row.website = null;
  write("golden/registry.json", `${JSON.stringify(added, null, 2)}\n`);
  commit("main: a new key");
  const main = git("rev-parse", "HEAD").trim();
  const result = await review("--base", main, "--head", "pr");
  assert.is(result.code, 0, result.stdout.toString());
  assert.match(result.stdout.toString(), new RegExp(`^## Golden review: ${start.slice(0, 7)} → `));
  assert.match(result.stdout.toString(), /No golden file changed/);
});

test("names and lines from files cannot break the summary: non-ASCII, pipes, HTML, backtick runs", async () => {
  const name = "golden/http/naïve |<b>bold<b> `tick`.txt";
  write(name, "one\n```\ntwo\n");
  const draft = document();
  draft.about.versioned_url = "https://registry.example.org/api/registry.v9.json";
  write("golden/odd.json", `${JSON.stringify(draft, null, 2)}\n`);
  commit("odd goldens");
  write(name, "one\n```\n````\nthree\n");
  draft.vaults[0].note = "a | b <img src=x onerror=alert(1)> [link](https://example.org) *em*";
  write("golden/odd.json", `${JSON.stringify(draft, null, 2)}\n`);
  commit("change it");
  const result = await review("--base", "HEAD~1");
  assert.is(result.code, 0, result.stderr);
  const text = result.stdout.toString();
  const row = text.split("\n").find((line) => line.includes("naïve")) as string;
  assert.is(row.split(/(?<!\\)\|/).length, 5, `three cells: ${row}`);
  assert.ok(row.startsWith("| ``golden/http/naïve \\|<b>bold<b> `tick`.txt`` | bytes |"), row);
  assert.match(
    text,
    /<summary><code>golden\/http\/naïve \|&#60;b&#62;bold&#60;b&#62; `tick`\.txt<\/code>: line diff<\/summary>\n\n`````diff\n[\s\S]*\n\+````\n\+three\n\n?`````\n/,
  );
  const outsideCode = text.replace(/(?<!`)(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, "");
  assert.not.match(outsideCode, /(?<!\\)<(img|b)/, "no raw HTML outside code");
  assert.match(text, /\\<img src=x onerror=alert\(1\)\\> \\\[link\\\]\(https:\/\/example\.org\) \\\*em\\\*/);
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
const REVIEW_WORKFLOW = ".github/workflows/review.yml";
const validate = (file: string) =>
  run("node_modules/.bin/action-validator", [file], { env: cleanEnv({ HOME: home }), timeoutMs: 60_000 });

test("the workflow passes action-validator, which does reject a broken one", async () => {
  for (const file of [WORKFLOW, REVIEW_WORKFLOW]) {
    const ok = await validate(file);
    assert.is(ok.code, 0, ok.stdout.toString() + ok.stderr);
  }
  const broken = join(work, "broken.yml");
  writeFileSync(broken, readFileSync(WORKFLOW, "utf8").replace("runs-on:", "runs-in:"));
  assert.is((await validate(broken)).code, 1);
});

test("the workflows run the README's test command; every action is pinned by commit, its tag beside it", () => {
  const text = readFileSync(WORKFLOW, "utf8");
  const readme = readFileSync("README.md", "utf8");
  assert.ok(readme.includes("npm ci && npm test"), "the README's test command");
  assert.match(text, /^\s+run: npm ci && npm test$/m);
  for (const file of [WORKFLOW, REVIEW_WORKFLOW]) {
    const uses = [...readFileSync(file, "utf8").matchAll(/^\s*-?\s*uses: (.*)$/gm)].map((m) => m[1] as string);
    assert.ok(uses.length >= 2, file);
    for (const use of uses) assert.match(use, /^[\w-]+\/[\w-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/, `${file}: ${use}`);
  }
});

/** The shell lines of a workflow step, by its name: the `run: |` block as the runner gets it. */
function stepScript(workflow: string, name: string): string {
  const lines = readFileSync(workflow, "utf8").split("\n");
  const step = lines.findIndex((l) => l.trim() === `- name: ${name}`);
  const run = lines.findIndex((l, i) => i > step && l.trim() === "run: |");
  assert.ok(step >= 0 && run > step, `${workflow}: step ${name}`);
  const indent = (l: string) => l.length - l.trimStart().length;
  const body = lines.slice(run + 1);
  const end = body.findIndex((l) => l.trim() !== "" && indent(l) <= indent(lines[run] as string));
  return body.slice(0, end < 0 ? undefined : end).map((l) => l.slice(indent(body[0] as string))).join("\n");
}

test("the review workflow runs the base commit's review code: a pull request cannot change its own verdict", async () => {
  // A project repository as on main: the review code (node/, http/, contract/) and the goldens.
  const origin = join(work, "origin");
  mkdirSync(origin);
  const og = (...args: string[]) =>
    execFileSync("git", ["-C", origin, ...args], { env: gitEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  for (
    const path of [
      "node",
      "assembly",
      "feed",
      "http",
      "contract",
      "package.json",
      "registry.ts",
      ".github",
      "golden/registry.json",
    ]
  ) cpSync(path, join(origin, path), { recursive: true });
  og("init", "-q");
  og("add", "-A");
  og("commit", "-q", "-m", "main");
  const baseSha = og("rev-parse", "HEAD").trim();
  // The pull request: a breaking golden change, and review code edited to pass whatever it finds.
  const code = readFileSync(join(origin, "node/review/review.ts"), "utf8");
  assert.ok(code.includes("const fails = failing.length > 0;"));
  writeFileSync(
    join(origin, "node/review/review.ts"),
    code.replace("const fails = failing.length > 0;", "const fails = false;"),
  );
  const changed = document();
  for (const row of changed.vaults) delete row.tagline;
  writeFileSync(join(origin, "golden/registry.json"), `${JSON.stringify(changed, null, 2)}\n`);
  og("add", "-A");
  og("commit", "-q", "-m", "pr: drop tagline, and pass anyway");
  const headSha = og("rev-parse", "HEAD").trim();
  og("update-ref", "refs/pull/7/head", headSha);
  og("reset", "-q", "--hard", baseSha);
  // The runner: actions/checkout of the base commit, then the step's own lines, with a Node that
  // has no packages installed (the one `npm ci` brings; the workflow's setup-node gives Node 24).
  const runner = join(work, "runner");
  execFileSync("git", ["clone", "-q", origin, runner], { env: gitEnv, stdio: "ignore" });
  const summary = join(work, "review-summary.md");
  const env = cleanEnv({
    ...gitEnv,
    PATH: `${join(process.cwd(), "node_modules/node22/bin")}:${process.env["PATH"]}`,
    BASE_SHA: baseSha,
    HEAD_SHA: headSha,
    PR_NUMBER: "7",
    GITHUB_STEP_SUMMARY: summary,
  });
  const result = await run("bash", ["-e", "-c", stepScript(REVIEW_WORKFLOW, "Golden review")], {
    env,
    cwd: runner,
    timeoutMs: 60_000,
  });
  assert.is(result.code, 1, result.stderr);
  assert.match(readFileSync(summary, "utf8"), /\*\*Fails:\*\* a breaking change to a shipped versioned path/);
  // The pull request's own review code would have passed it: the test can tell the two apart.
  execFileSync("git", ["-C", runner, "checkout", "-q", headSha], { env: gitEnv });
  const own = await run("node", ["node/bin/review.ts", "--base", baseSha, "--head", headSha], {
    env,
    cwd: runner,
    timeoutMs: 60_000,
  });
  assert.is(own.code, 0, own.stderr);
});

test("a change feed golden is named as one, and its changed items shown as a line diff", async () => {
  mkdirSync(join(repo, "golden", "history"), { recursive: true });
  write("golden/history/01-first.changes.json", readFileSync("golden/history/01-first.changes.json", "utf8"));
  commit("a feed golden");
  write(
    "golden/history/01-first.changes.json",
    readFileSync("golden/history/01-first.changes.json", "utf8").replace(
      '"title": "Snapshot: a new history begins."',
      '"title": "Snapshot: Harbour Ledger."',
    ),
  );
  commit("a feed golden changes");
  const added = await review("--base", "HEAD~2", "--head", "HEAD~1");
  assert.is(added.code, 0, added.stderr);
  assert.match(
    added.stdout.toString(),
    /\| `golden\/history\/01-first\.changes\.json` \| change feed, added \| see the file list of the pull request \|/,
  );
  const changed = await review("--base", "HEAD~1", "--head", "HEAD");
  assert.is(changed.code, 0, changed.stderr);
  assert.match(
    changed.stdout.toString(),
    /\| `golden\/history\/01-first\.changes\.json` \| change feed \| read the line diff below \|/,
  );
  assert.match(
    changed.stdout.toString(),
    /-\s+"title": "Snapshot: a new history begins\.",\n\+\s+"title": "Snapshot: Harbour Ledger\.",/,
  );
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test.run();
