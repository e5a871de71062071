/** `npm run build`: reproducible, all-or-nothing, and nothing private in the artifacts. */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { cleanEnv, run } from "./process.ts";

const work = mkdtempSync(join(tmpdir(), "registry-builds-"));
const env = cleanEnv({ SOURCE_DATE_EPOCH: "1763726400", BASE_URL: "https://registry.example.org" });
const build = (out: string, extra: NodeJS.ProcessEnv = {}) =>
  run("node", ["--import", "tsx", "node/build.ts", "--out", out], { env: { ...env, ...extra }, timeoutMs: 120_000 });

function files(dir: string): Map<string, Buffer> {
  const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
  return new Map(walk(dir).map((f) => [relative(dir, f), readFileSync(f)]));
}

test.after(() => rmSync(work, { recursive: true, force: true }));

test("with SOURCE_DATE_EPOCH set, two builds are byte-identical", async () => {
  const [a, b] = [join(work, "a"), join(work, "b")];
  for (const out of [a, b]) {
    const result = await build(out);
    assert.is(result.code, 0, result.stderr);
  }
  const [fa, fb] = [files(a), files(b)];
  assert.equal([...fa.keys()].sort(), ["lambda/index.mjs", "static/_headers", "static/api/registry.v1.json", "static/api/registry.v1.schema.json", "static/vaults.json"]);
  for (const [name, bytes] of fa) assert.ok(bytes.equals(fb.get(name) as Buffer), name);
  assert.match(fa.get("static/vaults.json")?.toString() ?? "", /"built_at": "2025-11-21T12:00:00Z"/);
});

test("a failed build leaves an existing output folder untouched and no temporary folder behind", async () => {
  const out = join(work, "kept");
  mkdirSync(join(out, "static"), { recursive: true });
  writeFileSync(join(out, "static", "vaults.json"), "previous deploy\n");
  for (const extra of [{ REGISTRY_SOURCE: "fixtures/invalid/dangling-edge.json" }, { BASE_URL: "not a url" }]) {
    const result = await build(out, extra);
    assert.is(result.code, 1);
    assert.ok(result.stderr.length > 0);
    assert.is(readFileSync(join(out, "static", "vaults.json"), "utf8"), "previous deploy\n");
    assert.equal(readdirSync(dirname(out)).filter((n) => n.startsWith("kept.")), []);
  }
});

test("a successful build replaces the output folder whole", async () => {
  const out = join(work, "replaced");
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "stale.txt"), "left from an older build");
  assert.is((await build(out)).code, 0);
  assert.not.ok(existsSync(join(out, "stale.txt")));
  assert.ok(existsSync(join(out, "lambda", "index.mjs")));
});

test("no private string of the source is in any artifact (the bundle embeds the answers, not the source)", async () => {
  const source = JSON.parse(readFileSync("fixtures/registry.json", "utf8"));
  const PUBLIC_VAULT_KEYS = ["vault_slug", "display_name", "class", "status", "persona", "note", "last_synced", "suppressed"];
  const strings = (value: unknown): string[] =>
    typeof value === "string" ? [value] : typeof value === "object" && value !== null ? Object.values(value).flatMap(strings) : [];
  const privateStrings = new Set<string>([
    ...Object.entries(source).filter(([k]) => !["registry_schema_version", "generated_at", "source_inventory_sha", "licence", "labels", "vaults", "edges"].includes(k)).flatMap(([, v]) => strings(v)),
    ...strings(source.licence?.internal_contact),
    ...source.vaults.flatMap((v: Record<string, unknown>) => [
      ...strings(v["tagline"]),
      ...Object.entries(v).filter(([k]) => !PUBLIC_VAULT_KEYS.includes(k) && k !== "tagline").flatMap(([, x]) => strings(x)),
      ...(v["suppressed"] === true ? strings(v["note"]) : []),
    ]),
  ]);
  const suppressed = new Set(source.vaults.filter((v: Record<string, unknown>) => v["suppressed"] === true).map((v: Record<string, unknown>) => v["vault_slug"]));
  const touching = source.edges.filter((e: Record<string, string>) => suppressed.has(e["source"]) || suppressed.has(e["target"]));
  const publicTypes = new Set(source.edges.filter((e: Record<string, string>) => !touching.includes(e)).map((e: Record<string, string>) => e["type"]));
  for (const e of touching) if (!publicTypes.has(e.type)) privateStrings.add(e.type);
  assert.ok(privateStrings.size >= 15, `found ${privateStrings.size} private strings in the fixture`);

  const out = join(work, "privacy");
  assert.is((await build(out)).code, 0);
  for (const [name, bytes] of files(out)) {
    const text = bytes.toString("utf8");
    for (const secret of privateStrings) assert.not.ok(text.includes(secret), `${name} contains ${JSON.stringify(secret)}`);
  }
});

test.run();
