/**
 * Each platform's limits (node/builder/platform-limits.ts), through the build's one rule:
 * a code artifact is written only when every answer it may give fits every platform it is for;
 * each one left out is named in one line with the limit and what serves the document instead.
 * The Lambda artifact streams: an answer past Lambda's buffered 6 MB keeps it, in one line saying
 * its streamHandler serves that answer (the stream itself: test/recipes.test.ts).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { prepareBuild } from "../assembly/prepare.ts";
import { MAX_DEPLOY_DOCUMENT_BYTES } from "../contract/limits.ts";
import { generateSource } from "../bench/generate.ts";
import { zlibCompress } from "../node/common/compress.ts";
import { planArtifacts, staticAlone } from "../node/builder/platform-limits.ts";
import { validateSource } from "../registry.ts";
import { event, EVENTS, retarget } from "./aws-events.ts";
import { cleanEnv, runCommand } from "./process.ts";
import { buildFirst } from "./first-build.ts";

const BASE = "https://registry.example.org";
const BUILT_AT = "2026-11-21T12:00:00Z";
const EPOCH = String(Date.parse(BUILT_AT) / 1000);
const work = mkdtempSync(join(tmpdir(), "registry-platform-limits-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

const CODE = ["fetch/index.mjs", "lambda/index.mjs", "node/server.mjs"];
/** Lambda's and Netlify's buffered 6 MB, as AWS counts it (docs/deploying.md, "Platform limits"). */
const SIX_MB = 6_291_456;

/** The bytes and the answer a plan's line names: `its answer to GET /x (identity) is 8,290,183 bytes`. */
function measureIn(line: string): { answer: string; bytes: number } {
  const m = /its answer to (GET \S+ \([a-z]+\)) is ([\d,]+) bytes/.exec(line);
  if (m === null) throw new Error(`no measure in: ${line}`);
  return { answer: m[1] as string, bytes: Number((m[2] as string).replaceAll(",", "")) };
}

/** The text block of docs/deploying.md's "Platform limits" that shows a build's lines. */
function docsLines(): string[] {
  const docs = readFileSync("docs/deploying.md", "utf8");
  const block = /```text\n(left out fetch\/index\.mjs: [^`]*)```/.exec(docs);
  if (block === null) throw new Error("docs/deploying.md shows no left-out line");
  return (block[1] as string).split("\n").filter((l) => l !== "");
}

/** A source of `n` vaults from the benchmarks' generator, written once. */
function sourceOf(n: number): string {
  const file = join(work, `source-${n}.json`);
  if (!existsSync(file)) writeFileSync(file, JSON.stringify(generateSource(n)));
  return file;
}

async function buildOf(source: unknown) {
  const checked = validateSource(source);
  if (!checked.ok) throw new Error(checked.problems.join("; "));
  return await prepareBuild(checked.source, { baseUrl: BASE, builtAt: BUILT_AT }, { compress: zlibCompress });
}

const build = (source: string, out: string) =>
  buildFirst(["--source", source, "--base-url", BASE, "--out", out], {
    env: cleanEnv({ SOURCE_DATE_EPOCH: EPOCH }),
  });

const filesOf = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) =>
    join(e.parentPath, e.name).slice(dir.length + 1)
  ).sort();

test("a registry that fits everything: every artifact as before, no line, golden bytes", async () => {
  const served = await buildOf(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
  const plan = await planArtifacts(served);
  assert.equal([...plan.write].sort(), CODE);
  assert.equal(plan.lines, []);
  assert.not.ok(staticAlone(served));

  const out = join(work, "fixture");
  const built = await build("fixtures/registry.json", out);
  assert.is(built.code, 0, built.stderr);
  assert.is(built.stderr, "");
  for (const file of CODE) assert.ok(existsSync(join(out, file)), file);
  assert.equal(filesOf(join(out, "static")).filter((f) => /\.(gz|br)$/.test(f)), []);
  assert.ok(readFileSync(join(out, "static", "vaults.json")).equals(readFileSync("golden/registry.json")));
  assert.is(readFileSync(join(out, "static", "_headers"), "utf8"), readFileSync("golden/static/_headers", "utf8"));
});

test("measured as serialized: a 5.4 MiB document whose buffered answer escapes past 6 MiB leaves out fetch/ and streams from lambda/", async () => {
  const served = await buildOf(generateSource(8_000));
  const document = served.routes.get("/vaults.json")!.identity.body;
  assert.ok(document.byteLength < SIX_MB, "the document itself fits");
  const plan = await planArtifacts(served);
  assert.equal([...plan.write].sort(), ["lambda/index.mjs", "node/server.mjs"]);
  assert.is(plan.lines.length, 2, plan.lines.join("\n"));
  assert.match(plan.lines[0] as string, /^left out fetch\/index\.mjs: /);
  assert.match(plan.lines[1] as string, /^lambda\/index\.mjs streams: /);
  const lambda = measureIn(plan.lines[1] as string).bytes;
  assert.ok(lambda > SIX_MB, String(lambda));
});

test("a buffered answer over 6 MB: 10,500 vaults leave out fetch/, and lambda/ is written for its streamHandler; one line each", async () => {
  const out = join(work, "10500");
  const built = await build(sourceOf(10_500), out);
  assert.is(built.code, 0, built.stderr);
  assert.not.match(built.stderr, /\n\s+at /);
  const document = readFileSync(join(out, "static", "vaults.json"));
  assert.ok(document.byteLength > 6_000_000 && document.byteLength <= MAX_DEPLOY_DOCUMENT_BYTES);
  // Its Lambda answer, identity, JSON-escaped, is over the payload limit.
  assert.ok(JSON.stringify(document.toString("utf8")).length > SIX_MB);

  assert.ok(existsSync(join(out, "lambda", "index.mjs")), "the Lambda artifact, which streams it");
  assert.not.ok(existsSync(join(out, "fetch")), "no fetch artifact");
  assert.ok(existsSync(join(out, "node", "server.mjs")));
  assert.equal(filesOf(join(out, "static")).filter((f) => /\.(gz|br)$/.test(f)), [], "no siblings below 8 MiB");
  const lines = built.stderr.split("\n").filter((l) => l !== "");
  assert.is(lines.length, 2, built.stderr);
  assert.match(
    lines[0] as string,
    /^left out fetch\/index\.mjs: its answer to GET \/[\w./]+ \([a-z]+\) is [\d,]+ bytes \([\d.]+ MiB\) serialized, over Netlify Functions' buffered response payload limit of 6,291,456 bytes \(6 MiB\); lambda\/index\.mjs, node\/server\.mjs and static\/ serve the document instead \(docs\/deploying\.md, "Platform limits"\)$/,
  );
  assert.match(
    lines[1] as string,
    /^lambda\/index\.mjs streams: its answer to GET \/[\w./]+ \(identity\) is [\d,]+ bytes \([\d.]+ MiB\) serialized, over AWS Lambda's buffered response payload limit of 6,291,456 bytes \(6 MiB\); its streamHandler serves it, on a Function URL with invoke mode RESPONSE_STREAM; its handler \(buffered: API Gateway, ALB\) cannot \(docs\/deploying\.md, "Platform limits"\)$/,
  );
  const marker = readFileSync(join(out, ".registry-build"), "utf8");
  assert.match(marker, /lambda/, "the marker names what was written");
  assert.not.match(marker, /fetch/, "and only that");
  // The docs show these very lines, figures and all: no table of them in code to mirror.
  assert.equal(lines, docsLines());

  // The measure is the Lambda artifact's own answer, serialized as Lambda carries it (UTF-8: the
  // document holds É, Ø, å and ü): every recorded event kind on every path fits under it, and the
  // largest reaches it exactly.
  const measured = measureIn(lines[1] as string);
  const served = await buildOf(JSON.parse(readFileSync(sourceOf(10_500), "utf8")));
  assert.match(document.toString("utf8"), /[^\x00-\x7f]/, "a character of more than one byte");
  const { handler } = (await import(pathToFileURL(join(out, "lambda", "index.mjs")).href)) as {
    handler: (e: unknown) => Promise<unknown>;
  };
  let largest = { bytes: 0, answer: "" };
  for (const path of [...served.routes.keys(), ...served.gone.keys()]) {
    for (const name of EVENTS) {
      const bytes = Buffer.byteLength(JSON.stringify(await handler(retarget(event(name), "GET", path))), "utf8");
      if (bytes > largest.bytes) largest = { bytes, answer: `GET ${path} (identity)` };
    }
  }
  assert.equal(largest, measured);
});

test.run();
