/** The type checkers: tsc over the whole project, and Deno over the web-standard modules. */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { cleanEnv, run } from "./process.ts";

/** The modules every runtime loads: web standards only. */
const WEB_MODULES = [
  "handler.ts",
  "registry.ts",
  ...["assembly", "client", "http", "feed", "contract"].flatMap((dir) =>
    readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => `${dir}/${f}`)
  ),
];

test("tsc --noEmit passes on the whole project", async () => {
  const result = await run("node_modules/.bin/tsc", ["--noEmit", "-p", "tsconfig.json"], { timeoutMs: 180_000 });
  assert.is(result.code, 0, result.stdout.toString("utf8") + result.stderr);
});

test("deno check passes on handler.ts and every web-standard module (Deno rejects what tsx and esbuild accept)", async () => {
  const result = await run("node_modules/.bin/deno", ["check", ...WEB_MODULES], { timeoutMs: 180_000 });
  assert.is(result.code, 0, result.stderr);
});

/** Product modules that document a public function with an `@example`. */
const EXAMPLED = [
  "handler.ts",
  "registry.ts",
  ...["assembly", "client", "http", "feed", "contract", ...readdirSync("node").map((d) => `node/${d}`)].flatMap((dir) =>
    readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => `${dir}/${f}`)
  ),
].filter((file) => readFileSync(file, "utf8").includes("@example"));

test("every @example is a fenced TypeScript block, and each type-checks (deno test --doc)", async () => {
  assert.ok(EXAMPLED.length >= 8, EXAMPLED.join(" "));
  for (const file of EXAMPLED) {
    for (const [, next] of readFileSync(file, "utf8").matchAll(/@example\n(.*)/g)) {
      assert.is(next, " * ```ts", `${file}: an @example that deno test --doc would not check`);
    }
  }
  // test/deno-doc.json: Deno's own types for the generated test wrapper, the project's strictness otherwise.
  const result = await run("node_modules/.bin/deno", [
    "test",
    "--config",
    "test/deno-doc.json",
    "--doc",
    "--no-run",
    ...EXAMPLED,
  ], { timeoutMs: 180_000 });
  assert.is(result.code, 0, result.stderr);
});

test('web-standard modules use nothing of Node; relative imports name .ts, JSON imports say with { type: "json" }', () => {
  for (const file of WEB_MODULES) {
    const text = readFileSync(file, "utf8");
    assert.not.match(text, /from "node:|require\(|\bprocess\.|\bBuffer\b|__dirname/, `${file} uses Node`);
    for (const [statement, spec] of text.matchAll(/from "(\.[^"]+)"[^;\n]*/g)) {
      const named = spec?.endsWith(".ts") || (spec?.endsWith(".json") && statement.endsWith('with { type: "json" }'));
      assert.ok(named, `${file}: ${statement}`);
    }
  }
});

test("every import points down a layer: contract/ < registry.ts < feed/ < http/ < assembly/ < client/ < handler.ts, node/", () => {
  const rank = (file: string): number =>
    file.startsWith("contract/")
      ? 0
      : file === "registry.ts"
      ? 1
      : file.startsWith("feed/")
      ? 2
      : file.startsWith("http/")
      ? 3
      : file.startsWith("assembly/")
      ? 4
      : file.startsWith("client/")
      ? 5
      : file === "handler.ts"
      ? 6
      : 7;
  for (const file of WEB_MODULES) {
    for (const [, spec] of readFileSync(file, "utf8").matchAll(/from "(\.[^"]+\.ts)"/g)) {
      const target = join(dirname(file), spec as string);
      assert.ok(
        rank(target) <= rank(file) && !target.startsWith("node/"),
        `${file} imports ${target}, a layer above it`,
      );
    }
  }
});

test("node/ is a folder per job, and every import between them points down: common < review, verify, init, builder, serve (which never import each other) < bin < pack", () => {
  const rank: Record<string, number> = {
    common: 0,
    review: 1,
    verify: 1,
    init: 1,
    builder: 1,
    serve: 1,
    bin: 2,
    pack: 3,
  };
  const folders = readdirSync("node", { withFileTypes: true });
  assert.equal(folders.filter((f) => !f.isDirectory()).map((f) => f.name), [], "no file loose in node/");
  assert.equal(folders.map((f) => f.name).sort(), Object.keys(rank).sort());
  for (const folder of Object.keys(rank)) {
    for (const file of readdirSync(`node/${folder}`).filter((f) => f.endsWith(".ts"))) {
      for (
        const [, spec] of readFileSync(`node/${folder}/${file}`, "utf8").matchAll(
          /^(?:import|export)[^;]*? from "(\.[^"]+\.ts)"/gm,
        )
      ) {
        const target = join("node", folder, spec as string);
        if (!target.startsWith("node/")) continue;
        const to = target.split("/")[1] as string;
        const ok = to === folder || (rank[to] as number) < (rank[folder] as number);
        assert.ok(ok, `node/${folder}/${file} imports ${target}, not a layer below it`);
      }
    }
  }
});

/** Every product module: the web layers, handler.ts and node/. */
const PRODUCT = [
  "handler.ts",
  "registry.ts",
  ...["assembly", "client", "http", "feed", "contract", ...readdirSync("node").map((d) => `node/${d}`)].flatMap((dir) =>
    readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => `${dir}/${f}`)
  ),
];

test("no import cycles: no product module imports itself back through others", () => {
  const imports = new Map(
    PRODUCT.map((
      file,
    ) => [
      file,
      [...readFileSync(file, "utf8").matchAll(/^(?:import|export)[^;]*? from "(\.[^"]+\.ts)"/gm)].map(([, spec]) =>
        join(dirname(file), spec as string)
      ),
    ]),
  );
  const done = new Set<string>();
  const visit = (file: string, path: readonly string[]): void => {
    if (path.includes(file)) {
      assert.unreachable(`an import cycle: ${[...path.slice(path.indexOf(file)), file].join(" -> ")}`);
    }
    if (done.has(file)) return;
    for (const next of imports.get(file) ?? []) visit(next, [...path, file]);
    done.add(file);
  };
  for (const file of PRODUCT) visit(file, []);
  assert.is(done.size >= PRODUCT.length, true);
});

test("no command ends the process or reads its arguments: only node/bin/'s entries (and the pack scripts npm runs) do", () => {
  const commands = PRODUCT.filter((f) => f.startsWith("node/") && !/^node\/(bin|pack)\//.test(f));
  assert.ok(commands.length > 30, `${commands.length} files`);
  for (const file of commands) {
    const text = readFileSync(file, "utf8");
    // args.ts runs a command as the process: the one place that hands it process.argv and sets the exit code.
    if (file === "node/common/args.ts") continue;
    assert.not.match(text, /process\.(exit|argv)\b/, file);
  }
});

test("one Node server: npm start and dist/node/server.mjs serve through the one listener, and no server module takes another", () => {
  const serving = readdirSync("node/serve").filter((f) => f.endsWith(".ts")).map((f) => `node/serve/${f}`);
  const users = serving.filter((file) => /\banswerListener\(/.test(readFileSync(file, "utf8")));
  assert.equal(users.sort(), ["node/serve/answer-server.ts", "node/serve/artifact-server.ts", "node/serve/server.ts"]);
  for (const file of PRODUCT) {
    assert.not.match(readFileSync(file, "utf8"), /from "@hono\/node-server"/, `${file} serves another way`);
  }
});

test("docs/layout.md names every product file, and no file that is gone", () => {
  const layout = readFileSync("docs/layout.md", "utf8");
  for (const file of PRODUCT) assert.ok(layout.includes(`\`${file}\``), `docs/layout.md does not name ${file}`);
  for (
    const [, named] of layout.matchAll(
      /`((?:contract|feed|http|assembly|client|node)\/[\w/.-]+\.ts|registry\.ts|handler\.ts)`/g,
    )
  ) assert.ok(PRODUCT.includes(named as string), `docs/layout.md names ${named}, which is not a product file`);
});

test("every TypeScript and JavaScript file is formatted by deno fmt (deno.json: line width 120)", async () => {
  const result = await run("node_modules/.bin/deno", ["fmt", "--check"], { timeoutMs: 120_000 });
  assert.is(
    result.code,
    0,
    result.stderr.split("\n").filter((line) => line.startsWith("from ")).join("\n") || result.stderr,
  );
  assert.match(result.stderr, /Checked \d+ files/);
});

test("npm ci on Node 22, the floor: no engine warning (npm's own check, dry run); on the machine's older Node, the project's own alone; allowScripts names exactly the packages with install scripts", async () => {
  for (const dir of [".", "deploy/tools"]) {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      allowScripts?: Record<string, boolean>;
    };
    const lock = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8")) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const scripted = new Set(
      Object.entries(lock.packages).filter(([path, p]) => path !== "" && p.hasInstallScript === true).map(([path]) =>
        path.split("node_modules/").at(-1) as string
      ),
    );
    assert.equal([...scripted].sort(), Object.keys(pkg.allowScripts ?? {}).sort(), `${dir}: allowScripts`);
  }
  // npm runs under the first node on PATH: Node 22 (node22's bin), or the machine's own (PATH
  // without node_modules), which the tests run under and which is older than the floor.
  const copy = mkdtempSync(join(tmpdir(), "registry-npm-ci-"));
  const machinePath = (process.env["PATH"] ?? "").split(delimiter).filter((dir) => !dir.includes("node_modules"));
  const dryRun = (path: string[]) =>
    run("npm", ["ci", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund"], {
      cwd: copy,
      env: cleanEnv({ HOME: copy, PATH: path.join(delimiter) }),
      timeoutMs: 120_000,
    });
  try {
    for (const file of ["package.json", "package-lock.json"]) copyFileSync(file, join(copy, file));
    const floor = await dryRun([resolve("node_modules/node22/bin"), ...machinePath]);
    assert.is(floor.code, 0, floor.stderr);
    assert.not.match(floor.stderr + floor.stdout.toString(), /EBADENGINE/);
    const machine = await dryRun(machinePath);
    assert.is(machine.code, 0, machine.stderr);
    const major = Number(
      (await run("node", ["--version"], { env: cleanEnv({ PATH: machinePath.join(delimiter) }) }))
        .stdout.toString().slice(1).split(".")[0],
    );
    assert.equal(
      [...machine.stderr.matchAll(/EBADENGINE +package: '([^']+)'/g)].map((m) => m[1]),
      major < 22 ? ["registry-endpoint@1.0.0"] : [],
      `Node ${major}: only the project's own engines (>=22) may refuse it`,
    );
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

test("every test file runs its suite (a forgotten .run() would report zero tests and pass)", () => {
  for (const file of readdirSync("test").filter((f) => f.endsWith(".test.ts"))) {
    assert.match(readFileSync(`test/${file}`, "utf8"), /^test\.run\(\);$/m, file);
  }
});

test.run();
