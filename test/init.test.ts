/**
 * `registry-endpoint init` in folders that fight back: a name it would write that is a link to
 * nothing, a `.gitignore` that is one or is a folder. Each is one line and exit 1, no stack trace,
 * and nothing written: no file of its own left behind, no link's target created elsewhere.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runInit } from "../node/init/init.ts";
import { cleanEnv, runCommand } from "./process.ts";

const work = mkdtempSync(join(tmpdir(), "registry-init-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

/** A fresh folder under `work`, prepared by `setup`; init --platform node run in it. */
async function initIn(name: string, setup: (dir: string) => void) {
  const dir = join(work, name);
  mkdirSync(dir);
  setup(dir);
  const result = await runCommand(runInit, ["--platform", "node"], { cwd: dir, env: cleanEnv() });
  return { dir, result };
}

test("init: a name it would write that is a link to nothing is taken: one line, exit 1, the link's target never created", async () => {
  for (const name of ["registry.source.json", "start.sh", ".gitignore"]) {
    const target = join(work, `target-of-${name}`);
    const { dir, result } = await initIn(`link-${name}`, (d) => symlinkSync(target, join(d, name)));
    assert.is(result.code, 1, result.stderr);
    assert.is(
      result.stderr,
      `init: not written: ${name} (a link to nothing) already exists in ${dir} (init never overwrites a file)\n`,
    );
    assert.equal(readdirSync(dir), [name], "nothing written beside the link");
    assert.not.ok(existsSync(target), "the link's target is not created");
  }
});

test("init: a .gitignore that is a folder: one line, exit 1, neither the source nor the recipe left", async () => {
  const { dir, result } = await initIn("gitignore-folder", (d) => mkdirSync(join(d, ".gitignore")));
  assert.is(result.code, 1, result.stderr);
  assert.is(result.stderr, `init: not written: cannot write in ${dir} (EISDIR); nothing of it is left\n`);
  assert.equal(readdirSync(dir), [".gitignore"]);
});

test("init: in an empty folder it writes the source, the recipe and the .gitignore entry (the refusals above are not all it does)", async () => {
  const { dir, result } = await initIn("empty", () => {});
  assert.is(result.code, 0, result.stderr);
  assert.equal(readdirSync(dir).sort(), [".gitignore", "registry.source.json", "start.sh"]);
});

test.run();
