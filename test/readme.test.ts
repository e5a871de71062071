/**
 * The README's "Your own registry", followed literally on a copy of the repository: each step's
 * block run as written from the root (step 4 on a free port, its one change), and nothing the
 * source withholds reaches any output.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { cleanEnv, run } from "./process.ts";
import { freePort, startServer } from "./servers.ts";

const ROOT = resolve(".");
const work = mkdtempSync(join(tmpdir(), "registry-readme-"));
const clone = join(work, "clone");
const home = join(work, "home");
mkdirSync(home);
const env = cleanEnv({ HOME: home });
/** What step 1's source withholds: the suppressed vault's note and its edge's type. */
const WITHHELD = ["Not for publication.", "feeds"];

test.after(() => rmSync(work, { recursive: true, force: true }));

/** The block under `<!-- name -->` in the README, as its text. */
function block(name: string): string {
  const text = new RegExp(`<!-- ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(readFileSync("README.md", "utf8"))?.[1];
  assert.ok(text !== undefined, `README has the ${name} block`);
  return text;
}

async function step(name: string): Promise<{ stdout: string; stderr: string }> {
  const done = await run("sh", ["-e", "-c", block(name)], { env, cwd: clone, timeoutMs: 180_000 });
  assert.is(done.code, 0, `${name}:\n${block(name)}\n${done.stderr}`);
  return { stdout: done.stdout.toString(), stderr: done.stderr };
}

test("Your own registry: steps 1 to 5 as written, on a fresh copy of the repository", async () => {
  const files = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" }).stdout.split("\0").filter((f) => f !== "" && existsSync(join(ROOT, f)));
  for (const file of files) cpSync(join(ROOT, file), join(clone, file));
  symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"));
  assert.not.ok(existsSync(join(clone, "registry.source.json")), "a fresh copy has no source");

  await step("own-registry-1");
  const preview = await step("own-registry-2");
  const document = JSON.parse(preview.stdout);
  assert.is(document.schema_version, "1.0");
  assert.equal(document.vaults.map((v: { vault_slug: string; listing?: string }) => [v.vault_slug, v.listing ?? "full"]), [["harbour-ledger", "full"], ["quiet-room", "minimal"]]);
  assert.is(document.about.canonical_url, "https://registry.example.org/vaults.json");
  const build = await step("own-registry-3");

  const line = block("own-registry-4").trim();
  assert.is(line, "node dist/node/server.mjs");
  const port = await freePort();
  const server = await startServer("sh", ["-c", `exec ${line}`], { ...env, HOST: "127.0.0.1", PORT: String(port) }, 30_000, { cwd: clone });
  let verified: { stdout: string; stderr: string };
  try {
    const verify = block("own-registry-5");
    assert.match(verify, /http:\/\/127\.0\.0\.1:8787 /, "step 5 verifies step 4's default address");
    verified = await run("sh", ["-e", "-c", verify.replace("127.0.0.1:8787", `127.0.0.1:${port}`)], { env, cwd: clone, timeoutMs: 120_000 }).then((r) => {
      assert.is(r.code, 0, r.stdout.toString());
      return { stdout: r.stdout.toString(), stderr: r.stderr };
    });
    // Until the build makes change feeds, verify warns once that it serves none; nothing else may warn.
    const warned = verified.stdout.split("\n").filter((line) => /\| (FAIL|warn) \|/.test(line));
    assert.ok(warned.every((line) => line.startsWith("| v1 serves no change feed (a build older than the change feed) | warn |")), warned.join("\n"));
    assert.match(verified.stdout, /^\d+ passed, [01] warned, 0 failed$/m);
  } finally {
    assert.is(await server.stop(), 0);
  }
  for (const [what, text] of [["preview", preview.stdout + preview.stderr], ["build", build.stdout + build.stderr], ["server", server.output()], ["verify", verified.stdout + verified.stderr]]) {
    for (const secret of WITHHELD) assert.not.ok((text as string).includes(secret), `${what} shows a withheld value`);
  }
  for (const file of spawnSync("grep", ["-rl", WITHHELD[0] as string, join(clone, "dist")], { encoding: "utf8" }).stdout.split("\n").filter(Boolean)) assert.unreachable(`${file} holds a withheld value`);
});

test("the README stays short and links every document in docs/", () => {
  const readme = readFileSync("README.md", "utf8");
  assert.ok(readme.split("\n").length < 250, `${readme.split("\n").length} lines`);
  const sections = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  assert.equal(sections.slice(0, 2), ["Quick start", "Your own registry"]);
  for (const doc of spawnSync("ls", ["docs"], { encoding: "utf8" }).stdout.split("\n").filter(Boolean)) assert.ok(readme.includes(`](docs/${doc})`), `README links docs/${doc}`);
});

test.run();
