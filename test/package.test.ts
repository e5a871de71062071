/**
 * The package as a user gets it: `npm pack` on a copy of the repository, the tarball installed into
 * an empty project (npm's cache first, the registry for what it lacks) by a user whose Node is the
 * floor, 22, and there, on Node 22, 24 and 26 each called explicitly, the `registry-endpoint`
 * command: `init`, `build` (byte for byte the repository's build of the same source, base URL and
 * SOURCE_DATE_EPOCH), `preview`, `diff`, `verify` against the built server, `serve`, `--help` and
 * usage errors; `init` for each platform, its recipe built as written and checked with the
 * platform's own tool; and the library exports. And a clone after the README's operator install:
 * the same `npx registry-endpoint` lines with the same output, and the same library imports.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tablePaths } from "../contract/version-policy.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { BUILD_LINE, type Platform, RECIPES, STARTER_BASE_URL, STARTER_SOURCE } from "../node/init/starter.ts";
import { bytesUnder, copyRepository, filesUnder } from "./files.ts";
import { cleanEnv, run } from "./process.ts";
import { fetchRaw, freePort, startServer } from "./servers.ts";
import { buildFirst } from "./first-build.ts";

const ROOT = resolve(".");
const DENO = join(ROOT, "node_modules", ".bin", "deno");
const work = mkdtempSync(join(tmpdir(), "registry-package-"));
const copy = join(work, "repository");
const project = join(work, "project");
/** What the tests of this file share: the tarball, and the repository's build of the starter source. */
let tarball = "";
const MAX_INSTALLED_BYTES = 40 * 1024 * 1024;
const BASE_URL = "https://registry.example.org";
const EPOCH = "1795800000"; // 2026-11-27T17:20:00Z

/** The Node lines the package runs on, each binary called explicitly: the floor first. */
const NODES: readonly [string, string][] = [
  ["Node 22", join(ROOT, "node_modules", "node22", "bin", "node")],
  ["Node 24", join(ROOT, "node_modules", "node24", "bin", "node")],
  ["Node 26", join(ROOT, "node_modules", "node26", "bin", "node")],
];

/**
 * A user's shell: npm's own variables (npm test sets them) would steer the inner npm; PATH without
 * node_modules/.bin, and the user's Node the floor, Node 22 (the machine's own is older).
 */
const env = cleanEnv(
  Object.fromEntries([
    ...Object.keys(process.env).filter((name) => name.startsWith("npm_")).map((name) => [name, undefined]),
    [
      "PATH",
      [
        join(ROOT, "node_modules", "node22", "bin"),
        ...(process.env["PATH"] ?? "").split(delimiter).filter((dir) => !dir.includes("node_modules")),
      ].join(delimiter),
    ],
  ]),
);

/** The user's `node`: Node 22. */
const USER_NODE = NODES[0]?.[1] as string;

/** Asserts `a` and `b` hold the same files with the same bytes. */
function assertSameTree(a: string, b: string, what: string): void {
  assert.equal(filesUnder(b), filesUnder(a), `${what}: the same files`);
  for (const file of filesUnder(a)) {
    assert.ok(readFileSync(join(a, file)).equals(readFileSync(join(b, file))), `${what}: ${file} differs`);
  }
}

test.before(async () => {
  // npm pack runs prepack and postpack in the folder it packs: a copy, so the working tree is never touched.
  copyRepository(ROOT, copy);
  symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
  const packed = await run("npm", ["pack", "--json", "--pack-destination", work], {
    cwd: copy,
    env,
    timeoutMs: 180_000,
  });
  assert.is(packed.code, 0, packed.stderr);
  tarball = join(work, (JSON.parse(packed.stdout.toString()) as { filename: string }[])[0]?.filename ?? "");
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    `${JSON.stringify({ name: "an-operator", private: true, type: "module" })}\n`,
  );
  const installed = await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball], {
    cwd: project,
    env,
    timeoutMs: 300_000,
  });
  assert.is(installed.code, 0, installed.stderr);
});
test.after(() => rmSync(work, { recursive: true, force: true }));

test("npm pack ships the compiled command and library, the TypeScript the build bundles, the embedded snapshot, the reviewed types the build writes and their inputs' digests, and the docs its messages name; no tests, other goldens or other fixtures", () => {
  const listed = spawnSync("tar", ["-tzf", tarball], { encoding: "utf8" }).stdout.split("\n").filter(Boolean).map((f) =>
    f.replace(/^package\//, "")
  );
  for (
    const file of [
      "lib/bin/registry-endpoint.mjs",
      "lib/registry.js",
      "lib/registry.d.ts",
      "lib/handler.js",
      "lib/handler.d.ts",
      "http/app.ts",
      "node/bin/artifact-server.ts",
      "node/serve/artifact-server.ts",
      "fixtures/registry.json",
      "golden/registry.v1.d.ts",
      "golden/registry.v1.d.ts.input",
      "golden/registry.v1.changes.d.ts",
      "golden/registry.v1.changes.d.ts.input",
      "README.md",
      "LICENSE",
      "docs/deploying.md",
      "docs/goldens.md",
    ]
  ) {
    assert.ok(listed.includes(file), `ships ${file}`);
  }
  for (const file of listed) {
    assert.not.match(
      file,
      /^(test|bench|examples|\.github)\/|^golden\/(?!registry\.v\d+\.(changes\.)?d\.ts(\.input)?$)|^fixtures\/(?!registry\.json$)|\.test\.ts$|^package-lock\.json$/,
      `ships ${file}`,
    );
  }
  const manifest = JSON.parse(
    spawnSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" }).stdout,
  ) as Record<string, unknown>;
  for (const key of ["devDependencies", "optionalDependencies", "scripts", "private"]) {
    assert.is(manifest[key], undefined, `the packed package.json has no ${key}`);
  }
  assert.not.ok(Object.keys(manifest["dependencies"] as object).includes("tsx"), "tsx is no runtime dependency");
  // A clone's bin and exports name the TypeScript; the package's, the compiled files it ships.
  const shipped = [
    ...Object.values(manifest["bin"] as Record<string, string>),
    ...Object.values(manifest["exports"] as Record<string, string | Record<string, string>>).flatMap((target) =>
      typeof target === "string" ? [target] : Object.values(target)
    ),
  ].map((file) => file.replace(/^\.\//, ""));
  assert.equal(shipped.filter((file) => !listed.includes(file)), [], "bin and exports name shipped files");
  assert.equal(shipped.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts")), [], "and compiled ones");
  // postpack put the repository's own package.json back.
  assert.ok(
    readFileSync(join(copy, "package.json")).equals(readFileSync(join(ROOT, "package.json"))),
    "the packed folder's package.json is restored",
  );
});

test("prepack after the light install (no TypeScript): one line saying packing needs npm ci, exit 1, nothing built", async () => {
  const light = join(work, "light");
  copyRepository(ROOT, light);
  // The light install's node_modules, as links: every package but TypeScript, a devDependency.
  mkdirSync(join(light, "node_modules", ".bin"), { recursive: true });
  for (const name of readdirSync(join(ROOT, "node_modules")).filter((n) => n !== ".bin" && n !== "typescript")) {
    symlinkSync(join(ROOT, "node_modules", name), join(light, "node_modules", name));
  }
  for (const name of readdirSync(join(ROOT, "node_modules", ".bin")).filter((n) => n !== "tsc" && n !== "tsserver")) {
    symlinkSync(join(ROOT, "node_modules", ".bin", name), join(light, "node_modules", ".bin", name));
  }
  const manifest = readFileSync(join(light, "package.json"));
  // What npm pack runs first: the prepack script, as package.json writes it.
  const prepack = (JSON.parse(manifest.toString()) as { scripts: Record<string, string> }).scripts["prepack"] as string;
  const packed = await run("sh", ["-c", prepack], { cwd: light, env, timeoutMs: 60_000 });
  assert.is(packed.code, 1);
  assert.is(
    packed.stderr,
    "prepack: packing needs the full install (npm ci): tsc, a devDependency, is not installed\n",
  );
  assert.not.ok(existsSync(join(light, "lib")), "nothing built");
  assert.ok(readFileSync(join(light, "package.json")).equals(manifest), "the repository's package.json in place");
});

test("installed into an empty project: node_modules at most 40 MB, no tsx, no TypeScript, no Node binaries", () => {
  const modules = join(project, "node_modules");
  const bytes = bytesUnder(modules);
  console.log(
    `package: the installed node_modules holds ${(bytes / 1024 / 1024).toFixed(1)} MB in files (limit ${
      MAX_INSTALLED_BYTES / 1024 / 1024
    } MB)`,
  );
  assert.ok(bytes <= MAX_INSTALLED_BYTES, `${bytes} bytes`);
  for (const name of ["tsx", "typescript", "node22", "node24", "uvu", "deno", "bun"]) {
    assert.not.ok(existsSync(join(modules, name)), `${name} installed`);
  }
  assert.ok(existsSync(join(modules, ".bin", "registry-endpoint")), "the command is linked");
});

for (const [line, node] of NODES) {
  test(`${line}: init, build (the repository's bytes), preview, diff, verify, serve, --help and usage errors`, async () => {
    const version = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim();
    assert.match(version, new RegExp(`^v${line.split(" ")[1]}\\.`), `${node} is ${line}`);
    const dir = join(project, line.replace(" ", "-").toLowerCase());
    mkdirSync(dir);
    const command = join(project, "node_modules", ".bin", "registry-endpoint");
    const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
      run(node, [command, ...args], { cwd: dir, env: { ...env, ...extra }, timeoutMs: 120_000 });

    const init = await cli(["init", "--platform", "node"]);
    assert.is(init.code, 0, init.stderr);
    assert.equal(readdirSync(dir).sort(), [".gitignore", "registry.source.json", "start.sh"]);
    const again = await cli(["init", "--platform", "node"]);
    assert.is(again.code, 1);
    assert.match(
      again.stderr,
      /^init: not written: registry\.source\.json, start\.sh already exist in .* \(init never overwrites a file\)\n$/,
    );

    const built = await cli([
      "build",
      "--source",
      "registry.source.json",
      "--base-url",
      BASE_URL,
      "--new-history",
      "--unsigned",
    ], {
      SOURCE_DATE_EPOCH: EPOCH,
    });
    assert.is(built.code, 0, built.stderr);
    const repository = join(work, `repository-build-${line.split(" ")[1]}`);
    const own = await buildFirst([
      "--source",
      join(dir, "registry.source.json"),
      "--base-url",
      BASE_URL,
      "--out",
      repository,
    ], { env: { ...cleanEnv(), SOURCE_DATE_EPOCH: EPOCH } });
    assert.is(own.code, 0, own.stderr);
    assertSameTree(repository, join(dir, "dist"), `${line}: the installed build against the repository's`);

    const preview = await cli(["preview", "registry.source.json", "--base-url", BASE_URL], {
      SOURCE_DATE_EPOCH: EPOCH,
    });
    assert.is(preview.code, 0, preview.stderr);
    assert.ok(
      preview.stdout.equals(readFileSync(join(dir, "dist", "static", "vaults.json"))),
      "preview writes the built document's bytes",
    );

    // A diff: the same document is no change; with the withheld vault published, a privacy change.
    const source = JSON.parse(readFileSync(join(dir, "registry.source.json"), "utf8")) as {
      vaults: { suppressed?: boolean }[];
    };
    for (const vault of source.vaults) delete vault.suppressed;
    writeFileSync(join(dir, "published.json"), JSON.stringify(source));
    const published = await cli(["preview", "published.json", "--base-url", BASE_URL], { SOURCE_DATE_EPOCH: EPOCH });
    writeFileSync(join(dir, "published-document.json"), published.stdout);
    const same = await cli(["diff", "dist/static/vaults.json", "dist/static/vaults.json"]);
    assert.is(same.code, 0, same.stderr);
    assert.match(same.stdout.toString(), /No change/);
    const privacy = await cli(["diff", "dist/static/vaults.json", "published-document.json", "--fail-on", "privacy"]);
    assert.is(privacy.code, 1, privacy.stderr);
    assert.match(privacy.stdout.toString(), /privacy/);

    const server = await startServer(node, [join(dir, "dist", "node", "server.mjs")], {
      ...env,
      HOST: "127.0.0.1",
      PORT: "0",
    });
    try {
      const verified = await cli(["verify", server.origin, "--expect-base", BASE_URL]);
      assert.is(verified.code, 0, verified.stdout.toString() + verified.stderr);
      assert.match(verified.stdout.toString(), /^\d+ passed, 0 warned, 0 failed$/m);
    } finally {
      assert.is(await server.stop(), 0);
    }

    const serve = await startServer(
      node,
      [command, "serve"],
      { ...env, HOST: "127.0.0.1", PORT: "0", REGISTRY_SOURCE: "registry.source.json", SOURCE_DATE_EPOCH: EPOCH },
      30_000,
      { cwd: dir },
    );
    try {
      const answer = await fetchRaw(`${serve.origin}/vaults.json`, { headers: { "accept-encoding": "identity" } });
      assert.is(answer.status, 200);
      assert.is(JSON.parse(answer.body.toString()).vaults.length, 2);
    } finally {
      assert.is(await serve.stop(), 0);
    }

    for (const sub of ["build", "preview", "diff", "verify", "serve", "init", "keygen"]) {
      const help = await cli([sub, "--help"]);
      assert.is(help.code, 0, `${sub} --help: ${help.stderr}`);
      assert.match(
        help.stdout.toString(),
        new RegExp(`^usage: registry-endpoint ${sub}\\b`),
        `${sub} --help names the command`,
      );
      const bad = await cli([sub, "--no-such-flag"]);
      assert.is(bad.code, 2, `${sub} --no-such-flag`);
      assert.match(
        bad.stderr,
        new RegExp(`^[^\\n]+ \\(usage: registry-endpoint ${sub}\\b[^\\n]*\\n$`),
        `${sub} --no-such-flag: one line naming the command`,
      );
    }
    const unknown = await cli(["publish"]);
    assert.is(unknown.code, 2);
    assert.is(
      unknown.stderr,
      'unknown command "publish" (usage: registry-endpoint <build|preview|diff|verify|serve|init|keygen> [flags]; --help for more)\n',
    );
    // A misspelt command within two edits of one is named.
    const misspelt = await cli(["biuld"]);
    assert.is(misspelt.code, 2);
    assert.match(misspelt.stderr, /^unknown command "biuld"; did you mean build\? \(usage: registry-endpoint </);
    const help = await cli(["--help"]);
    assert.is(help.code, 0);
    for (const sub of ["build", "preview", "diff", "verify", "serve", "init"]) {
      assert.match(help.stdout.toString(), new RegExp(`\\n  ${sub} `));
    }
  });
}

/** The README's operator install, as its Quick start writes it. */
const OPERATOR_INSTALL = /<!-- operator-install -->\n```sh\n(.*)\n/.exec(readFileSync("README.md", "utf8"))?.[1] ?? "";

/** Lines a user runs from a clone and from the installed package alike. */
const SAME_LINES = [
  "npx registry-endpoint --help",
  ...["build", "preview", "diff", "verify", "serve", "init", "keygen"].flatMap((sub) => [
    `npx registry-endpoint ${sub} --help`,
    `npx registry-endpoint ${sub} --no-such-flag`,
  ]),
  "npx registry-endpoint publish",
  "npx registry-endpoint init --platform node",
  `npx registry-endpoint build --source registry.source.json --base-url ${BASE_URL} --new-history --unsigned`,
  `npx registry-endpoint preview registry.source.json --base-url ${BASE_URL}`,
  "npx registry-endpoint diff dist/static/vaults.json dist/static/vaults.json",
];

/** The library as a consumer imports it: each entry's export names. */
const IMPORTS = `const names = {};
for (const entry of ["registry-endpoint", "registry-endpoint/handler", "registry-endpoint/client"]) {
  names[entry] = Object.keys(await import(entry)).sort();
}
process.stdout.write(JSON.stringify(names));`;

test("a clone after the README's operator install: each npx registry-endpoint line prints and writes what it does in the installed package, and the library imports the same on Node 22, 24 and 26", async () => {
  assert.is(OPERATOR_INSTALL, "npm ci --omit=dev --omit=optional");
  const clone = join(work, "clone");
  copyRepository(ROOT, clone);
  // npm's cache as the user has it (installs offline first); npx's links in a cache of the test's own.
  const userEnv = { ...env, npm_config_cache: join(homedir(), ".npm") };
  const installed = await run("sh", ["-e", "-c", `${OPERATOR_INSTALL} --prefer-offline --no-audit --no-fund`], {
    cwd: clone,
    env: userEnv,
    timeoutMs: 300_000,
  });
  assert.is(installed.code, 0, installed.stderr);
  assert.not.match(installed.stderr, /EBADENGINE/, "Node 22 is no unsupported engine");
  const lineEnv = { ...env, SOURCE_DATE_EPOCH: EPOCH, npm_config_cache: join(work, "npx-cache") };
  const dirs = { clone: join(clone, "trial"), "installed package": join(project, "trial") };
  for (const dir of Object.values(dirs)) mkdirSync(dir);
  for (const line of SAME_LINES) {
    const results = [];
    for (const [where, dir] of Object.entries(dirs)) {
      const done = await run("sh", ["-c", line], { cwd: dir, env: lineEnv, timeoutMs: 120_000 });
      const text = (bytes: string) => bytes.replaceAll(dir, "DIR");
      results.push({ where, code: done.code, stdout: text(done.stdout.toString()), stderr: text(done.stderr) });
    }
    const [fromClone, fromPackage] = results.map(({ where: _, ...result }) => result);
    assert.equal(fromClone, fromPackage, line);
    assert.ok(fromPackage?.code === 0 || fromPackage?.code === 2, `${line}: exit ${fromPackage?.code}`);
  }
  assertSameTree(join(dirs["installed package"], "dist"), join(dirs.clone, "dist"), "the clone's build");
  for (const dir of Object.values(dirs)) {
    const keygen = await run("sh", ["-c", "npx registry-endpoint keygen signing.pem"], { cwd: dir, env: lineEnv });
    assert.is(keygen.code, 0, keygen.stderr);
    assert.is((JSON.parse(keygen.stdout.toString()) as { keys: unknown[] }).keys.length, 1);
    assert.is(statSync(join(dir, "signing.pem")).mode & 0o777, 0o600);
  }
  for (const [line, node] of NODES) {
    const names = await Promise.all(
      [clone, project].map((cwd) => run(node, ["--input-type=module", "-e", IMPORTS], { cwd, env, timeoutMs: 30_000 })),
    );
    for (const done of names) assert.equal([done.code, done.stderr], [0, ""], line);
    assert.equal(names[0]?.stdout.toString(), names[1]?.stdout.toString(), `${line}: the same exports`);
    assert.match(names[0]?.stdout.toString() ?? "", /"catchUp"/);
  }
  // The recipes' deploy tools come with the full install: the operator's has none, and says so.
  const tool = await run("sh", ["../tool", "netlify", "--version"], { cwd: join(clone, "deploy", "netlify"), env });
  assert.equal([tool.code, tool.stdout.toString(), tool.stderr], [
    127,
    "",
    "deploy/tool: netlify is not installed: the recipes' deploy tools come with the full install (npm ci in the repository root)\n",
  ]);
});

/** Runs a deploy tool as the recipe tests do: deploy/tool (netlify and wrangler from deploy/tools, serverless from the project) under Node 22. */
const tool = (dir: string, args: string[]) =>
  run(join(ROOT, "deploy", "tool"), args, {
    cwd: dir,
    timeoutMs: 240_000,
    env: {
      ...env,
      HOME: join(work, "home"),
      WRANGLER_SEND_METRICS: "false",
      NETLIFY_TELEMETRY_DISABLED: "1",
      SLS_TELEMETRY_DISABLED: "1",
      SLS_NOTIFICATIONS_MODE: "off",
      SLS_DEPRECATION_DISABLE: "*",
    },
  });

/**
 * A deployment that has published nothing yet: every path answers 404. The recipes' build line
 * reads the live base URL as `--previous`, so a first deploy there starts the history.
 */
const unpublished = createServer((_req, res) => res.writeHead(404).end());
await new Promise<void>((done) => unpublished.listen(0, "127.0.0.1", done));
const FIRST_DEPLOY = `http://127.0.0.1:${(unpublished.address() as AddressInfo).port}`;
test.after(() => void unpublished.close());

/**
 * init --platform P in a fresh folder of the project, then the build line its recipe names, run as
 * written against a first deploy's base URL (FIRST_DEPLOY); node's start.sh builds on its own start.
 */
async function initAndBuild(platform: Platform): Promise<string> {
  const dir = join(project, `init-${platform}`);
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(work, "home"), { recursive: true });
  const init = await run(USER_NODE, [
    join(project, "node_modules", ".bin", "registry-endpoint"),
    "init",
    "--platform",
    platform,
  ], { cwd: dir, env, timeoutMs: 30_000 });
  assert.is(init.code, 0, init.stderr);
  const recipe = readFileSync(join(dir, RECIPES[platform].file), "utf8");
  assert.match(readFileSync(join(dir, ".gitignore"), "utf8"), /^\/registry\.source\.json$/m);
  const ignored = spawnSync("git", ["-C", dir, "init", "-q"]).status === 0 &&
    spawnSync("git", ["-C", dir, "check-ignore", "-q", "registry.source.json"]).status === 0;
  assert.ok(ignored, `${platform}: git ignores the source`);
  if (platform === "node") return dir;
  let build;
  if (platform === "deno") {
    assert.ok(recipe.includes(STARTER_BASE_URL), "deno.json's task names the base URL");
    writeFileSync(join(dir, "deno.json"), recipe.replaceAll(STARTER_BASE_URL, FIRST_DEPLOY));
    build = await run(DENO, ["task", "build"], {
      cwd: dir,
      env: { ...env, SOURCE_DATE_EPOCH: EPOCH },
      timeoutMs: 120_000,
    });
  } else {
    assert.ok(recipe.includes(BUILD_LINE), `${platform}: the recipe names the build line`);
    build = await run("sh", ["-e", "-c", BUILD_LINE], {
      cwd: dir,
      env: { ...env, BASE_URL: FIRST_DEPLOY, SOURCE_DATE_EPOCH: EPOCH },
      timeoutMs: 120_000,
    });
  }
  assert.is(build.code, 0, `${platform}: ${build.stderr}`);
  assert.match(
    build.stderr.toString(),
    /nothing published there yet.*starts a new history/,
    `${platform}: a first deploy`,
  );
  return dir;
}

/** verify against `origin`, built for `expect` (the starter's base URL unless given): nothing fails. */
async function verifies(origin: string, flags: string[] = [], expect = STARTER_BASE_URL): Promise<void> {
  const verified = await run(USER_NODE, [
    join(project, "node_modules", ".bin", "registry-endpoint"),
    "verify",
    origin,
    "--expect-base",
    expect,
    ...flags,
  ], { env, timeoutMs: 120_000 });
  assert.is(verified.code, 0, verified.stdout.toString() + verified.stderr);
}

test("init --platform netlify: netlify build --offline packages the one function with the version table's routes; the publish folder is the static export", async () => {
  const dir = await initAndBuild("netlify");
  const done = await tool(dir, ["netlify", "build", "--offline"]);
  assert.is(done.code, 0, done.stdout.toString() + done.stderr);
  const manifest = JSON.parse(readFileSync(join(dir, ".netlify", "functions", "manifest.json"), "utf8")) as {
    functions: { name: string; routes: { literal: string }[] }[];
  };
  assert.equal(manifest.functions.map((f) => [f.name, f.routes.map((r) => r.literal)]), [[
    "index",
    tablePaths(VERSIONS),
  ]]);
  assert.ok(existsSync(join(dir, "dist", "static", "vaults.json")));
});

test("init --platform cloudflare: wrangler deploy --dry-run uploads the built Worker byte for byte", async () => {
  const dir = await initAndBuild("cloudflare");
  const done = await tool(dir, ["wrangler", "deploy", "--dry-run", "--outdir", "upload"]);
  assert.is(done.code, 0, done.stdout.toString() + done.stderr);
  assert.ok(
    readFileSync(join(dir, "upload", "index.mjs")).equals(readFileSync(join(dir, "dist", "fetch", "index.mjs"))),
  );
});

test("init --platform aws: serverless package holds the Lambda file alone, and its handler answers the build's bytes under Node 22", async () => {
  const dir = await initAndBuild("aws");
  const done = await tool(dir, ["serverless", "package"]);
  assert.is(done.code, 0, done.stdout.toString() + done.stderr);
  const listed = spawnSync("unzip", ["-Z1", join(dir, ".serverless", "registry.zip")], { encoding: "utf8" }).stdout
    .split("\n").filter(Boolean);
  assert.equal(listed, ["dist/lambda/index.mjs"]);
  const event = {
    ...(JSON.parse(readFileSync(join(ROOT, "fixtures", "aws-events", "apigw-rest-v1.json"), "utf8")) as object),
    path: "/vaults.json",
    httpMethod: "GET",
  };
  const script = `const m = await import(${
    JSON.stringify(join(dir, "dist", "lambda", "index.mjs"))
  }); process.stdout.write(JSON.stringify(await m.handler(${JSON.stringify(event)})));`;
  const invoked = await run(USER_NODE, ["--input-type=module", "-e", script], { env, timeoutMs: 30_000 });
  assert.is(invoked.code, 0, invoked.stderr);
  const answer = JSON.parse(invoked.stdout.toString()) as {
    statusCode: number;
    body: string;
    isBase64Encoded?: boolean;
  };
  assert.is(answer.statusCode, 200);
  const body = answer.isBase64Encoded === true ? Buffer.from(answer.body, "base64") : Buffer.from(answer.body);
  assert.ok(body.equals(readFileSync(join(dir, "dist", "static", "vaults.json"))), "the build's bytes");
});

test("init --platform node: sh start.sh builds and serves; verify passes", async () => {
  const dir = await initAndBuild("node");
  const server = await startServer(
    "sh",
    ["start.sh"],
    { ...env, HOST: "127.0.0.1", PORT: "0", SOURCE_DATE_EPOCH: EPOCH },
    60_000,
    { cwd: dir },
  );
  try {
    await verifies(server.origin);
  } finally {
    await server.stop();
  }
});

test("init --platform deno: deno task build, then deno serve on the built Worker file; verify passes", async () => {
  const dir = await initAndBuild("deno");
  const port = await freePort();
  const server = await startServer(
    DENO,
    ["serve", "--host", "127.0.0.1", "--port", String(port), "dist/fetch/index.mjs"],
    { ...env, NO_COLOR: "1" },
    60_000,
    { cwd: dir, ready: /Listening on (?:\x1b\[\d+m)*(http:\/\/127\.0\.0\.1:\d+)/ },
  );
  try {
    await verifies(server.origin, [], FIRST_DEPLOY);
  } finally {
    await server.stop();
  }
});

test("init --platform static: sh build.sh writes the static export with its _headers", async () => {
  const dir = await initAndBuild("static");
  assert.ok(readFileSync(join(dir, "build.sh"), "utf8").includes(BUILD_LINE));
  const files = filesUnder(join(dir, "dist", "static"));
  for (const path of tablePaths(VERSIONS)) {
    assert.ok(files.includes(path === "/vaults.json" ? "vaults.json" : path.slice(1)), `dist/static holds ${path}`);
  }
  assert.ok(files.includes("_headers"));
});

test("the library: registry-endpoint's validateSource, buildRegistry and serializeRegistry, registry-endpoint/handler's app, registry-endpoint/client's catchUp, and their types", async () => {
  const consumer = `
import { buildRegistry, serializeRegistry, validateSource, type Registry } from "registry-endpoint";
import app from "registry-endpoint/handler";
import { catchUp, type CatchUpResult } from "registry-endpoint/client";
import { readFileSync } from "node:fs";
const checked = validateSource(JSON.parse(readFileSync("starter.json", "utf8")));
if (!checked.ok) throw new Error(checked.problems.join("; "));
const paths = { canonical: "/vaults.json", versioned: "/api/registry.v1.json", schema: "/api/registry.v1.schema.json" };
const document: Registry = buildRegistry(checked.source, { baseUrl: "${BASE_URL}", builtAt: "2026-11-27T17:20:00Z", paths });
const bytes: Uint8Array = serializeRegistry(document);
const served = await app.fetch(new Request("http://localhost/vaults.json"));
const feed = await (await app.fetch(new Request("http://localhost/api/registry.v1.changes.json"))).json();
const caught: CatchUpResult = await catchUp(new Uint8Array(await served.arrayBuffer()), feed);
process.stdout.write(JSON.stringify({ rows: document.vaults.length, bytes: bytes.length, status: served.status, caught: caught.kind }));
`;
  writeFileSync(join(project, "starter.json"), STARTER_SOURCE);
  writeFileSync(join(project, "consumer.ts"), consumer);
  writeFileSync(
    join(project, "consumer.mjs"),
    consumer.replace(", type Registry", "").replace(": Registry", "").replace(": Uint8Array", "")
      .replace(", type CatchUpResult", "").replace(": CatchUpResult", ""),
  );
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "es2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ["node"],
        typeRoots: [join(ROOT, "node_modules", "@types")],
        lib: ["es2023", "dom"],
      },
      files: ["consumer.ts"],
    }),
  );
  const typed = await run(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], {
    cwd: project,
    env,
    timeoutMs: 120_000,
  });
  assert.is(typed.code, 0, typed.stdout.toString() + typed.stderr);
  const ran = await run(USER_NODE, ["consumer.mjs"], { cwd: project, env, timeoutMs: 30_000 });
  assert.is(ran.code, 0, ran.stderr);
  const result = JSON.parse(ran.stdout.toString()) as { rows: number; bytes: number; status: number; caught: string };
  assert.equal([result.rows, result.status, result.caught], [2, 200, "current"]);
  assert.ok(result.bytes > 0);
});

test.run();
