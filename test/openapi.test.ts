/**
 * The OpenAPI 3.1 descriptions and the consumer types, checked by tools that are not ours:
 * Redocly CLI lints the description as the static export serves it; every golden HTTP answer (the
 * shipped table's matrix and each lifecycle step) conforms to the description of the version that
 * serves its path (`openapi-check.ts`: Redocly dereferences, Ajv validates); openapi-typescript
 * generates a client's types from it without a warning; tsc accepts and rejects what the types
 * should. Offline: no tool fetches anything.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { answerer } from "../http/answer.ts";
import { contextOf, type ContractVersion } from "../contract/version-policy.ts";
import { openApiDescription } from "../assembly/openapi.ts";
import { KEYS_PATH, manifestPath, signBuild } from "../assembly/manifest.ts";
import { generateSigningKey } from "../assembly/jws.ts";
import { type Build, prepareBuild } from "../assembly/prepare.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { zlibCompress } from "../node/common/compress.ts";
import { writeStatic } from "../node/builder/static.ts";
import { type Source, validateSource } from "../registry.ts";
import { answerRequests, GOLDEN_OPTIONS, LIFECYCLE_REQUESTS } from "./cases.ts";
import { conformanceProblems, dereference, type SentAnswer } from "./openapi-check.ts";
import { cleanEnv, run } from "./process.ts";
import type { Exchange } from "./transcript.ts";
import { LIFECYCLE_DATES, TEST_TABLE } from "./v2.ts";

const work = mkdtempSync(join(tmpdir(), "registry-openapi-test-"));
const env = cleanEnv({ HOME: work, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" });
test.after(() => rmSync(work, { recursive: true, force: true }));

const source = (() => {
  const result = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
  if (!result.ok) throw new Error(result.problems.join("\n"));
  return result.source as Source;
})();
const build = (builtAt: string, table: readonly ContractVersion[] = VERSIONS): Promise<Build> =>
  prepareBuild(source, { baseUrl: GOLDEN_OPTIONS.baseUrl, builtAt }, { compress: zlibCompress }, table);
const fileName = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/**
 * Each version's description as `served` gives it (dereferenced), with its schema beside it; a
 * version past its sunset serves none, so its last one (which declares the 410) is made afresh.
 */
async function descriptions(
  served: Build,
  table: readonly ContractVersion[],
  builtAt: string,
): Promise<Record<string, any>[]> {
  const out = [];
  for (const version of table) {
    const served_ = served.routes.get(version.openapiPath);
    if (served_ === undefined && !served.gone.has(version.path)) continue;
    const bytes = served_?.identity.body ?? JSON.stringify(openApiDescription(version, GOLDEN_OPTIONS.baseUrl, false));
    const schema = JSON.stringify(version.schema(contextOf(version, { baseUrl: GOLDEN_OPTIONS.baseUrl, builtAt })));
    out.push(
      await dereference(
        { [fileName(version.openapiPath)]: bytes, [fileName(version.schemaPath)]: schema },
        fileName(version.openapiPath),
        env,
      ),
    );
  }
  return out;
}

/** Every problem of the answers to `requests`: each against the description that lists its path. */
function problemsOf(served: Build, described: Record<string, any>[], requests: readonly Exchange[]): string[] {
  const answer = answerer(served);
  return requests.flatMap(({ method, path, headers = {} }) => {
    const a = answer(method, path, (name) => headers[name]);
    const sent: SentAnswer = { method, path, status: a.status, headers: a.headers, body: a.body };
    const description = described.find((d) => path in d["paths"]);
    if (description !== undefined) return conformanceProblems(description, sent);
    // A path no description lists answers 404, a problem document as the descriptions define it.
    if (a.status !== 404 || a.headers["content-type"] !== "application/problem+json") {
      return [`${method} ${path}: ${a.status} for a path no description lists`];
    }
    const problem = described[0]!["components"]["schemas"]["Problem"];
    return conformanceProblems({
      paths: {
        [path]: {
          [method.toLowerCase()]: {
            responses: {
              "404": {
                headers: Object.fromEntries(Object.keys(a.headers).map((h) => [h, {}])),
                content: { "application/problem+json": { schema: problem } },
              },
            },
          },
        },
      },
    }, sent);
  });
}

test("Redocly CLI lints each shipped description, as the static export serves it, with no error and no warning", async () => {
  const dir = join(work, "static");
  await writeStatic(dir, await build(GOLDEN_OPTIONS.builtAt));
  for (const version of VERSIONS) {
    const linted = await run("node_modules/.bin/redocly", [
      "lint",
      join(dir, version.openapiPath),
      "--config",
      "test/redocly.yaml",
      "--format",
      "summary",
    ], { env, timeoutMs: 60_000 });
    const output = `${linted.stdout.toString()}${linted.stderr}`;
    assert.is(linted.code, 0, output);
    assert.match(output, /Your API description is valid/, output);
    assert.not.match(output, /^(error|warning) /m, output);
  }
});

test("every golden HTTP answer conforms to its version's description: status, each header and body", async () => {
  const served = await build(GOLDEN_OPTIONS.builtAt);
  const described = await descriptions(served, VERSIONS, GOLDEN_OPTIONS.builtAt);
  const requests = answerRequests(served);
  assert.ok(requests.length > 30);
  assert.equal(problemsOf(served, described, requests), []);
});

test("every lifecycle answer conforms too: deprecated (Deprecation, Sunset, successor links) and gone (410)", async () => {
  for (const date of LIFECYCLE_DATES) {
    const served = await build(date.builtAt, TEST_TABLE);
    const described = await descriptions(served, TEST_TABLE, date.builtAt);
    assert.equal(problemsOf(served, described, LIFECYCLE_REQUESTS), [], date.name);
  }
});

test("a signed build's manifests and key set conform too (and answer 404, as described, when unsigned)", async () => {
  const { key } = await generateSigningKey();
  const sign = async (served: Build) =>
    (await signBuild(served, [key], { iat: 1795262400, lifetime: 7 * 86400, compression: { compress: zlibCompress } }))
      .build;
  const unsigned = await build(GOLDEN_OPTIONS.builtAt);
  const signed = await sign(unsigned);
  const described = await descriptions(signed, VERSIONS, GOLDEN_OPTIONS.builtAt);
  const paths = [manifestPath(1), KEYS_PATH];
  const etagOf = (path: string) => signed.routes.get(path)!.identity.etag;
  const requests: Exchange[] = paths.flatMap((path) => [
    { method: "GET", path },
    { method: "HEAD", path },
    { method: "GET", path, headers: { "accept-encoding": "gzip" } },
    { method: "GET", path, headers: { "accept-encoding": "br" } },
    { method: "GET", path, headers: { "if-none-match": etagOf(path) } },
    { method: "GET", path, headers: { "if-modified-since": new Date(1795262400 * 1000).toUTCString() } },
    {
      method: "OPTIONS",
      path,
      headers: { origin: "https://consumer.example", "access-control-request-method": "GET" },
    },
    { method: "POST", path },
  ]);
  const statuses = requests.map(({ method, path, headers = {} }) =>
    answerer(signed)(method, path, (name) => headers[name]).status
  );
  assert.equal([...new Set(statuses)].sort(), [200, 204, 304, 405]);
  assert.equal(problemsOf(signed, described, requests), []);
  const gets = paths.map((path): Exchange => ({ method: "GET", path }));
  assert.equal(gets.map(({ path }) => answerer(unsigned)("GET", path, () => undefined).status), [404, 404]);
  assert.equal(problemsOf(unsigned, await descriptions(unsigned, VERSIONS, GOLDEN_OPTIONS.builtAt), gets), []);
  // Every lifecycle step, signed: deprecated manifests (Deprecation, Sunset) and a gone one (410).
  const lifecycle = [manifestPath(1), manifestPath(2), KEYS_PATH].map((path): Exchange => ({ method: "GET", path }));
  const seen = new Set<number>();
  for (const date of LIFECYCLE_DATES) {
    const served = await sign(await build(date.builtAt, TEST_TABLE));
    for (const { path } of lifecycle) seen.add(answerer(served)("GET", path, () => undefined).status);
    const described = await descriptions(served, TEST_TABLE, date.builtAt);
    assert.equal(problemsOf(served, described, [...LIFECYCLE_REQUESTS, ...lifecycle]), [], date.name);
  }
  assert.equal([...seen].sort(), [200, 404, 410]);
});

test("the check fails when the description drops a status or a header that an answer uses", async () => {
  const served = await build(GOLDEN_OPTIONS.builtAt);
  const requests = answerRequests(served);
  const [description] = await descriptions(served, VERSIONS, GOLDEN_OPTIONS.builtAt);
  const noStatus = structuredClone(description!);
  delete noStatus["paths"]["/vaults.json"]["get"]["responses"]["304"];
  assert.match(
    problemsOf(served, [noStatus], requests).join("\n"),
    /GET \/vaults\.json 304: status 304 is not declared/,
  );
  const noHeader = structuredClone(description!);
  delete noHeader["paths"]["/api/registry.v1.json"]["get"]["responses"]["200"]["headers"]["ETag"];
  assert.match(
    problemsOf(served, [noHeader], requests).join("\n"),
    /GET \/api\/registry\.v1\.json 200: header etag is not declared/,
  );
  const wrongBody = structuredClone(description!);
  wrongBody["paths"]["/vaults.json"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["properties"][
    "vault_count"
  ] = { type: "string" };
  assert.match(
    problemsOf(served, [wrongBody], requests).join("\n"),
    /GET \/vaults\.json 200: body: data\/vault_count must be string/,
  );
});

test("openapi-typescript generates a client's types from the served description without a warning", async () => {
  const dir = join(work, "generate");
  await writeStatic(dir, await build(GOLDEN_OPTIONS.builtAt));
  const out = join(work, "client.ts");
  const generated = await run(
    "node_modules/.bin/openapi-typescript",
    [join(dir, VERSIONS[0]!.openapiPath), "-o", out],
    { env, timeoutMs: 60_000 },
  );
  assert.is(generated.code, 0, generated.stderr);
  const said = `${generated.stdout.toString()}${generated.stderr}`;
  assert.not.match(said, /warn|⚠|error/i, said);
  const types = readFileSync(out, "utf8");
  assert.match(types, /listing: "minimal";/);
  assert.match(types, /tier: "in_use" \| "chartered" \| "planned";/);
});

test("the consumer types: what tsc accepts, and each line marked @ts-expect-error is rejected without its mark; nothing is written in the repository", async () => {
  // Other test files run at once type-check and format the repository's tree: a file written
  // there, even for a moment, would fail them.
  const written: string[] = [];
  const watcher = watch("test/types", (event, name) => written.push(`${event} ${name}`));
  try {
    consumerTypes();
    // What the watcher saw (events arrive once the synchronous runs are over).
    await new Promise((done) => setTimeout(done, 300));
  } finally {
    watcher.close();
  }
  assert.equal(written, [], "nothing written in test/types");
});

/** tsc accepts `test/types/consumer-types.ts`, and rejects each of its marked lines without the mark. */
function consumerTypes(): void {
  const file = "test/types/consumer-types.ts";
  const tsc = (path: string) =>
    spawnSync("node_modules/.bin/tsc", [
      "--noEmit",
      "--strict",
      "--exactOptionalPropertyTypes",
      "--allowImportingTsExtensions",
      "--module",
      "nodenext",
      "--target",
      "es2022",
      "--skipLibCheck",
      path,
    ], { encoding: "utf8" });
  const accepted = tsc(file);
  assert.is(accepted.status, 0, accepted.stdout);
  const text = readFileSync(file, "utf8");
  const marks = text.split("\n").filter((line) => line.trim() === "// @ts-expect-error").length;
  assert.ok(marks >= 4, "the file marks what must be rejected");
  // The copy without its marks is checked in this test's own folder, as an ES module, as in the
  // repository, its import made absolute.
  const folder = join(work, "consumer-types");
  mkdirSync(folder);
  writeFileSync(join(folder, "package.json"), `${JSON.stringify({ type: "module" })}\n`);
  const unmarked = join(folder, "consumer-types.unmarked.ts");
  const golden = "../../golden/registry.v1.d.ts";
  assert.ok(text.includes(`"${golden}"`), "the file imports the golden types");
  writeFileSync(
    unmarked,
    text.replaceAll("// @ts-expect-error\n", "\n").replace(
      `"${golden}"`,
      JSON.stringify(resolve("golden/registry.v1.d.ts")),
    ),
  );
  const rejected = tsc(unmarked);
  assert.is(rejected.stdout.split("\n").filter((line) => / error TS\d+:/.test(line)).length, marks, rejected.stdout);
}

test.run();
