/**
 * Each platform's limits as one table (node/builder/platform-limits.ts), and the build's one rule:
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
import {
  ARTIFACT_LIMITS,
  lambdaPayloadBytes,
  largestAnswer,
  planArtifacts,
  PLATFORM_LIMITS,
  staticAlone,
  STREAMS,
} from "../node/builder/platform-limits.ts";
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

test("the table: each platform's figures, and the limits each code artifact is checked against", () => {
  assert.is(PLATFORM_LIMITS.lambda.bytes, 6_291_456);
  assert.is(PLATFORM_LIMITS.netlify.bytes, 6_291_456);
  assert.is(PLATFORM_LIMITS.netlify.streamedBytes, 20_000_000);
  assert.is(PLATFORM_LIMITS.workers.bytes, Number.POSITIVE_INFINITY);
  assert.is(PLATFORM_LIMITS.workersAssets.bytes, 25 * 1024 * 1024);
  assert.is(PLATFORM_LIMITS.embed.bytes, MAX_DEPLOY_DOCUMENT_BYTES);
  for (const limit of Object.values(PLATFORM_LIMITS)) assert.ok(limit.source.length > 0, limit.platform);
  assert.equal(ARTIFACT_LIMITS, {
    "node/server.mjs": ["embed"],
    "fetch/index.mjs": ["embed", "netlify", "workers"],
    "lambda/index.mjs": ["embed", "lambda"],
  });
  assert.equal(Object.keys(STREAMS), ["lambda/index.mjs"]);
  assert.is(STREAMS["lambda/index.mjs"]?.limit, "lambda");
  assert.is(PLATFORM_LIMITS.lambda.streamedBytes, 200_000_000);
  // Docs cite every source the table names.
  const docs = readFileSync("docs/deploying.md", "utf8");
  for (const limit of Object.values(PLATFORM_LIMITS)) {
    if (limit.source.startsWith("https://")) assert.ok(docs.includes(limit.source), limit.source);
  }
});

test("a body counts as Lambda carries it: JSON-escaped text, a binary body by its base64", () => {
  assert.is(lambdaPayloadBytes('{"a":"é"}'), JSON.stringify('{"a":"é"}').length + 1);
  const result = { statusCode: 200, headers: {}, body: Buffer.alloc(3000).toString("base64"), isBase64Encoded: true };
  assert.is(lambdaPayloadBytes(result), JSON.stringify(result).length);
  assert.ok(lambdaPayloadBytes(result) > 4000);
});

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

  // The measure is the Lambda artifact's own answer, serialized: every recorded event kind on every
  // path fits under it, and the largest reaches it exactly.
  const measured = await largestAnswer("lambda", served);
  assert.ok(measured !== undefined);
  const { handler } = (await import(pathToFileURL(join(out, "lambda", "index.mjs")).href)) as {
    handler: (e: unknown) => Promise<unknown>;
  };
  let largest = 0;
  for (const path of served.routes.keys()) {
    for (const name of EVENTS) {
      const result = await handler(retarget(event(name), "GET", path));
      largest = Math.max(largest, lambdaPayloadBytes(result));
    }
  }
  assert.is(largest, measured.bytes);
});

test("measured as serialized: a 5.4 MiB document whose buffered answer escapes past 6 MiB leaves out fetch/ and streams from lambda/", async () => {
  const served = await buildOf(generateSource(8_000));
  const document = served.routes.get("/vaults.json")!.identity.body;
  assert.ok(document.byteLength < PLATFORM_LIMITS.lambda.bytes, "the document itself fits");
  const lambda = await largestAnswer("lambda", served);
  assert.ok(lambda !== undefined && lambda.bytes > PLATFORM_LIMITS.lambda.bytes, String(lambda?.bytes));
  const plan = await planArtifacts(served);
  assert.equal([...plan.write].sort(), ["lambda/index.mjs", "node/server.mjs"]);
  assert.is(plan.lines.length, 2, plan.lines.join("\n"));
  assert.match(plan.lines[0] as string, /^left out fetch\/index\.mjs: /);
  assert.match(plan.lines[1] as string, /^lambda\/index\.mjs streams: /);
});

test("a buffered answer over 6 MB: 10,500 vaults leave out fetch/, and lambda/ is written for its streamHandler; one line each", async () => {
  const out = join(work, "10500");
  const built = await build(sourceOf(10_500), out);
  assert.is(built.code, 0, built.stderr);
  assert.not.match(built.stderr, /\n\s+at /);
  const document = readFileSync(join(out, "static", "vaults.json"));
  assert.ok(document.byteLength > 6_000_000 && document.byteLength <= MAX_DEPLOY_DOCUMENT_BYTES);
  // Its Lambda answer, identity, JSON-escaped, is over the payload limit.
  assert.ok(JSON.stringify(document.toString("utf8")).length > PLATFORM_LIMITS.lambda.bytes);

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
});

test.run();
