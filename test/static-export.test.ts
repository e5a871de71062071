/**
 * The static export serves registries up to the 128 MiB document limit. A build whose document is
 * past what the code artifacts embed (8 MiB) writes the static export alone, says in one line what
 * it left out, and gives every served file its precompressed `.gz` and `.br` siblings with a
 * `_headers` block each. Proven on a real static server that picks a sibling by `Accept-Encoding`
 * (@fastify/static with `preCompressed`, from deploy/tools/, as netlify-cli installs it), with the
 * export's `_headers` applied: 100k vaults of the benchmarks' operator-shaped sources (eleven
 * internal keys a vault) served in every coding byte for byte, and `verify` passing against it and
 * against the fixture's export with siblings.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runVerify } from "../node/verify/command.ts";
import { DOCUMENT_BODY_CAP } from "../node/verify/verify.ts";
import { MAX_DEPLOY_DOCUMENT_BYTES, MAX_DOCUMENT_BYTES, sizeOf } from "../contract/limits.ts";
import { generateSource } from "../bench/generate.ts";
import { prepareBuild } from "../assembly/prepare.ts";
import { zlibCompress } from "../node/common/compress.ts";
import { writeStatic } from "../node/builder/static.ts";
import { validateSource } from "../registry.ts";
import { cleanEnv, runCommand } from "./process.ts";
import { fetchRaw } from "./servers.ts";
import { buildFirst } from "./first-build.ts";

const ROOT = resolve(".");
const BASE = "https://registry.example.org";
const EPOCH = String(Date.parse("2026-11-21T12:00:00Z") / 1000);
const work = mkdtempSync(join(tmpdir(), "registry-static-export-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

const TOOLS = join(ROOT, "deploy", "tools", "package.json");
const HAVE_HOST = existsSync(join(ROOT, "deploy", "tools", "node_modules", "@fastify", "static", "package.json"));
if (!HAVE_HOST) {
  console.log("SKIPPED: the static export on @fastify/static (deploy/tools/ is not installed: npm ci installs it)");
}
const hostTest = HAVE_HOST ? test : test.skip;

/** A source of `n` vaults from the benchmarks' generator, written once. */
function sourceOf(n: number): string {
  const file = join(work, `source-${n}.json`);
  if (!existsSync(file)) writeFileSync(file, JSON.stringify(generateSource(n)));
  return file;
}

async function build(n: number, out: string) {
  return await buildFirst(["--source", sourceOf(n), "--base-url", BASE, "--out", out], {
    env: cleanEnv({ SOURCE_DATE_EPOCH: EPOCH }),
  });
}

/** The `_headers` blocks of an export: path to headers. */
function headerRules(dir: string): Map<string, Record<string, string>> {
  const rules = new Map<string, Record<string, string>>();
  for (const block of readFileSync(join(dir, "_headers"), "utf8").trim().split("\n\n")) {
    const [path, ...lines] = block.split("\n");
    rules.set(
      path as string,
      Object.fromEntries(
        lines.map((l) => l.trim()).map((l) => [l.slice(0, l.indexOf(": ")), l.slice(l.indexOf(": ") + 2)]),
      ),
    );
  }
  return rules;
}

interface Host {
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * @fastify/static on `dir` with `preCompressed`: a request for `/x.json` accepting br or gzip gets
 * `x.json.br` or `x.json.gz` with its `Content-Encoding` and `Vary: Accept-Encoding`, else `x.json`;
 * ETags and 304s are its own. `_headers` is applied last, as Netlify applies it over its own headers.
 */
async function precompressedHost(dir: string): Promise<Host> {
  const load = createRequire(TOOLS);
  type Reply = { header(name: string, value: string): void };
  type App = {
    register(plugin: unknown, options: unknown): Promise<void>;
    addHook(name: string, hook: (request: { url: string }, reply: Reply, payload: unknown) => Promise<unknown>): void;
    listen(options: { host: string; port: number }): Promise<string>;
    close(): Promise<void>;
  };
  const app = (load("fastify") as (o: unknown) => App)({ logger: false });
  const rules = headerRules(dir);
  await app.register(load("@fastify/static"), { root: dir, preCompressed: true });
  app.addHook("onSend", async (request, reply, payload) => {
    const rule = rules.get(request.url.split("?")[0] as string);
    for (const [name, value] of Object.entries(rule ?? {})) reply.header(name, value);
    return payload;
  });
  const origin = await app.listen({ host: "127.0.0.1", port: 0 });
  return { origin, close: () => app.close() };
}

const LEFT_OUT =
  /^left out node\/server\.mjs, fetch\/index\.mjs and lambda\/index\.mjs: a document of [\d.]+ MiB is over the 8 MiB they embed; static\/ serves it, with \.gz and \.br siblings \(docs\/deploying\.md, "Large registries"\)$/;

/** Every file of a folder, relative, sorted. */
const filesOf = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) =>
    join(e.parentPath, e.name).slice(dir.length + 1)
  ).sort();

test("a registry within what the code artifacts embed: every artifact, no siblings, no line about them", async () => {
  const out = join(work, "small");
  const built = await build(1_000, out);
  assert.is(built.code, 0, built.stderr);
  assert.is(built.stderr, "");
  for (const file of ["node/server.mjs", "fetch/index.mjs", "lambda/index.mjs"]) assert.ok(existsSync(join(out, file)));
  assert.equal(filesOf(join(out, "static")).filter((f) => /\.(gz|br)$/.test(f)), []);
});

hostTest(
  "100k vaults: the static export alone, one line naming what it left out, every file and coding served byte for byte by a host that honours precompressed siblings",
  async () => {
    const out = join(work, "100k");
    const started = performance.now();
    const built = await build(100_000, out);
    const seconds = (performance.now() - started) / 1000;
    assert.is(built.code, 0, built.stderr);
    const lines = built.stderr.split("\n").filter((l) => l !== "");
    assert.is(lines.length, 1, built.stderr);
    assert.match(lines[0] as string, LEFT_OUT);
    assert.match(built.stdout.toString(), /^built .*: 100000 vaults, /);
    assert.equal(filesOf(out), [".registry-build", ...filesOf(join(out, "static")).map((f) => `static/${f}`)].sort());

    const dir = join(out, "static");
    const document = readFileSync(join(dir, "vaults.json"));
    assert.ok(document.byteLength > MAX_DEPLOY_DOCUMENT_BYTES && document.byteLength <= MAX_DOCUMENT_BYTES);
    assert.ok(document.byteLength <= DOCUMENT_BODY_CAP, "within what verify reads");
    const rules = headerRules(dir);
    const paths = [...rules.keys()].filter((p) => !/\.(gz|br)$/.test(p));
    assert.equal(
      [...rules.keys()].sort(),
      [...paths, ...paths.map((p) => `${p}.gz`), ...paths.map((p) => `${p}.br`)].sort(),
      "a block for each file and each sibling",
    );
    for (const path of paths) {
      const identity = readFileSync(join(dir, path));
      assert.ok(gunzipSync(readFileSync(join(dir, `${path}.gz`))).equals(identity), `${path}.gz`);
      assert.ok(brotliDecompressSync(readFileSync(join(dir, `${path}.br`))).equals(identity), `${path}.br`);
      for (const [suffix, coding] of [[".gz", "gzip"], [".br", "br"]]) {
        assert.equal(rules.get(`${path}${suffix}`), { ...rules.get(path), "content-encoding": coding as string });
      }
    }

    const host = await precompressedHost(dir);
    try {
      for (const path of paths) {
        const identity = readFileSync(join(dir, path));
        for (
          const [accept, coding, decode] of [
            ["identity", undefined, (b: Buffer) => b],
            ["gzip", "gzip", gunzipSync],
            ["br", "br", brotliDecompressSync],
            ["gzip, deflate, br, zstd", "br", brotliDecompressSync],
          ] as const
        ) {
          const res = await fetchRaw(`${host.origin}${path}`, { headers: { "accept-encoding": accept } });
          assert.is(res.status, 200, `${path} (${accept})`);
          assert.is(res.headers["content-encoding"], coding, `${path} (${accept}): coding`);
          assert.ok(decode(res.body).equals(identity), `${path} (${accept}): decoded once, the file's bytes`);
          assert.match(String(res.headers["vary"]), /accept-encoding/i);
          assert.is(res.headers["content-type"], rules.get(path)?.["content-type"], `${path}: _headers applied`);
          assert.is(res.headers["access-control-allow-origin"], "*");
          if (coding !== undefined) {
            assert.ok(
              res.body.equals(readFileSync(join(dir, path + (coding === "gzip" ? ".gz" : ".br")))),
              "the sibling",
            );
          }
          const again = await fetchRaw(`${host.origin}${path}`, {
            headers: { "accept-encoding": accept, "if-none-match": String(res.headers["etag"]) },
          });
          assert.is(again.status, 304, `${path} (${accept}): 304 on its own ETag`);
        }
      }
      const verified = await runCommand(runVerify, [host.origin, "--static", "--expect-base", BASE], {
        env: cleanEnv(),
      });
      const text = verified.stdout.toString();
      assert.is(verified.code, 0, text);
      assert.not.match(text, /\| FAIL \|/);
    } finally {
      await host.close();
    }
    console.log(
      `  100k vaults: a ${sizeOf(document.byteLength)} document (gzip ${
        sizeOf(readFileSync(join(dir, "vaults.json.gz")).byteLength)
      }, br ${sizeOf(readFileSync(join(dir, "vaults.json.br")).byteLength)}), built in ${seconds.toFixed(1)} s`,
    );
  },
);

hostTest(
  "the fixture's export with siblings: verify passes on the precompressed host",
  async () => {
    const checked = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
    if (!checked.ok) throw new Error(checked.problems.join("; "));
    const served = await prepareBuild(checked.source, { baseUrl: BASE, builtAt: "2026-11-21T12:00:00Z" }, {
      compress: zlibCompress,
    });
    const dir = join(work, "fixture-static");
    await writeStatic(dir, served, { siblings: true });
    assert.ok(existsSync(join(dir, "vaults.json.br")) && existsSync(join(dir, "api", "registry.v1.changes.atom.gz")));
    const host = await precompressedHost(dir);
    try {
      const verified = await runCommand(runVerify, [host.origin, "--static", "--expect-base", BASE], {
        env: cleanEnv(),
      });
      const text = verified.stdout.toString();
      assert.is(verified.code, 0, text);
      assert.not.match(text, /\| FAIL \|/);
      assert.match(text, /^\d+ passed, \d+ warned, 0 failed$/m);
    } finally {
      await host.close();
    }
  },
);

test("a file that cannot be written: writeStatic refuses once every other route's files are whole, and writes no _headers", async () => {
  const checked = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
  if (!checked.ok) throw new Error(checked.problems.join("; "));
  const served = await prepareBuild(checked.source, { baseUrl: BASE, builtAt: "2026-11-21T12:00:00Z" }, {
    compress: zlibCompress,
  });
  const dir = join(work, "blocked-static");
  // A folder where the versioned document goes: its write fails, the others' do not.
  mkdirSync(join(dir, "api", "registry.v1.json"), { recursive: true });
  const refused = await writeStatic(dir, served, { siblings: true }).then(() => undefined, (e: unknown) => e);
  assert.is((refused as NodeJS.ErrnoException | undefined)?.code, "EISDIR");
  assert.not.ok(existsSync(join(dir, "_headers")));
  const others = [...served.routes].filter(([route]) => route !== "/api/registry.v1.json");
  assert.ok(others.length >= 5, "the fixture's build serves other routes");
  for (const [route, resource] of others) {
    assert.equal(new Uint8Array(readFileSync(join(dir, route))), resource.identity.body, route);
    const br = resource.encoded.br;
    if (br !== undefined) assert.equal(new Uint8Array(readFileSync(join(dir, `${route}.br`))), br.body, `${route}.br`);
  }
});

test("routes whose files would clash: writeStatic refuses before it writes anything", async () => {
  const checked = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
  if (!checked.ok) throw new Error(checked.problems.join("; "));
  const served = await prepareBuild(checked.source, { baseUrl: BASE, builtAt: "2026-11-21T12:00:00Z" }, {
    compress: zlibCompress,
  });
  const schema = served.routes.get("/api/registry.v1.schema.json");
  if (schema === undefined) throw new Error("the fixture's build serves its schema");
  const clashing: [string, string][] = [
    ["/api/../vaults.json", "vaults.json"], // the same file as /vaults.json
    ["/vaults.json/inner.json", join("vaults.json", "inner.json")], // inside a file
    ["/vaults.json.gz", "vaults.json.gz"], // a sibling's name
  ];
  for (const [i, [route, shown]] of clashing.entries()) {
    const dir = join(work, `clash-${i}`);
    const build = { ...served, routes: new Map([...served.routes, [route, schema]]) };
    const refused = await writeStatic(dir, build, { siblings: true }).then(() => undefined, (e: unknown) => e);
    assert.instance(refused, Error, route);
    assert.match((refused as Error).message, `static export: two files at ${join(dir, shown)}`);
    assert.not.ok(existsSync(dir), `${route}: nothing written`);
  }
});

test.run();
