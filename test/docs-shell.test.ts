/**
 * What the docs show runs as written: every fenced shell block of README.md and docs/ has a name,
 * and is run by the test file this table names (which reads it by that name), or here. A line that
 * needs an account (an upload, a secret) is the only kind not run, and each is named when the test
 * runs. The blocks run here, on a fresh copy of the repository whose install is this checkout's
 * (linked, as npm ci made it):
 * the first build of docs/deploying.md, the maintainers' lines, and the S3 upload with `aws`
 * recorded instead of run.
 */
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { copyRepository } from "./files.ts";
import { cleanEnv, run } from "./process.ts";
import { fetchRaw, freePort, startServer } from "./servers.ts";

const ROOT = resolve(".");
const work = mkdtempSync(join(tmpdir(), "registry-docs-shell-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

/** Each block's name, and the test file that runs it as written (`here`: this one). */
const RUN_BY: Readonly<Record<string, string>> = {
  "operator-install": "test/readme.test.ts",
  "own-registry-1": "test/readme.test.ts",
  "own-registry-2": "test/readme.test.ts",
  "own-registry-3": "test/readme.test.ts",
  "own-registry-4": "test/readme.test.ts",
  "own-registry-5": "test/readme.test.ts",
  "maintainers": "here",
  "first-build": "here",
  "history-first": "test/previous.test.ts",
  "history-later": "test/previous.test.ts",
  "netlify-recipe": "test/recipes.test.ts",
  "cloudflare-recipe": "test/recipes.test.ts",
  "aws-recipe": "test/recipes.test.ts",
  "aws-first-deploy": "test/recipes.test.ts",
  "aws-zip-recipe": "test/recipes.test.ts",
  "ci-setup": "test/workflow.test.ts",
  "s3-upload": "here",
};

/** The lines that need an account: they upload, or set a hosted secret. The only lines not run. */
const NEEDS_ACCOUNT = [
  /^\.\.\/tool (netlify deploy|wrangler deploy|serverless deploy)\b/,
  /^gh (secret|variable) set\b/,
  /^\s*aws s3 cp\b/,
];

interface Block {
  readonly file: string;
  readonly name: string | undefined;
  readonly text: string;
}

/** Every fenced shell block of README.md and docs/*.md, with the `<!-- name -->` line before it, if any. */
function shellBlocks(): Block[] {
  const files = ["README.md", ...readdirSync("docs").filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
  return files.flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/(?:<!-- ([\w-]+) -->\n)?```(?:sh|bash|shell|console)\n([\s\S]*?)```/g)]
      .map((m) => ({ file, name: m[1], text: m[2] as string }))
  );
}

/** The block named `name`. */
function block(name: string): string {
  const found = shellBlocks().find((b) => b.name === name);
  assert.ok(found !== undefined, `a block named ${name}`);
  return found.text;
}

test("every shell block of the docs has a name and a test that runs it by that name; the lines needing an account are named", () => {
  const blocks = shellBlocks();
  assert.ok(blocks.length >= 17, `${blocks.length} blocks`);
  const names = blocks.map((b) => b.name);
  for (const b of blocks) {
    assert.ok(b.name !== undefined, `${b.file}: a shell block without a name:\n${b.text}`);
  }
  assert.equal(names.toSorted(), Object.keys(RUN_BY).toSorted(), "each named block is in the table, once");
  for (const [name, by] of Object.entries(RUN_BY)) {
    if (by === "here") continue;
    assert.ok(readFileSync(by, "utf8").includes(`${name}`), `${by} reads the block ${name}`);
  }
  const skipped = blocks.flatMap((b) =>
    b.text.split("\n").filter((line) => NEEDS_ACCOUNT.some((p) => p.test(line))).map((line) => `${b.name}: ${line}`)
  );
  console.log(`docs-shell: not run, each needs an account:\n  ${skipped.join("\n  ")}`);
  assert.ok(skipped.length > 0);
});

/** A fresh copy of the repository with this checkout's install and the README's starter source. */
async function freshCopy(name: string): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
  const dir = join(work, name);
  copyRepository(ROOT, dir);
  // What the install made: the project's node_modules and, by its postinstall, deploy/tools/'s (npx
  // links the copy into its cache and runs that postinstall, which finds them in place).
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  symlinkSync(join(ROOT, "deploy", "tools", "node_modules"), join(dir, "deploy", "tools", "node_modules"));
  const home = join(work, `${name}-home`);
  mkdirSync(home);
  // npx links the copy into its cache: the test's own, so no link outlives the copy.
  const env = cleanEnv({ HOME: home, npm_config_cache: join(work, `${name}-npm`), SOURCE_DATE_EPOCH: "1795800000" });
  const source = await run("sh", ["-e", "-c", block("own-registry-1")], { env, cwd: dir, timeoutMs: 30_000 });
  assert.is(source.code, 0, source.stderr);
  return { dir, env };
}

const feedItems = (dir: string): { _registry: { from: unknown } }[] =>
  JSON.parse(readFileSync(join(dir, "static", "api", "registry.v1.changes.json"), "utf8")).items;

test("docs/deploying.md's first build, as written: every artifact, a new history of one snapshot item", async () => {
  const { dir, env } = await freshCopy("first-build");
  const text = block("first-build");
  assert.match(text, /^npx registry-endpoint build .* --new-history --unsigned\n$/);
  const done = await run("sh", ["-e", "-c", text], { env, cwd: dir, timeoutMs: 180_000 });
  assert.is(done.code, 0, done.stderr);
  const items = feedItems(join(dir, "dist"));
  assert.is(items.length, 1);
  assert.is(items[0]!._registry.from, null);
  for (const artifact of ["node/server.mjs", "fetch/index.mjs", "lambda/index.mjs", "static/vaults.json"]) {
    assert.ok(readFileSync(join(dir, "dist", artifact)).length > 0, artifact);
  }
});

test("the maintainers' lines: npm ci && npm test is what .ci/run runs; npm start serves the embedded snapshot (on a free port)", async () => {
  const lines = block("maintainers").trim().split("\n").map((line) => line.replace(/\s+#.*$/, ""));
  assert.equal(lines, ["npm ci && npm test", "npm ci && npm start"]);
  // The first is CI itself: .ci/run installs exactly the lockfile, then runs the README's test command.
  const ci = readFileSync(".ci/run", "utf8");
  assert.ok(/^if ! npm ci\b/m.test(ci) && /^npm test\b/m.test(ci), ".ci/run runs npm ci, then npm test");
  // The second: its npm ci is the install this copy has (a link to it: npm ci there would replace
  // it); npm start as written, on a free port rather than 8787.
  const { dir, env } = await freshCopy("maintainers");
  const port = await freePort();
  const server = await startServer("sh", ["-c", "exec npm start"], { ...env, PORT: String(port) }, 60_000, {
    cwd: dir,
  });
  try {
    const answer = await fetchRaw(`${server.origin}/vaults.json`);
    assert.is(answer.status, 200);
    const served = JSON.parse(answer.body.toString("utf8"));
    const snapshot = JSON.parse(readFileSync(join(ROOT, "fixtures", "registry.json"), "utf8"));
    assert.is(served.schema_version, "1.0");
    assert.is(served.vault_count, snapshot.vaults.length, "the embedded snapshot");
  } finally {
    assert.is(await server.stop(), 0);
  }
});

test("the S3 upload, as written: the build reads the live URL (a first deploy: 404), and aws s3 cp, which needs an account, is recorded with each file's headers", async () => {
  const { dir, env } = await freshCopy("s3-upload");
  const live: Server = createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((done) => live.listen(0, "127.0.0.1", done));
  const origin = `http://127.0.0.1:${(live.address() as AddressInfo).port}`;
  const bin = join(work, "s3-bin");
  mkdirSync(bin);
  const calls = join(work, "aws-calls.txt");
  writeFileSync(join(bin, "aws"), `#!/bin/sh\nprintf '%s|' "$@" >> '${calls}'\necho >> '${calls}'\n`);
  chmodSync(join(bin, "aws"), 0o755);
  // The one change: the base URL is the local host standing for the live deployment.
  const text = block("s3-upload").replaceAll("https://registry.example.org", origin);
  try {
    const done = await run("sh", ["-e", "-c", text], {
      env: { ...env, PATH: `${bin}:${env["PATH"]}` },
      cwd: dir,
      timeoutMs: 180_000,
    });
    assert.is(done.code, 0, done.stderr);
    assert.match(done.stderr, /nothing published there yet \(404 for every versioned document and change feed\)/);
  } finally {
    await new Promise((done) => live.close(done));
  }
  const recorded = readFileSync(calls, "utf8").trim().split("\n");
  const headers = readFileSync(join(dir, "deploy", "s3", "dist", "static", "_headers"), "utf8");
  const paths = headers.split("\n").filter((l) => l.startsWith("/")).map((l) => l.slice(1));
  assert.ok(paths.includes("vaults.json"));
  for (const path of paths) {
    const call = recorded.find((c) => c.startsWith(`s3|cp|${path}|s3://your-bucket/${path}|`));
    assert.ok(call !== undefined, `aws s3 cp of ${path}`);
    assert.match(call, /\|--content-type\|[^|]+\|--cache-control\|[^|]+\|$/, `${path}: its content type and caching`);
  }
  assert.ok(recorded.some((c) => c.includes("--include|*.d.ts|")), "the consumer types");
});

test.run();
