/**
 * The GitHub Actions workflow `init --ci github` writes: valid by GitHub's workflow schema
 * (action-validator), the same for every platform but its deploy step, shown as it is in
 * docs/deploying.md, and run.
 *
 * The run: the repository cloned (committed files only, node_modules linked), `init --platform
 * netlify --ci github` and `keygen` there, committed as an operator would; then the deploy job,
 * parsed from the YAML, step by step in a fresh clone of that (a clean runner), with bash as
 * Actions runs it (`-eo pipefail`), the workflow's env, and secrets and variables given as env.
 * What cannot run here is emulated and named: `uses:` steps (checkout: the clone is there;
 * setup-node: this Node; cache restore and save: a folder of this test), the Install step's
 * `npm ci` (node_modules is the shared install, linked; `npx registry-endpoint` is a PATH shim
 * running the clone's node/bin/registry-endpoint.ts) and the Deploy step, which needs an account:
 * it copies dist/static/ into the folder a local host serves (with its _headers applied). The
 * source is downloaded from a second local server that wants the token. Twice: a first deploy
 * (404 everywhere: a new history) and a second, with changed data, that carries the history and
 * the signature on; verify --keys passes after each. Then the pull-request job, against the live
 * deployment: no privacy change passes, a vault turned withheld fails.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { validateWorkflow } from "@action-validator/core";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runInit } from "../node/init/init.ts";
import { RECIPES, SOURCE_FILE, STARTER_BASE_URL } from "../node/init/starter.ts";
import { CI_PLATFORMS, type CiPlatform, githubWorkflow, KEYS_FILE, WORKFLOW_FILE } from "../node/init/workflow.ts";
import { cleanEnv, run, runCommand } from "./process.ts";

/** verify's state, kept between runs in the Actions cache. */
const STATE_FILE = "verify-state.json";
/** The recipe's deploy line: its last, the platform's pinned tool. */
const deployLine = (platform: CiPlatform): string => RECIPES[platform].deploy?.at(-1) as string;
/** The secrets each platform's deploy tool reads from its environment. */
const DEPLOY_SECRETS: Record<CiPlatform, readonly string[]> = {
  netlify: ["NETLIFY_AUTH_TOKEN", "NETLIFY_SITE_ID"],
  cloudflare: ["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_ACCOUNT_ID"],
  aws: ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"],
};

/** js-yaml, which the project has installed (json-schema-to-typescript's dependency), has no types of its own. */
const yaml = createRequire(import.meta.url)("js-yaml") as { load(text: string): unknown };

const work = mkdtempSync(join(tmpdir(), "registry-workflow-"));
const servers: Server[] = [];
test.after(() => {
  for (const server of servers) server.close();
  rmSync(work, { recursive: true, force: true });
});

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly env?: Record<string, string>;
  readonly with?: Record<string, string | number>;
  readonly if?: string;
}
interface Job {
  readonly if: string;
  readonly env?: Record<string, string>;
  readonly steps: readonly Step[];
}
interface Workflow {
  readonly on: Record<string, unknown>;
  readonly env: Record<string, string>;
  readonly jobs: { readonly deploy: Job; readonly review: Job };
}
const parse = (text: string) => yaml.load(text) as Workflow;

test("the workflow of each platform validates against GitHub's workflow schema, which refuses a broken one", () => {
  for (const platform of CI_PLATFORMS) {
    assert.equal(validateWorkflow(githubWorkflow(platform)).errors, [], platform);
  }
  const broken = githubWorkflow("netlify").replace("runs-on:", "runs-in:");
  assert.ok(validateWorkflow(broken).errors.length > 0, "a job without runs-on is refused");
});

test("the workflow is the same for every platform but the Deploy step: the recipe's own pinned line and its secrets", () => {
  const without = (platform: (typeof CI_PLATFORMS)[number]) => {
    const parsed = parse(githubWorkflow(platform));
    const deploy = parsed.jobs.deploy.steps.find((step) => step.name === "Deploy");
    assert.ok(deployLine(platform).startsWith("npx "), platform);
    assert.is(deploy?.run, deployLine(platform), `${platform}: the recipe's deploy line`);
    assert.ok(RECIPES[platform].deploy?.includes(deploy?.run ?? ""), platform);
    assert.equal(Object.keys(deploy?.env ?? {}), [...DEPLOY_SECRETS[platform]]);
    for (const [name, value] of Object.entries(deploy?.env ?? {})) assert.is(value, `\${{ secrets.${name} }}`);
    return {
      ...parsed,
      jobs: {
        ...parsed.jobs,
        deploy: { ...parsed.jobs.deploy, steps: parsed.jobs.deploy.steps.filter((s) => s !== deploy) },
      },
    };
  };
  const netlify = without("netlify");
  for (const platform of ["cloudflare", "aws"] as const) assert.equal(without(platform), netlify, platform);
  // On a push to main, on a schedule (daily: a signature lives 7 days) and on pull requests.
  assert.equal(Object.keys(netlify.on).sort(), ["pull_request", "push", "schedule", "workflow_dispatch"]);
  assert.equal(netlify.on["schedule"], [{ cron: "17 3 * * *" }]);
  for (const platform of CI_PLATFORMS) {
    const text = githubWorkflow(platform);
    for (const [, used] of text.matchAll(/\bnpx (\S+)/g)) {
      assert.ok(used === "registry-endpoint" || deployLine(platform).startsWith(`npx ${used} `), `npx ${used}`);
    }
    // Expressions only as env values, never pasted into a script (where a value could become code).
    const parsed = parse(text);
    for (const step of [...parsed.jobs.deploy.steps, ...parsed.jobs.review.steps]) {
      assert.not.ok(step.run?.includes("${{"), `${platform}: ${step.name}`);
    }
  }
});

test("docs/deploying.md shows the workflow init --platform netlify --ci github writes, byte for byte", () => {
  const docs = readFileSync("docs/deploying.md", "utf8");
  const shown = /<!-- init --platform netlify --ci github -->\n```yaml\n([\s\S]*?)```/.exec(docs)?.[1];
  assert.is(shown, githubWorkflow("netlify"));
});

test("docs/deploying.md's setup lines are the ones init --platform netlify --ci github prints", async () => {
  const { result } = await initIn("ci-printed", ["--platform", "netlify", "--ci", "github"]);
  const docs = readFileSync("docs/deploying.md", "utf8");
  const shown = /<!-- ci-setup -->\n```sh\n([\s\S]*?)```/.exec(docs)?.[1]?.trimEnd().split("\n");
  assert.ok(shown !== undefined && shown.length > 0);
  const printed = result.stdout.toString().split("\n").map((line) => line.trim());
  for (const line of shown) assert.ok(printed.includes(line), `init prints ${line}`);
});

/** init with `args` in a fresh folder under `work` prepared by `setup`: its result and the folder. */
async function initIn(name: string, args: string[], setup: (dir: string) => void = () => {}) {
  const dir = join(work, name);
  mkdirSync(dir);
  setup(dir);
  const result = await runCommand(runInit, args, { cwd: dir, env: cleanEnv() });
  return { dir, result };
}

test("init --ci github writes the workflow beside the source and the recipe, never over one, and only for a platform with a deploy tool", async () => {
  const { dir, result } = await initIn("ci-cloudflare", ["--platform", "cloudflare", "--ci", "github"]);
  assert.is(result.code, 0, result.stderr);
  assert.is(readFileSync(join(dir, WORKFLOW_FILE), "utf8"), githubWorkflow("cloudflare"));
  assert.ok(existsSync(join(dir, "wrangler.toml")) && existsSync(join(dir, SOURCE_FILE)));
  assert.match(result.stdout.toString(), /npx registry-endpoint keygen registry-signing\.pem > registry\.keys\.json\n/);
  assert.match(result.stdout.toString(), /gh secret set CLOUDFLARE_API_TOKEN\n/);

  const taken = await initIn("ci-taken", ["--platform", "aws", "--ci", "github"], (d) => {
    mkdirSync(join(d, ".github", "workflows"), { recursive: true });
    writeFileSync(join(d, WORKFLOW_FILE), "mine\n");
  });
  assert.is(taken.result.code, 1);
  assert.is(
    taken.result.stderr,
    `init: not written: ${WORKFLOW_FILE} already exists in ${taken.dir} (init never overwrites a file)\n`,
  );
  assert.is(readFileSync(join(taken.dir, WORKFLOW_FILE), "utf8"), "mine\n");
  assert.not.ok(existsSync(join(taken.dir, SOURCE_FILE)), "nothing else written");

  // A folder that refuses the workflow's folder: neither the source, the recipe nor .github is left.
  const blocked = await initIn("ci-blocked", ["--platform", "netlify", "--ci", "github"], (d) => {
    writeFileSync(join(d, ".github"), "a file where the folder would be\n");
  });
  assert.is(blocked.result.code, 1);
  assert.match(blocked.result.stderr, /^init: not written: cannot write in .* \(ENOTDIR\); nothing of it is left\n$/);
  assert.not.ok(existsSync(join(blocked.dir, SOURCE_FILE)) || existsSync(join(blocked.dir, "netlify.toml")));

  for (
    const [args, message] of [
      [
        ["--platform", "static", "--ci", "github"],
        /^--ci github: the workflow deploys with a platform's pinned tool: give --platform netlify, cloudflare, aws, not static \(usage: /,
      ],
      [["--ci", "github"], /not node \(usage: /],
      [["--platform", "netlify", "--ci", "gitlab"], /^--ci: expected github, got "gitlab" \(usage: /],
    ] as [string[], RegExp][]
  ) {
    const refused = await initIn(`ci-refused-${args.join("")}`, args);
    assert.is(refused.result.code, 2, args.join(" "));
    assert.match(refused.result.stderr, message);
    assert.is(refused.result.stderr.split("\n").length, 2, "one line");
  }
});

test(".gitignore: init names the source, dist/, the platform tools' folders and the signing key, appending only what is missing", async () => {
  const entries = ["/registry.source.json", "dist/", ".netlify", ".wrangler", ".serverless", "/registry-signing.pem"];
  const fresh = await initIn("ignore-fresh", ["--platform", "aws"]);
  const lines = readFileSync(join(fresh.dir, ".gitignore"), "utf8").split("\n");
  for (const entry of entries) assert.ok(lines.includes(entry), entry);
  const some = await initIn(
    "ignore-some",
    ["--platform", "aws"],
    (d) => writeFileSync(join(d, ".gitignore"), "dist/\n.netlify"),
  );
  const kept = readFileSync(join(some.dir, ".gitignore"), "utf8").split("\n").filter((l) =>
    l !== "" && !l.startsWith("#")
  );
  assert.equal(kept, [
    "dist/",
    ".netlify",
    "/registry.source.json",
    ".wrangler",
    ".serverless",
    "/registry-signing.pem",
  ]);
  assert.match(
    some.result.stdout.toString(),
    /and \.gitignore entries for \/registry\.source\.json, \.wrangler, \.serverless, \/registry-signing\.pem \(platform: aws\)/,
  );
  // Git itself leaves every one of them out.
  execFileSync("git", ["init", "-q", some.dir]);
  for (
    const path of [
      "registry.source.json",
      "dist/x",
      ".netlify/x",
      ".wrangler/x",
      ".serverless/x",
      "registry-signing.pem",
    ]
  ) {
    execFileSync("git", ["-C", some.dir, "check-ignore", "-q", path]);
  }
});

// --- the run ------------------------------------------------------------------------------------

const gitEnv = cleanEnv({
  GIT_AUTHOR_NAME: "test",
  GIT_AUTHOR_EMAIL: "test@example.org",
  GIT_COMMITTER_NAME: "test",
  GIT_COMMITTER_EMAIL: "test@example.org",
  GIT_CONFIG_NOSYSTEM: "1",
  HOME: work,
});
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-C", cwd, ...args], { env: gitEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** Listens on 127.0.0.1, a free port; its origin. Closed after the tests. */
async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/**
 * A static host of `folder`, as Netlify serves a publish folder: each path's headers from its
 * `_headers` block, a strong ETag of the bytes, 304 on it, HEAD without a body, 404 elsewhere.
 */
function staticHost(folder: string): Server {
  return createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] as string;
    const file = join(folder, path);
    if (path.includes("..") || path.startsWith("/_headers") || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const headers: Record<string, string> = {};
    const rules = existsSync(join(folder, "_headers")) ? readFileSync(join(folder, "_headers"), "utf8") : "";
    let on = false;
    for (const line of rules.split("\n")) {
      if (line.startsWith("/")) on = line === path;
      else if (on && line.startsWith("  ")) {
        const at = line.indexOf(": ");
        headers[line.slice(2, at)] = line.slice(at + 2);
      }
    }
    const bytes = readFileSync(file);
    const etag = `"${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}"`;
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, { ...headers, etag }).end();
      return;
    }
    res.writeHead(200, { ...headers, etag, "content-length": String(bytes.byteLength) });
    res.end(req.method === "HEAD" ? undefined : bytes);
  });
}

/** Where the source lives, outside the repository: served only with the token. */
const TOKEN = "source-token-for-the-test";
function sourceHost(file: string): Server {
  return createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) res.writeHead(401).end();
    else if (req.url !== "/registry.source.json") res.writeHead(404).end();
    else res.writeHead(200, { "content-type": "application/json" }).end(readFileSync(file));
  });
}

/** The `npx` of every step: `npx registry-endpoint ...` runs the checkout's own command; nothing else runs. */
function npxShim(): string {
  const bin = join(work, "bin");
  mkdirSync(bin);
  writeFileSync(
    join(bin, "npx"),
    `#!/bin/sh
if [ "$1" = registry-endpoint ]; then
  shift
  exec "${process.execPath}" --import "${import.meta.resolve("tsx")}" "$PWD/node/bin/registry-endpoint.ts" "$@"
fi
echo "npx $1: not available in this test" >&2
exit 127
`,
  );
  chmodSync(join(bin, "npx"), 0o755);
  return `${bin}:${dirname(process.execPath)}:${process.env["PATH"] ?? ""}`;
}

/** What one job's run did: each step's name (emulated ones marked), and the failing step's output, if any. */
interface JobRun {
  readonly steps: string[];
  readonly failed?: { step: string; code: number | null; output: string };
  readonly outputs: Record<string, string>;
  readonly summary: string;
}

/**
 * Runs `job` of the committed workflow in a fresh clone of `repo`, as a runner would: its env,
 * `secrets` and `vars` as env, every `run:` with bash, the `uses:` steps, Install and Deploy
 * emulated (see the file's head). Stops at the first failing step.
 */
async function runJob(
  repo: string,
  name: "deploy" | "review",
  context: { secrets: Record<string, string>; vars: Record<string, string>; host: string; cache: string; path: string },
): Promise<JobRun> {
  const runner = mkdtempSync(join(work, `runner-${name}-`));
  rmSync(runner, { recursive: true });
  git(work, "clone", "-q", repo, runner);
  symlinkSync(realpathSync("node_modules"), join(runner, "node_modules"));
  const workflow = parse(readFileSync(join(runner, WORKFLOW_FILE), "utf8"));
  const job = workflow.jobs[name];
  const summary = join(runner, "..", `${runner.split("/").at(-1)}-summary.md`);
  writeFileSync(summary, "");
  const resolveValue = (value: string | number): string =>
    String(value).replace(/\$\{\{ (secrets|vars)\.(\w+) \}\}/g, (_, kind: string, key: string) => {
      const given = (kind === "secrets" ? context.secrets : context.vars)[key];
      assert.ok(given !== undefined, `${kind}.${key} is given`);
      return given;
    });
  const steps: string[] = [];
  const outputs: Record<string, string> = {};
  for (const step of job.steps) {
    assert.is(step.if, undefined, "no step is conditional");
    const cached = join(context.cache, STATE_FILE);
    if (step.uses !== undefined) {
      const action = step.uses.split("@")[0];
      if (action === "actions/checkout") steps.push("checkout (emulated: the clone)");
      else if (action === "actions/setup-node") steps.push("setup-node (emulated: this Node)");
      else if (action === "actions/cache/restore") {
        assert.is(step.with?.["path"], STATE_FILE);
        if (existsSync(cached)) cpSync(cached, join(runner, STATE_FILE));
        steps.push("cache/restore (emulated: a folder of the test)");
      } else if (action === "actions/cache/save") {
        assert.is(step.with?.["path"], STATE_FILE);
        mkdirSync(context.cache, { recursive: true });
        cpSync(join(runner, STATE_FILE), cached);
        steps.push("cache/save (emulated: a folder of the test)");
      } else assert.unreachable(`an action this test does not know: ${step.uses}`);
      continue;
    }
    const script = step.run as string;
    if (step.name === "Install") {
      assert.is(script, "npm ci");
      steps.push("Install (emulated: node_modules linked, npx registry-endpoint a shim)");
      continue;
    }
    if (step.name === "Deploy") {
      assert.is(script, deployLine("netlify"));
      rmSync(context.host, { recursive: true, force: true });
      cpSync(join(runner, "dist", "static"), context.host, { recursive: true });
      steps.push("Deploy (replaced: needs an account; dist/static copied to the local host)");
      continue;
    }
    const env: NodeJS.ProcessEnv = {
      PATH: context.path,
      HOME: work,
      GITHUB_STEP_SUMMARY: summary,
      ...Object.fromEntries(
        Object.entries({ ...workflow.env, ...job.env, ...step.env }).map(([k, v]) => [k, resolveValue(v)]),
      ),
    };
    const done = await run("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], {
      cwd: runner,
      env,
      timeoutMs: 120_000,
    });
    const output = done.stdout.toString("utf8") + done.stderr;
    steps.push(step.name ?? script);
    outputs[step.name ?? script] = output;
    if (done.code !== 0) {
      return {
        steps,
        failed: { step: step.name ?? script, code: done.code, output },
        outputs,
        summary: readFileSync(summary, "utf8"),
      };
    }
  }
  return { steps, outputs, summary: readFileSync(summary, "utf8") };
}

interface FeedItem {
  readonly id: string;
  readonly _registry: { from: { built_at: string; etag: string } | null; to: { built_at: string; etag: string } };
}
const feedAt = (host: string) =>
  (JSON.parse(readFileSync(join(host, "api", "registry.v1.changes.json"), "utf8")) as { items: FeedItem[] }).items;

test("the workflow, run step by step in a clean checkout: a first deploy starts the history, a second carries it and the signature on; a pull request's review fails on a privacy change", async () => {
  // The operator's repository: this one, committed files only, with init's files and the key set.
  const repo = join(work, "repo");
  git(work, "clone", "-q", resolve("."), repo);
  symlinkSync(realpathSync("node_modules"), join(repo, "node_modules"));
  // The link is this test's (the project ignores node_modules/, a folder; a link is a file to git).
  writeFileSync(join(repo, ".git", "info", "exclude"), "/node_modules\n");
  const path = npxShim();
  const shell = (script: string) =>
    run("sh", ["-e", "-c", script], { cwd: repo, env: cleanEnv({ PATH: path, HOME: work }) });
  const init = await shell("npx registry-endpoint init --platform netlify --ci github");
  assert.is(init.code, 0, init.stderr);
  // The key as init says to make it: its printed line, run as written.
  const keygenLine = init.stdout.toString().split("\n").map((line) => line.trim()).find((line) =>
    line.startsWith("npx registry-endpoint keygen ")
  );
  assert.is(keygenLine, `npx registry-endpoint keygen registry-signing.pem > ${KEYS_FILE}`);
  const keygen = await shell(keygenLine as string);
  assert.is(keygen.code, 0, keygen.stderr);
  const host = join(work, "live");
  mkdirSync(host);
  const live = await listen(staticHost(host));
  // The operator's own edit: the base URL consumers use.
  const workflowFile = join(repo, WORKFLOW_FILE);
  writeFileSync(
    workflowFile,
    readFileSync(workflowFile, "utf8").replace(`BASE_URL: ${STARTER_BASE_URL}`, `BASE_URL: ${live}`),
  );
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "the registry's workflow");
  const committed = git(repo, "ls-files").split("\n");
  for (const file of [WORKFLOW_FILE, KEYS_FILE, "netlify.toml"]) {
    assert.ok(committed.includes(file), `${file} is committed`);
  }
  for (const file of [SOURCE_FILE, "registry-signing.pem"]) assert.not.ok(committed.includes(file), `${file} is not`);

  // The source, outside the repository.
  const sourceFile = join(work, "private-source.json");
  const source = JSON.parse(readFileSync(join(repo, SOURCE_FILE), "utf8")) as {
    vaults: { note?: string; suppressed?: boolean }[];
  };
  writeFileSync(sourceFile, JSON.stringify(source));
  const sourceOrigin = await listen(sourceHost(sourceFile));
  const context = {
    secrets: {
      REGISTRY_SOURCE_TOKEN: TOKEN,
      REGISTRY_SIGNING_KEY: readFileSync(join(repo, "registry-signing.pem"), "utf8"),
      NETLIFY_AUTH_TOKEN: "unused: the deploy is replaced",
      NETLIFY_SITE_ID: "unused: the deploy is replaced",
    },
    vars: { REGISTRY_SOURCE_URL: `${sourceOrigin}/registry.source.json` },
    host,
    cache: join(work, "actions-cache"),
    path,
  };

  const first = await runJob(repo, "deploy", context);
  assert.is(first.failed, undefined, JSON.stringify(first.failed));
  assert.equal(first.steps, [
    "checkout (emulated: the clone)",
    "setup-node (emulated: this Node)",
    "Install (emulated: node_modules linked, npx registry-endpoint a shim)",
    "Fetch the source",
    "Build",
    "Deploy (replaced: needs an account; dist/static copied to the local host)",
    "cache/restore (emulated: a folder of the test)",
    "Verify",
    "cache/save (emulated: a folder of the test)",
  ]);
  assert.match(first.outputs["Build"] ?? "", /new history/i, "a first deploy (404 everywhere) starts a history");
  assert.match(first.outputs["Verify"] ?? "", /manifest: signature, issuer, version, seq and exp \| pass/);
  assert.is(feedAt(host).length, 1);
  const firstSeq =
    (JSON.parse(readFileSync(join(context.cache, STATE_FILE), "utf8")) as Record<string, { seq: number }>)[`${live} v1`]
      ?.seq;
  assert.ok(typeof firstSeq === "number", "verify's state is kept in the cache");

  // The data changes outside the repository; the next run (a push, or the daily one) carries on.
  (source.vaults[0] as { note: string }).note = "Changed before the second deploy.";
  writeFileSync(sourceFile, JSON.stringify(source));
  await new Promise((done) => setTimeout(done, 1100)); // a later built_at, in whole seconds
  const second = await runJob(repo, "deploy", context);
  assert.is(second.failed, undefined, JSON.stringify(second.failed));
  assert.not.match(second.outputs["Build"] ?? "", /new history/i);
  assert.match(second.outputs["Verify"] ?? "", /manifest: signature, issuer, version, seq and exp \| pass/);
  const items = feedAt(host);
  assert.is(items.length, 2, "the second build's feed: its item and the first one's");
  assert.equal(items[0]?._registry.from, items[1]?._registry.to, "in a chain");
  assert.is(items[1]?._registry.from, null);
  const state = JSON.parse(readFileSync(join(context.cache, STATE_FILE), "utf8")) as Record<string, { seq: number }>;
  assert.ok((state[`${live} v1`]?.seq ?? 0) > firstSeq, "the second manifest's seq, accepted after the first");
  assert.is(readFileSync(join(host, "api", "registry.v1.changes.json"), "utf8").includes("Changed before"), true);

  // A pull request: what this branch would publish against the live document.
  const unchanged = await runJob(repo, "review", context);
  assert.is(unchanged.failed, undefined, JSON.stringify(unchanged.failed));
  assert.match(
    unchanged.summary,
    /^### registry diff: `live\.json` → `preview\.json`\n\n0 breaking · 0 dangerous/,
    "in the job summary",
  );
  (source.vaults[0] as { suppressed: boolean }).suppressed = true;
  writeFileSync(sourceFile, JSON.stringify(source));
  const withheld = await runJob(repo, "review", context);
  assert.is(withheld.failed?.step, "Review", "a vault turned withheld fails the review");
  assert.is(withheld.failed?.code, 1);
  assert.match(withheld.summary, /privacy/i);
});

test.run();
