/**
 * The README's "Your own registry", followed literally on a copy of the repository: each step's
 * block run as written from the root (step 4 on a free port, its one change), and nothing the
 * source withholds reaches any output. And the operator's two lines of the Quick start, on a copy
 * with no node_modules under the machine's own Node.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runKeygen } from "../node/builder/keygen.ts";
import { cleanEnv, run, runCommand } from "./process.ts";
import { bytesUnder, copyRepository } from "./files.ts";
import { freePort, startServer } from "./servers.ts";
import { buildFirst } from "./first-build.ts";

const ROOT = resolve(".");
const work = mkdtempSync(join(tmpdir(), "registry-readme-"));
const clone = join(work, "clone");
const home = join(work, "home");
mkdirSync(home);
const env = cleanEnv({ HOME: home });
/** What step 1's source withholds: the suppressed vault's note and its edge's type. */
const WITHHELD = ["Not for publication.", "feeds", "ops@harbour.example"];

test.after(() => rmSync(work, { recursive: true, force: true }));

/** The block under `<!-- name -->` in the README, as its text. */
function block(name: string): string {
  const text = new RegExp(`<!-- ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(readFileSync("README.md", "utf8"))
    ?.[1];
  assert.ok(text !== undefined, `README has the ${name} block`);
  return text;
}

async function step(name: string): Promise<{ stdout: string; stderr: string }> {
  const done = await run("sh", ["-e", "-c", block(name)], { env, cwd: clone, timeoutMs: 180_000 });
  assert.is(done.code, 0, `${name}:\n${block(name)}\n${done.stderr}`);
  return { stdout: done.stdout.toString(), stderr: done.stderr };
}

test("Your own registry: steps 1 to 5 as written, on a fresh copy of the repository", async () => {
  copyRepository(ROOT, clone);
  symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"));
  assert.not.ok(existsSync(join(clone, "registry.source.json")), "a fresh copy has no source");

  await step("own-registry-1");
  const preview = await step("own-registry-2");
  const document = JSON.parse(preview.stdout);
  assert.is(document.schema_version, "1.0");
  assert.equal(
    document.vaults.map((v: { vault_slug: string; listing?: string }) => [v.vault_slug, v.listing ?? "full"]),
    [["harbour-ledger", "full"], ["quiet-room", "minimal"]],
  );
  assert.is(document.about.canonical_url, "https://registry.example.org/vaults.json");
  const build = await step("own-registry-3");

  const line = block("own-registry-4").trim();
  assert.is(line, "node dist/node/server.mjs");
  const port = await freePort();
  const server = await startServer(
    "sh",
    ["-c", `exec ${line}`],
    { ...env, HOST: "127.0.0.1", PORT: String(port) },
    30_000,
    { cwd: clone },
  );
  let verified: { stdout: string; stderr: string };
  try {
    const verify = block("own-registry-5");
    assert.match(verify, /http:\/\/127\.0\.0\.1:8787 /, "step 5 verifies step 4's default address");
    verified = await run("sh", ["-e", "-c", verify.replace("127.0.0.1:8787", `127.0.0.1:${port}`)], {
      env,
      cwd: clone,
      timeoutMs: 120_000,
    }).then((r) => {
      assert.is(r.code, 0, r.stdout.toString());
      return { stdout: r.stdout.toString(), stderr: r.stderr };
    });
    // Until the build makes change feeds, verify warns once that it serves none; nothing else may warn.
    const warned = verified.stdout.split("\n").filter((line) => /\| (FAIL|warn) \|/.test(line));
    assert.equal(warned, [], "the change feeds are served: nothing warns");
    assert.match(verified.stdout, /^\d+ passed, 0 warned, 0 failed$/m);
  } finally {
    assert.is(await server.stop(), 0);
  }
  for (
    const [what, text] of [["preview", preview.stdout + preview.stderr], ["build", build.stdout + build.stderr], [
      "server",
      server.output(),
    ], ["verify", verified.stdout + verified.stderr]]
  ) {
    for (const secret of WITHHELD) assert.not.ok((text as string).includes(secret), `${what} shows a withheld value`);
  }
  for (
    const file of spawnSync("grep", ["-rl", WITHHELD[0] as string, join(clone, "dist")], { encoding: "utf8" }).stdout
      .split("\n").filter(Boolean)
  ) assert.unreachable(`${file} holds a withheld value`);
});

test("the operator's two lines, as written, on a copy of the repository with no node_modules, under the machine's Node 20: nothing of the proof tooling, the postinstall says why it skipped, the repository's bytes", async () => {
  const operator = join(work, "operator");
  copyRepository(ROOT, operator);
  // The source of step 1, written by its own block.
  const written = await run("sh", ["-e", "-c", block("own-registry-1")], { env, cwd: operator, timeoutMs: 30_000 });
  assert.is(written.code, 0, written.stderr);
  const lines = block("operator-install").trim().split("\n");
  assert.equal(lines.length, 2, "two lines: install, build");
  // A user's shell: the machine's Node (20) first, no node_modules/.bin; npm's own variables and
  // PATH of npm test dropped.
  const userPath = (process.env["PATH"] ?? "").split(":").filter((dir) => !dir.includes("node_modules")).join(":");
  const userEnv = Object.fromEntries(
    Object.entries({
      ...env,
      PATH: userPath,
      npm_config_cache: join(homedir(), ".npm"),
      SOURCE_DATE_EPOCH: "1795800000",
    }).filter(([name]) => !name.startsWith("npm_") || name === "npm_config_cache"),
  );
  assert.match(
    spawnSync("node", ["--version"], { env: userEnv, encoding: "utf8" }).stdout,
    /^v20\./,
    "the user's node is Node 20",
  );
  const install = await run("sh", ["-e", "-c", lines[0] as string], {
    env: userEnv,
    cwd: operator,
    timeoutMs: 300_000,
  });
  assert.is(install.code, 0, install.stderr);
  assert.match(
    install.stdout.toString(),
    /^deploy\/tools: not installed: devDependencies omitted \(an operator's install, --omit=dev\): the deploy tools serve the recipe tests alone$/m,
  );
  const modules = join(operator, "node_modules");
  for (
    const name of [
      "uvu",
      "typescript",
      "fast-check",
      "deno",
      "bun",
      "workerd",
      "node22",
      "node24",
      "node26",
      "serverless",
      "@stryker-mutator",
      "fastify",
      "autocannon",
      "@hono/node-server",
    ]
  ) assert.not.ok(existsSync(join(modules, name)), `${name} installed`);
  assert.not.ok(existsSync(join(operator, "deploy", "tools", "node_modules")), "no deploy tools");
  const bytes = bytesUnder(modules);
  console.log(
    `readme: the operator's install holds ${(bytes / 1024 / 1024).toFixed(1)} MB in node_modules (limit 40 MB)`,
  );
  assert.ok(bytes <= 40 * 1024 * 1024, `${bytes} bytes`);
  // npx links the clone into its cache: the test's own, so no link outlives the copy.
  const build = await run("sh", ["-e", "-c", lines[1] as string], {
    env: { ...userEnv, npm_config_cache: join(work, "npx-cache") },
    cwd: operator,
    timeoutMs: 180_000,
  });
  assert.is(build.code, 0, build.stderr);
  const own = await buildFirst([
    "--source",
    join(operator, "registry.source.json"),
    "--base-url",
    "https://registry.example.org",
    "--out",
    join(work, "repository-dist"),
  ], { env: { ...env, SOURCE_DATE_EPOCH: "1795800000" } });
  assert.is(own.code, 0, own.stderr);
  const listed = (dir: string) =>
    readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) =>
      join(e.parentPath, e.name).slice(dir.length + 1)
    ).sort();
  assert.equal(listed(join(operator, "dist")), listed(join(work, "repository-dist")));
  for (const file of listed(join(work, "repository-dist"))) {
    assert.ok(
      readFileSync(join(operator, "dist", file)).equals(readFileSync(join(work, "repository-dist", file))),
      `dist/${file}: the repository's bytes`,
    );
  }
});

test("the consumer's five lines, as written, pass a signed deployment and refuse one serving a changed document", async () => {
  const text = new RegExp("<!-- consumer-check -->\\n```ts\\n([\\s\\S]*?)```").exec(readFileSync("README.md", "utf8"))
    ?.[1];
  assert.ok(text !== undefined, "README has the consumer-check block");
  assert.is(text.trim().split("\n").length, 5, "five lines");
  assert.match(text, /^import \{ checkManifest \} from "registry-endpoint\/client";$/m);
  // The deployment: a signed build's fetch artifact, served by this process at its own base URL.
  let tamper = false;
  let app: { fetch(request: Request): Promise<Response> } | undefined;
  const server = createServer(async (req, res) => {
    const answer = await app!.fetch(new Request(`http://127.0.0.1${req.url}`));
    const body = new Uint8Array(await answer.arrayBuffer());
    if (tamper && req.url === "/api/registry.v1.json") body[body.length >> 1]! ^= 1;
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "" }).end(body);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const keyFile = join(work, "consumer.pem");
    assert.is((await runCommand(runKeygen, [keyFile], { cwd: work })).code, 0);
    const out = join(work, "consumer-dist");
    const built = await buildFirst(["--source", "fixtures/registry.json", "--base-url", base, "--out", out], {
      env: { ...env, SOURCE_DATE_EPOCH: "1795262400", REGISTRY_SIGNING_KEY: readFileSync(keyFile, "utf8") },
    });
    assert.is(built.code, 0, built.stderr);
    app = ((await import(pathToFileURL(join(out, "fetch", "index.mjs")).href)) as { default: typeof app }).default;
    const script = join(work, "consumer.mts");
    writeFileSync(
      script,
      text.replace("https://registry.example.org", base).replace(
        '"registry-endpoint/client"',
        JSON.stringify(pathToFileURL(join(ROOT, "client", "client.ts")).href),
      ),
    );
    const check = () => run("node", ["--import", "tsx", script], { env, cwd: ROOT, timeoutMs: 60_000 });
    const passed = await check();
    assert.is(passed.code, 0, passed.stderr);
    tamper = true;
    const refused = await check();
    assert.is(refused.code, 1);
    assert.match(refused.stderr, /Error: digest/);
  } finally {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

test("the README stays short and links every document in docs/", () => {
  const readme = readFileSync("README.md", "utf8");
  assert.ok(readme.split("\n").length < 250, `${readme.split("\n").length} lines`);
  const sections = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  assert.equal(sections.slice(0, 2), ["Quick start", "Your own registry"]);
  for (const doc of spawnSync("ls", ["docs"], { encoding: "utf8" }).stdout.split("\n").filter(Boolean)) {
    assert.ok(readme.includes(`](docs/${doc})`), `README links docs/${doc}`);
  }
});

test.run();
