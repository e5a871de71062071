/** The type checkers: tsc over the whole project, and Deno over the web-standard modules. */
import { readdirSync, readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { run } from "./process.ts";

test("tsc --noEmit passes on the whole project", async () => {
  const result = await run("node_modules/.bin/tsc", ["--noEmit", "-p", "tsconfig.json"], { timeoutMs: 180_000 });
  assert.is(result.code, 0, result.stdout.toString("utf8") + result.stderr);
});

test("deno check passes on the web-standard modules (Deno rejects what tsx and esbuild accept)", async () => {
  const result = await run("node_modules/.bin/deno", ["check", "registry.ts", "source.ts", "config.ts"], { timeoutMs: 180_000 });
  assert.is(result.code, 0, result.stderr);
});

test("web-standard modules import nothing from Node and name their .ts extensions", () => {
  for (const file of ["registry.ts", "source.ts", "config.ts"]) {
    const text = readFileSync(file, "utf8");
    assert.not.match(text, /from "node:|require\(|process\.|Buffer\b/, `${file} uses Node`);
    for (const [, spec] of text.matchAll(/from "(\.[^"]+)"/g)) assert.ok(spec?.endsWith(".ts"), `${file}: ${spec}`);
  }
});

test("every test file runs its suite (a forgotten .run() would report zero tests and pass)", () => {
  for (const file of readdirSync("test").filter((f) => f.endsWith(".test.ts"))) {
    assert.match(readFileSync(`test/${file}`, "utf8"), /^test\.run\(\);$/m, file);
  }
});

test.run();
