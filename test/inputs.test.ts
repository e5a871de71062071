/** What every Node command reads before it builds (`loadInputs`): internal key names beside the source. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadInputs } from "../node/common/inputs.ts";

const work = mkdtempSync(join(tmpdir(), "registry-inputs-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

/** A source whose one vault holds `keys`, each with a private value. */
function sourceWith(keys: readonly string[]): string {
  const vault = Object.fromEntries([
    ["vault_slug", "a"],
    ["display_name", "A"],
    ["status", "active"],
    ...keys.map((k) => [k, "SECRET"]),
  ]);
  const file = join(work, `source-${keys.length}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      registry_schema_version: "1",
      generated_at: "2026-11-14T08:30:00Z",
      source_inventory_sha: "a".repeat(40),
      vaults: [vault],
      edges: [],
    }),
  );
  return file;
}

const ENV = { BASE_URL: "https://registry.example.org" };

test("--internal-keys and INTERNAL_KEYS are joined: a name in either is declared, so neither hides the other's", async () => {
  const file = sourceWith(["secret_a", "secret_b"]);
  const both = await loadInputs(file, { ...ENV, INTERNAL_KEYS: "secret_a" }, {}, "source.json", "secret_b");
  assert.ok("ok" in both, JSON.stringify(both));
  const flagOnly = await loadInputs(file, ENV, {}, "source.json", "secret_b");
  assert.equal("problems" in flagOnly ? flagOnly.problems : [], [
    "source.json: vaults[0].secret_a: undeclared key: not a key of a vault; if it is internal, list it in internal_keys (or --internal-keys)",
  ]);
  const empty = await loadInputs(file, { ...ENV, INTERNAL_KEYS: "secret_a, secret_b " }, {}, "source.json", "");
  assert.ok("ok" in empty, "an empty flag hides nothing the variable declares; ASCII spaces around a name are dropped");
});

test("a refused name beside the source names no undeclared key; only ASCII spaces are trimmed", async () => {
  const file = sourceWith(["secret_owner"]);
  const refused = await loadInputs(file, ENV, {}, "source.json", `secret_owner,${"x".repeat(129)}`);
  const lines = "problems" in refused ? refused.problems : [];
  assert.equal(lines, ["--internal-keys[1]: expected a key name of 1 to 128 characters, got 129"]);
  const nbsp = await loadInputs(sourceWith(["owner\u00a0"]), ENV, {}, "source.json", "owner\u00a0");
  assert.ok("ok" in nbsp, "a no-break space is part of the name");
  const missing = await loadInputs(file, ENV, {}, "source.json", `other,${"x".repeat(129)}`);
  const said = "problems" in missing ? missing.problems.join("\n") : "";
  assert.ok(
    said.includes("undeclared key #4 (not named") && !said.includes("secret_owner") && !said.includes("SECRET"),
    said,
  );
});

test.run();
