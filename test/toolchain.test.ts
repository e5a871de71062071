/** The type checkers: tsc over the whole project, and Deno over the web-standard modules. */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { run } from "./process.ts";

/** The modules every runtime loads: web standards only. */
const WEB_MODULES = ["handler.ts", "registry.ts", ...["http", "contract"].flatMap((dir) => readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => `${dir}/${f}`))];

test("tsc --noEmit passes on the whole project", async () => {
  const result = await run("node_modules/.bin/tsc", ["--noEmit", "-p", "tsconfig.json"], { timeoutMs: 180_000 });
  assert.is(result.code, 0, result.stdout.toString("utf8") + result.stderr);
});

test("deno check passes on handler.ts and every web-standard module (Deno rejects what tsx and esbuild accept)", async () => {
  const result = await run("node_modules/.bin/deno", ["check", ...WEB_MODULES], { timeoutMs: 180_000 });
  assert.is(result.code, 0, result.stderr);
});

test("web-standard modules use nothing of Node; relative imports name .ts, JSON imports say with { type: \"json\" }", () => {
  for (const file of WEB_MODULES) {
    const text = readFileSync(file, "utf8");
    assert.not.match(text, /from "node:|require\(|\bprocess\.|\bBuffer\b|__dirname/, `${file} uses Node`);
    for (const [statement, spec] of text.matchAll(/from "(\.[^"]+)"[^;\n]*/g)) {
      const named = spec?.endsWith(".ts") || (spec?.endsWith(".json") && statement.endsWith('with { type: "json" }'));
      assert.ok(named, `${file}: ${statement}`);
    }
  }
});

test("every import points down a layer: contract/ < registry.ts < http/ < handler.ts, node/", () => {
  const rank = (file: string): number =>
    file.startsWith("contract/") ? 0 : file === "registry.ts" ? 1 : file.startsWith("http/") ? 2 : file === "handler.ts" ? 3 : 4;
  for (const file of WEB_MODULES) {
    for (const [, spec] of readFileSync(file, "utf8").matchAll(/from "(\.[^"]+\.ts)"/g)) {
      const target = join(dirname(file), spec as string);
      assert.ok(rank(target) <= rank(file) && !target.startsWith("node/"), `${file} imports ${target}, a layer above it`);
    }
  }
});

test("node/ is a folder per job, and every import between them points down: review < cli, verify < build < serve < bin", () => {
  const rank: Record<string, number> = { review: 0, cli: 1, verify: 1, build: 2, serve: 3, bin: 4 };
  const folders = readdirSync("node", { withFileTypes: true });
  assert.equal(folders.filter((f) => !f.isDirectory()).map((f) => f.name), [], "no file loose in node/");
  assert.equal(folders.map((f) => f.name).sort(), Object.keys(rank).sort());
  for (const folder of Object.keys(rank)) {
    for (const file of readdirSync(`node/${folder}`).filter((f) => f.endsWith(".ts"))) {
      for (const [, spec] of readFileSync(`node/${folder}/${file}`, "utf8").matchAll(/^(?:import|export)[^;]*? from "(\.[^"]+\.ts)"/gm)) {
        const target = join("node", folder, spec as string);
        if (!target.startsWith("node/")) continue;
        const to = target.split("/")[1] as string;
        const ok = to === folder || (rank[to] as number) < (rank[folder] as number);
        assert.ok(ok, `node/${folder}/${file} imports ${target}, not a layer below it`);
      }
    }
  }
});

test("every test file runs its suite (a forgotten .run() would report zero tests and pass)", () => {
  for (const file of readdirSync("test").filter((f) => f.endsWith(".test.ts"))) {
    assert.match(readFileSync(`test/${file}`, "utf8"), /^test\.run\(\);$/m, file);
  }
});

test.run();
