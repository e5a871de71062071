/**
 * `npm run golden:update`: rewrites the goldens in one pass, then proves them. First the test files
 * that own goldens run with UPDATE_GOLDEN=1 (they write what differs); then the whole suite runs
 * as CI runs it, against the new bytes. Exit 0 when both pass, listing the files it changed (read
 * them with `git diff golden/` before committing). Refused in one line when CI is set.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GOLDEN_DIR, listGoldens } from "./golden.ts";
import { spawnSync } from "node:child_process";

if (process.argv.includes("--help") || process.argv.includes("-h")) {
  process.stdout.write(
    "usage: npm run golden:update\n\nRewrites golden/ from the code, then runs the whole test suite against it.\nExit codes: 0 rewritten and verified; 1 a test failed; 2 refused (CI is set) or a bad flag.\n",
  );
  process.exit(0);
}
if (process.argv.length > 2) {
  process.stderr.write(`golden:update: unknown argument ${JSON.stringify(process.argv[2])} (--help for more)\n`);
  process.exit(2);
}
if ((process.env["CI"] ?? "") !== "") {
  process.stderr.write("golden:update: refused because CI is set: goldens change only in a reviewed commit\n");
  process.exit(2);
}

const digest = () =>
  new Map(
    listGoldens().map((
      name,
    ) => [name, createHash("sha256").update(readFileSync(join(GOLDEN_DIR, name))).digest("hex")]),
  );
/** Runs the uvu suite on the test files matching `pattern`, its output straight to the terminal. */
const uvu = (pattern: string, extra: NodeJS.ProcessEnv) =>
  spawnSync(process.execPath, ["--import", "tsx", "node_modules/uvu/bin.js", "test", pattern], {
    env: { ...process.env, ...extra },
    stdio: "inherit",
  }).status;

const before = digest();
// The files that own goldens (they call assertGolden), so no other test reads the old bytes meanwhile.
const write = uvu("(golden|contract|history)\\.test\\.ts$", { UPDATE_GOLDEN: "1" });
const after = digest();
const changed = [...after].filter(([name, hash]) => before.get(name) !== hash).map(([name]) => name);
if (write !== 0) {
  process.stderr.write("golden:update: writing the goldens failed (above); nothing verified\n");
  process.exit(1);
}
// The whole suite, as CI runs it (GOLDEN_VERIFY_PATTERN narrows it, for this script's own test).
const verify = uvu(process.env["GOLDEN_VERIFY_PATTERN"] ?? "\\.test\\.ts$", { UPDATE_GOLDEN: "" });
process.stdout.write(
  changed.length === 0
    ? "golden:update: no golden changed\n"
    : `golden:update: ${changed.length} golden file(s) changed; read them with git diff golden/:\n${
      changed.map((n) => `  golden/${n}\n`).join("")
    }`,
);
process.exit(verify === 0 ? 0 : 1);
