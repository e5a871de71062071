/** `npm run build`: reproducible, all-or-nothing, owns only what it makes, nothing private in the artifacts. */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runBuild } from "../node/builder/build.ts";
import { cleanEnv, runCommand } from "./process.ts";
import { buildFirst } from "./first-build.ts";

const work = mkdtempSync(join(tmpdir(), "registry-builds-"));
const env = cleanEnv({ SOURCE_DATE_EPOCH: "1795262400" });
const BASE = ["--base-url", "https://registry.example.org"];
const build = (args: string[], extra: NodeJS.ProcessEnv = {}) => buildFirst([...args], { env: { ...env, ...extra } });
const buildInto = (out: string, extra: string[] = []) =>
  build(["--source", "fixtures/registry.json", ...BASE, "--out", out, ...extra]);

function files(dir: string): Map<string, Buffer> {
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((
      e,
    ) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
  return new Map(walk(dir).map((f) => [relative(dir, f), readFileSync(f)]));
}

test.after(() => rmSync(work, { recursive: true, force: true }));

test("with SOURCE_DATE_EPOCH set, two builds are byte-identical, every artifact included", async () => {
  const [a, b] = [join(work, "a"), join(work, "b")];
  for (const out of [a, b]) {
    const result = await buildInto(out);
    assert.is(result.code, 0, result.stderr);
    assert.match(
      result.stdout.toString(),
      /^built .*: 48 vaults, 35 edges, built_at 2026-11-21T12:00:00Z, base URL https:\/\/registry\.example\.org, ETag "[0-9a-f]{32}"\n$/,
    );
  }
  const [fa, fb] = [files(a), files(b)];
  assert.equal([...fa.keys()].sort(), [
    ".registry-build",
    "fetch/index.mjs",
    "lambda/index.mjs",
    "node/server.mjs",
    "static/_headers",
    "static/api/registry.v1.changes.atom",
    "static/api/registry.v1.changes.d.ts",
    "static/api/registry.v1.changes.json",
    "static/api/registry.v1.d.ts",
    "static/api/registry.v1.json",
    "static/api/registry.v1.openapi.json",
    "static/api/registry.v1.schema.json",
    "static/vaults.json",
  ]);
  for (const [name, bytes] of fa) assert.ok(bytes.equals(fb.get(name) as Buffer), name);
  assert.match(fa.get("static/vaults.json")?.toString() ?? "", /"built_at": "2026-11-21T12:00:00Z"/);
  // Key names are folded at build only: no code artifact carries (or parses at start) the confusable table.
  const { CONFUSABLE_MAPPINGS } = await import("../contract/confusables.ts");
  const tableLine = CONFUSABLE_MAPPINGS.trim().split("\n")[0] as string;
  for (const name of ["fetch/index.mjs", "lambda/index.mjs", "node/server.mjs"]) {
    assert.not.ok(fa.get(name)?.includes(tableLine), `${name} carries the confusable table`);
  }
  // The Node server takes Node's modules by process.getBuiltinModule: an `import` of one makes
  // Node 22 read every lazy export of it at start (node:util's load its diff and colour modules).
  const imported = fa.get("node/server.mjs")?.toString().match(/\bfrom\s*"node:[^"]+"|\bimport\s*"node:[^"]+"/g);
  assert.is(imported, null, `node/server.mjs imports ${imported?.join(", ")}`);
  // The fetch artifact's default export is the Hono app, a route for each address Netlify is told of.
  const artifact = (await import(pathToFileURL(join(a, "fetch", "index.mjs")).href)) as {
    default: { routes: { path: string; method: string }[] };
    config: { path: string[] };
  };
  assert.equal(
    artifact.default.routes.map((r) => `${r.method} ${r.path}`),
    artifact.config.path.map((p) => `ALL ${p}`),
  );
  assert.ok(artifact.config.path.includes("/api/registry.v1.changes.atom"));
});

test("runBuild resolves every relative path against its own folder (io.cwd), not the process's", async () => {
  const folder = join(work, "elsewhere");
  mkdirSync(folder);
  writeFileSync(join(folder, "mine.json"), readFileSync("fixtures/registry.json"));
  const first = await buildFirst(["--source", "mine.json", ...BASE, "--out", "out"], { env, cwd: folder });
  assert.is(first.code, 0, first.stderr);
  assert.ok(existsSync(join(folder, "out", "static", "vaults.json")));
  assert.match(first.stdout.toString(), /^built out: /);
  const next = await buildFirst(["--source", "mine.json", ...BASE, "--out", "next", "--previous", "out"], {
    env: { ...env, SOURCE_DATE_EPOCH: "1795348800" },
    cwd: folder,
  });
  assert.is(next.code, 0, next.stderr);
  const missing = await buildFirst(["--source", "nowhere.json", ...BASE, "--out", "x"], { env, cwd: folder });
  assert.equal([missing.code, missing.stderr], [
    1,
    "nowhere.json: cannot read the file (ENOENT); registry-endpoint init writes a starter source to begin from\n",
  ]);
});

test("an --out whose parent folders are absent: the build makes them (docs/deploying.md's deploy/s3/dist in a clone)", async () => {
  const out = join(work, "absent", "parents", "dist");
  const built = await buildInto(out);
  assert.is(built.code, 0, built.stderr);
  assert.ok(existsSync(join(out, "static", "vaults.json")));
  assert.equal(readdirSync(join(work, "absent", "parents")), ["dist"], "no staging folder left beside it");
});

test("a build says where its history comes from: with neither --previous nor --new-history, one line naming the three ways on, exit 1, nothing written", async () => {
  const out = join(work, "told-nothing");
  const told = await runCommand(runBuild, ["--source", "fixtures/registry.json", ...BASE, "--out", out], { env });
  assert.is(told.code, 1, told.stderr);
  assert.equal(told.stderr.trim().split("\n"), [
    "--previous or --new-history: required: say where this deployment's history comes from: --previous URL (the base URL " +
    "of the live deployment; where everything answers 404, a first deploy starts the history), --previous DIR (the " +
    "last build's --out folder), or --new-history (a first build, on purpose)",
  ]);
  assert.not.ok(existsSync(out), "nothing written");
  // Either one alone is enough; both at once are a usage error.
  const both = await runCommand(runBuild, [
    "--source",
    "fixtures/registry.json",
    ...BASE,
    "--out",
    out,
    "--new-history",
    "--previous",
    out,
  ], { env });
  assert.is(both.code, 2, both.stderr);
  assert.ok((await buildInto(out)).code === 0, "--new-history (given by buildInto) builds");
});

test("a build needs a source and an explicit base URL: localhost is for development", async () => {
  const out = join(work, "never");
  const noBase = await build(["--source", "fixtures/registry.json", "--out", out]);
  assert.is(noBase.code, 1);
  assert.match(
    noBase.stderr,
    /^--base-url: required \(or BASE_URL\): a build is a deploy artifact, and http:\/\/localhost:8787 serves development only$/m,
  );
  const noSource = await build([...BASE, "--out", out]);
  assert.is(noSource.code, 1);
  assert.match(noSource.stderr, /^--source: required \(or REGISTRY_SOURCE\)/m);
  assert.not.ok(existsSync(out));
  const fromEnv = await build(["--out", out], {
    REGISTRY_SOURCE: "fixtures/valid/empty.json",
    BASE_URL: "https://env.example",
  });
  assert.is(fromEnv.code, 0, fromEnv.stderr);
  assert.match(
    readFileSync(join(out, "static", "vaults.json"), "utf8"),
    /"canonical_url": "https:\/\/env\.example\/vaults\.json"/,
  );
});

test("a folder holding files the build did not make is refused and left exactly as it was", async () => {
  const out = join(work, "mine");
  mkdirSync(out);
  writeFileSync(join(out, "notes.txt"), "the operator's own file\n");
  const result = await buildInto(out);
  assert.is(result.code, 1);
  assert.match(
    result.stderr,
    /^--out .*mine: holds files this build did not make \(notes\.txt\); choose an empty or new folder$/m,
  );
  assert.equal([...files(out).keys()], ["notes.txt"]);
  assert.equal(readdirSync(dirname(out)).filter((n) => n.startsWith("mine.")), [], "no temporary folder left behind");
});

test("a previous build's output is replaced whole; one with a foreign file in it is refused", async () => {
  const out = join(work, "replaced");
  assert.is((await buildInto(out)).code, 0);
  // It holds a build of this deployment: the rebuild carries its history on (or starts one on purpose).
  assert.is((await buildInto(out, ["--previous", out])).code, 0, "a build's own output may be rebuilt");
  const sameTime = await build(["--source", "fixtures/registry.json", ...BASE, "--out", out, "--new-history"]);
  assert.is(sameTime.code, 1, "a new history no later than the build held there is refused");
  assert.match(sameTime.stderr, /^--out \S*replaced: holds a build of \S+ built at \S+, not earlier than this one/);
  const later = await build([
    "--source",
    "fixtures/registry.json",
    ...BASE,
    "--out",
    out,
    "--new-history",
    "--unsigned",
  ], {
    SOURCE_DATE_EPOCH: "1795266000",
  });
  assert.is(later.code, 0, "and rebuilt with a new history, later");
  writeFileSync(join(out, "static", "extra.html"), "added by hand");
  const refused = await buildInto(out, ["--previous", out]);
  assert.is(refused.code, 1);
  assert.match(
    refused.stderr,
    /a previous build's output, but it also holds files the build did not make \(static\/extra\.html\)/,
  );
  assert.ok(existsSync(join(out, "static", "extra.html")), "the foreign file is still there");
});

test("an output folder inside a previous build's output is refused (no dist/static/static)", async () => {
  const out = join(work, "outer");
  assert.is((await buildInto(out)).code, 0);
  const before = files(out);
  const nested = await buildInto(join(out, "static"));
  assert.is(nested.code, 1);
  assert.match(nested.stderr, /inside the output of an earlier build/);
  assert.equal([...files(out).keys()], [...before.keys()]);
});

test("a failed build leaves the previous output untouched and no temporary folder behind", async () => {
  const out = join(work, "kept");
  assert.is((await buildInto(out)).code, 0);
  const before = files(out);
  for (const extra of [{ REGISTRY_SOURCE: "fixtures/invalid/dangling-edge.json" }, { BASE_URL: "not a url" }]) {
    const result = await build(["--out", out], {
      ...extra,
      BASE_URL: extra.BASE_URL ?? "https://registry.example.org",
      REGISTRY_SOURCE: extra.REGISTRY_SOURCE ?? "fixtures/registry.json",
    });
    assert.is(result.code, 1);
    assert.ok(result.stderr.length > 0);
    const after = files(out);
    for (const [name, bytes] of before) assert.ok(bytes.equals(after.get(name) as Buffer), name);
    assert.equal(readdirSync(dirname(out)).filter((n) => n !== "kept" && n.includes("kept")), []);
  }
});

test("--help explains every flag and exit code; a bad flag or stray argument is one line and exit 2", async () => {
  const help = await build(["--help"]);
  assert.is(help.code, 0);
  for (
    const text of [
      "usage: npm run build",
      "--source FILE",
      "--base-url URL",
      "--out DIR",
      "SOURCE_DATE_EPOCH",
      "Exit codes",
    ]
  ) assert.ok(help.stdout.toString().includes(text), text);
  for (const args of [["--colour"], ["stray"], ["--out"]]) {
    const bad = await build(args);
    assert.is(bad.code, 2, args.join(" "));
    assert.is(bad.stderr.split("\n").filter(Boolean).length, 1, bad.stderr);
    assert.match(bad.stderr, /--help for more\)$/m);
    assert.not.match(bad.stderr, /\n\s+at /);
  }
});

test("no private string of the source is in any artifact (each embeds the answers, not the source)", async () => {
  const source = JSON.parse(readFileSync("fixtures/registry.json", "utf8"));
  const PUBLIC_VAULT_KEYS = [
    "vault_slug",
    "display_name",
    "class",
    "status",
    "persona",
    "note",
    "last_synced",
    "suppressed",
  ];
  const strings = (value: unknown): string[] =>
    typeof value === "string"
      ? [value]
      : typeof value === "object" && value !== null
      ? Object.values(value).flatMap(strings)
      : [];
  const privateStrings = new Set<string>([
    ...Object.entries(source).filter(([k]) =>
      !["registry_schema_version", "generated_at", "source_inventory_sha", "licence", "labels", "vaults", "edges"]
        .includes(k)
    ).flatMap(([, v]) => strings(v)),
    ...strings(source.licence?.internal_contact),
    ...source.vaults.flatMap((v: Record<string, unknown>) => [
      ...strings(v["tagline"]),
      ...Object.entries(v).filter(([k]) => !PUBLIC_VAULT_KEYS.includes(k) && k !== "tagline").flatMap(([, x]) =>
        strings(x)
      ),
      ...(v["suppressed"] === true ? strings(v["note"]) : []),
    ]),
  ]);
  const suppressed = new Set(
    source.vaults.filter((v: Record<string, unknown>) => v["suppressed"] === true).map((v: Record<string, unknown>) =>
      v["vault_slug"]
    ),
  );
  const touching = source.edges.filter((e: Record<string, string>) =>
    suppressed.has(e["source"]) || suppressed.has(e["target"])
  );
  const publicTypes = new Set(
    source.edges.filter((e: Record<string, string>) => !touching.includes(e)).map((e: Record<string, string>) =>
      e["type"]
    ),
  );
  for (const e of touching) if (!publicTypes.has(e.type)) privateStrings.add(e.type);
  assert.ok(privateStrings.size >= 15, `found ${privateStrings.size} private strings in the fixture`);

  const out = join(work, "privacy");
  assert.is((await buildInto(out)).code, 0);
  for (const [name, bytes] of files(out)) {
    const text = bytes.toString("utf8");
    for (const secret of privateStrings) {
      assert.not.ok(text.includes(secret), `${name} contains ${JSON.stringify(secret)}`);
    }
  }
});

test.run();
