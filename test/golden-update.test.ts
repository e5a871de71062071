/**
 * `npm run golden:update` on a copy of the repository: one pass that rewrites a stale golden,
 * verifies, exits 0 and names the file; refused in one line under CI.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { copyRepository } from "./files.ts";
import { cleanEnv, run } from "./process.ts";

const ROOT = resolve(".");
const copy = mkdtempSync(join(tmpdir(), "registry-golden-update-"));
test.before(() => {
  copyRepository(ROOT, copy);
  symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
});
test.after(() => rmSync(copy, { recursive: true, force: true }));

const update = (env: NodeJS.ProcessEnv) =>
  run("node", ["--import", "tsx", "test/update-goldens.ts"], {
    env: cleanEnv({ CI: "", GOLDEN_VERIFY_PATTERN: "(golden|schema)\\.test\\.ts$", ...env }),
    cwd: copy,
    timeoutMs: 300_000,
  });

test("a stale golden: rewritten, verified, exit 0, the file named", async () => {
  const path = join(copy, "golden", "static", "_headers");
  const right = readFileSync(path, "utf8");
  writeFileSync(path, right.replace("nosniff", "sniff"));
  const done = await update({});
  assert.is(done.code, 0, done.stderr);
  assert.is(readFileSync(path, "utf8"), right, "rewritten from the code");
  assert.match(
    done.stdout.toString(),
    /golden:update: 1 golden file\(s\) changed; read them with git diff golden\/:\n {2}golden\/static\/_headers\n/,
  );
  assert.not.match(done.stderr, /\n\s+at /);
});

test("with CI set: refused in one line, exit 2, nothing written", async () => {
  const done = await update({ CI: "true" });
  assert.is(done.code, 2);
  assert.is(done.stderr, "golden:update: refused because CI is set: goldens change only in a reviewed commit\n");
  const direct = await run("node", ["--import", "tsx", "node_modules/uvu/bin.js", "test", "golden\\.test\\.ts$"], {
    env: cleanEnv({ CI: "true", UPDATE_GOLDEN: "1" }),
    cwd: copy,
    timeoutMs: 120_000,
  });
  assert.is(direct.code, 2);
  assert.is(
    direct.stderr.trim(),
    "UPDATE_GOLDEN=1 is refused when CI is set: goldens change only in a reviewed commit",
  );
});

test.run();
