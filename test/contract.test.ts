/**
 * The contract over time: the version table and its policy, the lifecycle of a test-only v2 pinned
 * by goldens at every date that matters, and every public byte besides the documents pinned too.
 */
import { envelopeOf } from "../feed/feed.ts";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { answerer } from "../http/answer.ts";
import {
  CANONICAL_PATH,
  changesPaths,
  type ContractVersion,
  type Plan,
  planAt,
  tablePaths,
} from "../contract/version-policy.ts";
import { type Build, planKey, prepareBuild, VersionPolicyError } from "../assembly/prepare.ts";
import { openApiDescription } from "../assembly/openapi.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { zlibCompress } from "../node/common/compress.ts";
import { staticHeaders, writeStatic } from "../node/builder/static.ts";
import {
  documentTypesInput,
  feedTypesInput,
  feedTypesOf,
  provenance,
  reviewedTypes,
  servedFeedTypesOf,
  servedTypesOf,
  typesOf,
  typesPath,
} from "../node/builder/types.ts";
import { type Source, validateSource } from "../registry.ts";
import { answerRequests, GOLDEN_OPTIONS, LIFECYCLE_REQUESTS } from "./cases.ts";
import { assertGolden } from "./golden.ts";
import { transcript } from "./transcript.ts";
import { LIFECYCLE_DATES, TEST_TABLE, V2 } from "./v2.ts";

const source = (() => {
  const result = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
  if (!result.ok) throw new Error("fixtures/registry.json is valid");
  return result.source;
})();
const V1 = VERSIONS[0] as ContractVersion;
/** A table's own problems, as `planAt` refuses them at an instant when every version is published. */
function tableProblems(table: readonly ContractVersion[]): string[] {
  const plan = planAt(table, "9999-12-31T23:59:59Z");
  if ("ok" in plan) return [];
  for (const p of plan.problems) assert.ok(p.startsWith("version table: "), p);
  return plan.problems.map((p) => p.slice("version table: ".length));
}
const build = (builtAt: string, table: readonly ContractVersion[] = VERSIONS): Promise<Build> =>
  prepareBuild(source as Source, { baseUrl: GOLDEN_OPTIONS.baseUrl, builtAt }, { compress: zlibCompress }, table);

// --- the table and its policy ---------------------------------------------------------------

test("the shipped table keeps the policy, and v1 is its only version", () => {
  assert.equal(tableProblems(VERSIONS), []);
  assert.equal(VERSIONS.map((v) => [v.number, v.path, v.schemaPath]), [[
    1,
    "/api/registry.v1.json",
    "/api/registry.v1.schema.json",
  ]]);
});

const refusals: [string, readonly ContractVersion[], RegExp][] = [
  [
    "a sunset 89 days after the successor's publication",
    [{ ...V1, sunset: "2027-05-29" }, V2],
    /^v1: sunset 2027-05-29 is less than 90 days after v2's publication \(2027-03-01\); the earliest allowed is 2027-05-30$/,
  ],
  [
    "a sunset before its own deprecation",
    [{ ...V1, sunset: "2027-02-01" }, V2],
    /^v1: sunset 2027-02-01 is before its own deprecation \(v2 published 2027-03-01\)$/,
  ],
  [
    "two versions on one path",
    [V1, { ...V2, path: V1.path }],
    /^v2: two versions on one path: its path \/api\/registry\.v1\.json is already v1's$/,
  ],
  [
    "a version on the canonical path",
    [{ ...V1, schemaPath: CANONICAL_PATH }],
    /^v1: two versions on one path: its schema path \/vaults\.json is already the canonical address's$/,
  ],
  ["a sunset without a successor", [{ ...V1, sunset: "2030-01-01" }], /^v1: sunset 2030-01-01, but no successor/],
  [
    "publications out of order",
    [V1, { ...V2, published: "2026-01-01" }],
    /^v2: published 2026-01-01, not after v1 \(2026-11-21\)$/,
  ],
  ["a gap in the numbers", [V1, { ...V2, number: 3 }], /^v3: row 2 of the version table must be v2/],
  ["a day that does not exist", [{ ...V1, published: "2026-02-30" }], /^v1: published "2026-02-30" is not a day/],
  ["no version at all", [], /^the version table is empty: nothing would be served$/],
  [
    "a path without its leading slash",
    [{ ...V1, path: "api/registry.v1.json" }],
    /^v1: its path "api\/registry\.v1\.json" must start with \/$/,
  ],
  [
    "two publications on one day",
    [V1, { ...V2, published: V1.published }],
    /^v2: published 2026-11-21, not after v1 \(2026-11-21\)$/,
  ],
  [
    "a sunset that is not a day",
    [{ ...V1, sunset: "2027-13-01" }, V2],
    /^v1: sunset "2027-13-01" is not a day like 2027-03-01$/,
  ],
  [
    "a sunset on the day of its own deprecation",
    [{ ...V1, sunset: V2.published }, V2],
    /^v1: sunset 2027-03-01 is before its own deprecation \(v2 published 2027-03-01\)$/,
  ],
];

test("a table with several problems is refused with each on its own line, as a VersionPolicyError", async () => {
  const table = [{ ...V1, path: "x", published: "2026-02-30" }];
  assert.is(tableProblems(table).length, 2);
  try {
    await build("2027-12-01T00:00:00Z", table);
    assert.unreachable("refused");
  } catch (error) {
    assert.is((error as Error).name, "VersionPolicyError");
    assert.is((error as Error).message, tableProblems(table).map((p) => `version table: ${p}`).join("\n"));
  }
});

test("a plan: a successor not yet published is no successor; the first version is canonical from its first day", () => {
  const before = planAt([V1, V2], "2027-02-28T23:59:59Z");
  assert.ok(
    "ok" in before && before.ok.served.length === 1 && before.ok.served[0]?.successor === undefined &&
      before.ok.canonical === V1,
    JSON.stringify(before),
  );
  const first = planAt([V1, V2], `${V1.published}T00:00:00Z`);
  assert.ok("ok" in first && first.ok.canonical === V1, JSON.stringify(first));
  // Deprecated by v2 without a sunset: no Sunset header to send.
  const after = planAt([V1, V2], "2027-03-02T00:00:00Z");
  assert.ok("ok" in after, JSON.stringify(after));
  if ("ok" in after) {
    assert.equal(after.ok.served[0], {
      version: V1,
      successor: V2,
      deprecation: `@${Date.parse("2027-03-01T00:00:00Z") / 1000}`,
      sunset: undefined,
    });
  }
});

test("a version's change feeds sit beside its document, only its final .json replaced", () => {
  assert.equal(changesPaths({ path: "/x.json/registry.v1.json" }), {
    json: "/x.json/registry.v1.changes.json",
    atom: "/x.json/registry.v1.changes.atom",
  });
  assert.equal(changesPaths({ path: "/api/registry.v1" }), {
    json: "/api/registry.v1.changes.json",
    atom: "/api/registry.v1.changes.atom",
  });
});
for (const [what, table, message] of refusals) {
  test(`a table with ${what} is refused, by the policy and by the build, saying why`, async () => {
    const problems = tableProblems(table);
    assert.is(problems.length, 1, problems.join("\n"));
    assert.match(problems[0] as string, message);
    try {
      await build("2027-12-01T00:00:00Z", table);
      assert.unreachable("the build must refuse the table");
    } catch (error) {
      assert.instance(error, VersionPolicyError);
      assert.is((error as Error).message, `version table: ${problems[0]}`);
    }
  });
}

test("a build before the first publication is refused: nothing would be served", async () => {
  try {
    await build("2026-11-20T23:59:59Z");
    assert.unreachable("refused");
  } catch (error) {
    assert.is(
      (error as Error).message,
      "built_at 2026-11-20T23:59:59Z: nothing is published yet (v1 is published on 2026-11-21)",
    );
  }
});

const day = 86_400_000;
const tables = fc
  .record({
    gaps: fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 4 }),
    // Offsets of each sunset from the successor's publication, in days, often right at the 90-day edge.
    sunsets: fc.array(
      fc.option(fc.oneof(fc.integer({ min: -30, max: 300 }), fc.integer({ min: 88, max: 91 })), { nil: undefined }),
      { minLength: 4, maxLength: 4 },
    ),
  })
  .map(({ gaps, sunsets }) => {
    let t = Date.parse("2026-11-21T00:00:00Z");
    const published = gaps.map((gap, i) => (i === 0 ? t : (t += gap * day)));
    return published.map((p, i): ContractVersion => {
      const next = published[i + 1];
      const offset = sunsets[i];
      const sunset = next === undefined || offset === undefined
        ? undefined
        : new Date(next + offset * day).toISOString().slice(0, 10);
      return {
        ...V1,
        number: i + 1,
        path: `/v${i + 1}.json`,
        schemaPath: `/v${i + 1}.schema.json`,
        openapiPath: `/v${i + 1}.openapi.json`,
        published: new Date(p).toISOString().slice(0, 10),
        sunset,
      };
    });
  });
const instants = fc.integer({ min: Date.parse("2026-11-21T00:00:00Z"), max: Date.parse("2030-01-01T00:00:00Z") }).map((
  ms,
) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z"));

test("property: a table is refused exactly when a sunset comes less than 90 days after its successor's publication", () => {
  fc.assert(
    fc.property(tables, (table) => {
      const early = table.some((v, i) =>
        v.sunset !== undefined &&
        Date.parse(v.sunset) < Date.parse((table[i + 1] as ContractVersion).published) + 90 * day
      );
      assert.is(tableProblems(table).length > 0, early);
    }),
  );
});

test("property: on a valid table, every build serves what the policy promises", () => {
  fc.assert(
    fc.property(tables, instants, (table, builtAt) => {
      if (tableProblems(table).length > 0) return;
      const plan = planAt(table, builtAt);
      assert.ok("ok" in plan);
      const now = Date.parse(builtAt);
      const { served, gone, canonical } = plan.ok;
      const servedNumbers = served.map((s) => s.version.number);
      // Served: published and not sunset; gone: sunset; the rest: not yet published.
      for (const v of table) {
        const isPublished = Date.parse(v.published) <= now;
        const isSunset = v.sunset !== undefined && Date.parse(v.sunset) <= now;
        assert.is(servedNumbers.includes(v.number), isPublished && !isSunset, `v${v.number} served`);
        assert.is(gone.some((g) => g.version.number === v.number), isPublished && isSunset, `v${v.number} gone`);
      }
      // /vaults.json serves a served version, which is the first or at least 90 days old, and the newest such.
      assert.ok(servedNumbers.includes(canonical.number));
      assert.ok(canonical.number === 1 || Date.parse(canonical.published) + 90 * day <= now);
      const newer = table.filter((v) => v.number > canonical.number && Date.parse(v.published) + 90 * day <= now);
      assert.equal(newer, []);
      // A version superseded less than 90 days ago is still served, and says so.
      for (const [i, v] of table.entries()) {
        const next = table[i + 1];
        if (next === undefined || Date.parse(next.published) > now) continue;
        if (now < Date.parse(next.published) + 90 * day) {
          assert.ok(servedNumbers.includes(v.number), `v${v.number} within its 90 days`);
        }
        const s = served.find((x) => x.version.number === v.number);
        if (s !== undefined) assert.is(s.deprecation, `@${Date.parse(next.published) / 1000}`);
      }
    }),
  );
});

test("property: on a valid table, two instants that serve the same versions with the same canonical one have the same plan, signals and gone versions too (what a rebuild from the clock compares)", () => {
  const whole = (plan: Plan) =>
    JSON.stringify([
      plan.served.map((s) => [s.version.number, s.successor?.number, s.deprecation, s.sunset]),
      plan.gone.map((g) => [g.version.number, g.successor.number]),
      plan.canonical.number,
    ]);
  let same = 0;
  fc.assert(
    // The second instant within 120 days of the first, often a day apart: near the edges of a plan.
    fc.property(tables, instants, fc.oneof(fc.integer({ min: -120, max: 120 }), fc.constant(1)), (table, a, days) => {
      if (tableProblems(table).length > 0) return;
      const b = new Date(Date.parse(a) + days * day).toISOString().replace(".000Z", "Z");
      const [x, y] = [planAt(table, a), planAt(table, b)];
      if (!("ok" in x) || !("ok" in y)) return;
      if (planKey(x.ok) === planKey(y.ok)) same++;
      assert.is(whole(x.ok) === whole(y.ok), planKey(x.ok) === planKey(y.ok), `${a} and ${b}`);
    }),
    { numRuns: 1000 },
  );
  assert.ok(same > 0, "some pairs of instants have the same plan");
});

// --- the lifecycle of a test-only v2, pinned -------------------------------------------------

for (const date of LIFECYCLE_DATES) {
  test(`lifecycle ${date.name} (built ${date.builtAt}): /vaults.json serves v${date.canonical}; golden/lifecycle/${date.name}.txt`, async () => {
    const served = await build(date.builtAt, TEST_TABLE);
    assert.is(served.meta.canonicalOf, (TEST_TABLE[date.canonical - 1] as ContractVersion).path);
    assertGolden(`lifecycle/${date.name}.txt`, transcript(answerer(served), LIFECYCLE_REQUESTS));
  });
}

test("lifecycle: signals on the wire, as the RFCs spell them", async () => {
  const onPublication = answerer(await build("2027-03-01T00:00:00Z", TEST_TABLE));
  const v1 = onPublication("GET", V1.path, () => undefined).headers;
  assert.is(v1["deprecation"], `@${Date.parse("2027-03-01T00:00:00Z") / 1000}`);
  assert.is(v1["sunset"], "Tue, 01 Jun 2027 00:00:00 GMT");
  assert.is(
    v1["link"],
    `<${GOLDEN_OPTIONS.baseUrl}${V1.schemaPath}>; rel="describedby", <${GOLDEN_OPTIONS.baseUrl}${V1.openapiPath}>; rel="service-desc", <${GOLDEN_OPTIONS.baseUrl}${
      changesPaths(V1).json
    }>; rel="alternate"; type="application/feed+json", <${GOLDEN_OPTIONS.baseUrl}${
      changesPaths(V1).atom
    }>; rel="alternate"; type="application/atom+xml", <${GOLDEN_OPTIONS.baseUrl}${V2.path}>; rel="successor-version"`,
  );
  assert.is(
    onPublication("GET", V1.openapiPath, () => undefined).headers["link"],
    `<${GOLDEN_OPTIONS.baseUrl}${V2.openapiPath}>; rel="successor-version"`,
  );
  assert.is(v1["access-control-expose-headers"], "ETag, Link, Allow, Deprecation, Sunset");
  const canonical = onPublication("GET", CANONICAL_PATH, () => undefined).headers;
  assert.is(canonical["deprecation"], undefined, "/vaults.json is not deprecated: it moves");
  assert.is(canonical["content-location"], V1.path);
  const after = answerer(await build("2027-06-01T00:00:00Z", TEST_TABLE));
  for (const method of ["GET", "HEAD"]) {
    const gone = after(method, V1.path, () => undefined);
    assert.is(gone.status, 410);
    assert.is(gone.headers["content-type"], "application/problem+json");
    assert.is(gone.headers["link"], `<${GOLDEN_OPTIONS.baseUrl}${V2.path}>; rel="successor-version"`);
  }
  assert.is(after("OPTIONS", V1.path, () => undefined).status, 204);
  assert.is(after("POST", V1.path, () => undefined).status, 405);
});

// --- every public byte ------------------------------------------------------------------------

test("each shipped schema as served is golden/registry.v<N>.schema.json", async () => {
  const served = await build(GOLDEN_OPTIONS.builtAt);
  for (const v of VERSIONS) {
    assertGolden(`registry.v${v.number}.schema.json`, served.routes.get(v.schemaPath)!.identity.body);
  }
});

test("each shipped version's OpenAPI description as served is golden/registry.v<N>.openapi.json, its types golden/registry.v<N>.d.ts, its feed's golden/registry.v<N>.changes.d.ts", async () => {
  const served = await build(GOLDEN_OPTIONS.builtAt);
  for (const v of VERSIONS) {
    const description = served.routes.get(v.openapiPath)!;
    assert.is(description.identity.ok["content-type"], "application/vnd.oai.openapi+json;version=3.1");
    assertGolden(`registry.v${v.number}.openapi.json`, description.identity.body);
    const schema = JSON.parse(Buffer.from(served.routes.get(v.schemaPath)!.identity.body).toString("utf8"));
    const [types, feedTypes] = [await typesOf(schema, v.schemaPath), await feedTypesOf(schema, changesPaths(v).json)];
    assertGolden(`registry.v${v.number}.d.ts`, types);
    assertGolden(`registry.v${v.number}.changes.d.ts`, feedTypes);
    // What each was made of, by digest, and its own digest: a build copies them only for that very input.
    const inputs = [documentTypesInput(schema, v.schemaPath), feedTypesInput(schema, changesPaths(v).json)] as const;
    assertGolden(`registry.v${v.number}.d.ts.input`, provenance(inputs[0], types));
    assertGolden(`registry.v${v.number}.changes.d.ts.input`, provenance(inputs[1], feedTypes));
    for (const input of inputs) {
      // The digest holds all the generator reads: options of plain data, and no $ref to a file.
      assert.equal(JSON.parse(JSON.stringify(input.options)), input.options, "options of plain data");
      const refs = JSON.stringify(input.schema).match(/"\$ref":"[^"]*"/g) ?? [];
      assert.ok(refs.length > 0 && refs.every((ref) => ref.startsWith('"$ref":"#')), refs.join(" "));
    }
  }
});

test("a build copies golden/'s types only for the very input they were made of: any base URL, no other schema or path", async () => {
  const feed = changesPaths(V1).json;
  const elsewhere = await prepareBuild(source as Source, {
    baseUrl: "https://elsewhere.example/reg",
    builtAt: GOLDEN_OPTIONS.builtAt,
  });
  const served = JSON.parse(Buffer.from(elsewhere.routes.get(V1.schemaPath)!.identity.body).toString("utf8"));
  assert.is.not(served.$id, JSON.parse(readFileSync(join("golden", "registry.v1.schema.json"), "utf8")).$id);
  const [golden, feedGolden] = ["registry.v1.d.ts", "registry.v1.changes.d.ts"].map((name) =>
    readFileSync(join("golden", name), "utf8")
  ) as [string, string];
  // Copied, not generated: the shortcut itself answers.
  assert.is(await reviewedTypes("registry.v1.d.ts", documentTypesInput(served, V1.schemaPath)), golden);
  assert.is(await reviewedTypes("registry.v1.changes.d.ts", feedTypesInput(served, feed)), feedGolden);
  assert.is(await servedTypesOf(served, V1.schemaPath), golden);
  assert.is(await servedFeedTypesOf(served, feed), feedGolden);
  // Another path is another banner, so another input: never golden/'s file.
  assert.is(
    await reviewedTypes("registry.v1.d.ts", documentTypesInput(served, "/other/registry.v1.schema.json")),
    undefined,
  );
  assert.is(await reviewedTypes("registry.v1.changes.d.ts", feedTypesInput(served, "/other.changes.json")), undefined);
  // One description changed: not the reviewed input, so the generator's own bytes, which show the change.
  const edited = structuredClone(served);
  edited.$defs.edge.description = "An edited description.";
  assert.is(await reviewedTypes("registry.v1.d.ts", documentTypesInput(edited, V1.schemaPath)), undefined);
  assert.is(await reviewedTypes("registry.v1.changes.d.ts", feedTypesInput(edited, feed)), undefined);
  const [types, feedTypes] = [await servedTypesOf(edited, V1.schemaPath), await servedFeedTypesOf(edited, feed)];
  assert.is(types, await typesOf(edited, V1.schemaPath));
  assert.is(feedTypes, await feedTypesOf(edited, feed));
  assert.match(types, "An edited description.");
  assert.match(feedTypes, "An edited description.");
});

test("no shipped schema sets additionalProperties: false, so an added field never fails a consumer's validator", async () => {
  const served = await build(GOLDEN_OPTIONS.builtAt);
  const closed = (node: unknown, at: string): string[] => {
    if (Array.isArray(node)) return node.flatMap((x, i) => closed(x, `${at}/${i}`));
    if (typeof node !== "object" || node === null) return [];
    return Object.entries(node).flatMap(([key, value]) =>
      (key === "additionalProperties" || key === "unevaluatedProperties") && value !== true
        ? [`${at}/${key}`]
        : closed(value, `${at}/${key}`)
    );
  };
  for (const v of VERSIONS) {
    const schema = JSON.parse(Buffer.from(served.routes.get(v.schemaPath)!.identity.body).toString("utf8"));
    assert.equal(closed(schema, "#"), [], `v${v.number}`);
  }
  assert.equal(
    closed({ a: { additionalProperties: false } }, "#"),
    ["#/a/additionalProperties"],
    "the check finds one",
  );
});

test("the static export of a build after v1's sunset has no file or header block for v1: a static host answers 404", async () => {
  const dir = mkdtempSync(join(tmpdir(), "registry-static-"));
  try {
    await writeStatic(dir, await build("2027-06-01T00:00:00Z", TEST_TABLE));
    const [v1Feeds, v2Feeds] = [changesPaths(V1), changesPaths(V2)];
    for (const path of [V1.path, V1.schemaPath, V1.openapiPath, typesPath(V1.schemaPath), v1Feeds.json, v1Feeds.atom]) {
      assert.not.ok(existsSync(join(dir, path)), path);
    }
    for (
      const path of [
        CANONICAL_PATH,
        V2.path,
        V2.schemaPath,
        V2.openapiPath,
        typesPath(V2.schemaPath),
        v2Feeds.json,
        v2Feeds.atom,
      ]
    ) assert.ok(existsSync(join(dir, path)), path);
    const blocks = readFileSync(join(dir, "_headers"), "utf8").split("\n").filter((line) => line.startsWith("/"));
    assert.equal(blocks, [CANONICAL_PATH, V2.path, V2.schemaPath, V2.openapiPath, v2Feeds.json, v2Feeds.atom]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the static export's _headers is golden/static/_headers", async () => {
  assertGolden("static/_headers", staticHeaders(await build(GOLDEN_OPTIONS.builtAt)));
});

test("the HTTP answers of every path to a fixed matrix of requests are golden/http/answers.txt", async () => {
  const served = await build(GOLDEN_OPTIONS.builtAt);
  assertGolden("http/answers.txt", transcript(answerer(served), answerRequests(served)));
});

test("the README's version table is the table's rows", () => {
  const readme = readFileSync("docs/document.md", "utf8");
  const block = /<!-- version-table -->\n([\s\S]*?)<!-- \/version-table -->/.exec(readme)?.[1];
  const rows = VERSIONS.map((v) =>
    `| v${v.number} | \`${v.path}\` | \`${v.schemaPath}\` | \`${v.openapiPath}\` | ${v.published} | ${
      v.sunset ?? "none"
    } |`
  );
  assert.is(
    block,
    [
      "| version | versioned path | schema | OpenAPI description | published | sunset |",
      "| --- | --- | --- | --- | --- | --- |",
      ...rows,
      "",
    ].join("\n"),
  );
});

test("a previous build given without its document or a classifier is refused when the data changed, and needs neither for a rebuild that keeps its built_at", async () => {
  const first = await build("2026-12-01T00:00:00Z");
  const { previous, documents } = historyOf(first, VERSIONS);
  const document = documents.get(1);
  const changed = { ...source, vaults: source.vaults.slice(1) };
  const classify = () => "compatible" as never;
  for (const history of [{ previous }, { previous, classify }, { previous, documents: new Map([[1, document]]) }]) {
    try {
      await prepareBuild(
        changed as Source,
        { baseUrl: GOLDEN_OPTIONS.baseUrl, builtAt: "2026-12-02T00:00:00Z" },
        {},
        VERSIONS,
        undefined,
        history as never,
      );
      assert.unreachable("refused");
    } catch (error) {
      assert.is(
        (error as Error).message,
        "v1: a previous build is given, but no way to classify the change",
        Object.keys(history).join(", "),
      );
    }
  }
  const unchanged = await prepareBuild(
    source,
    { baseUrl: GOLDEN_OPTIONS.baseUrl, builtAt: "2026-12-02T00:00:00Z" },
    {},
    VERSIONS,
    undefined,
    { previous, clock: true } as never,
  );
  assert.is(unchanged.meta.builtAt, "2026-12-01T00:00:00Z", "the clock's built_at gives way to the previous one");
  assert.equal(
    unchanged.routes.get(changesPaths(V1).json)?.identity.body,
    first.routes.get(changesPaths(V1).json)?.identity.body,
  );
  const told: unknown[] = [];
  const given = {
    previous,
    documents: new Map([[1, document]]),
    classify: (before: unknown) => (told.push(before), "compatible" as never),
  };
  const classified = await prepareBuild(
    changed as Source,
    { baseUrl: GOLDEN_OPTIONS.baseUrl, builtAt: "2026-12-02T00:00:00Z" },
    {},
    VERSIONS,
    undefined,
    given as never,
  );
  const feed = JSON.parse(new TextDecoder().decode(classified.routes.get(changesPaths(V1).json)?.identity.body)) as {
    items: { _registry: { class: string } }[];
  };
  assert.equal([told, feed.items[0]?._registry.class], [[document], "compatible"]);
});

// --- a rebuild whose built_at comes from the clock ------------------------------------------

/** What a build leaves for the next one, per version number: its document's snapshot and its feed; and every file it serves. */
function historyOf(built: Build, table: readonly ContractVersion[]) {
  const text = (path: string) => new TextDecoder().decode(built.routes.get(path)?.identity.body);
  const previous = new Map<number, { snapshot: unknown; feed: unknown }>();
  const documents = new Map<number, unknown>();
  for (const version of table) {
    if (!built.routes.has(version.path)) continue;
    const document = JSON.parse(text(version.path)) as { built_at: string; vaults: unknown[]; edges: unknown[] };
    const snapshot = {
      ref: { built_at: document.built_at, etag: built.routes.get(version.path)?.identity.etag },
      vaults: document.vaults,
      edges: document.edges,
      envelope: envelopeOf(document),
    };
    previous.set(version.number, { snapshot, feed: JSON.parse(text(changesPaths(version).json)) });
    documents.set(version.number, document);
  }
  const files = new Map([...built.routes].map(([path, resource]) => [path, { bytes: resource.identity.body }]));
  return { previous, documents, files, classify: () => "compatible" as never };
}

/** The built_at a rebuild of `next` at `builtAt` settles on, after `before` built from `source`. */
async function settledAt(
  before: Build,
  builtAt: string,
  options: { table?: readonly ContractVersion[]; next?: Source; clock?: boolean; edit?: (h: any) => void } = {},
): Promise<string> {
  return (await rebuiltAt(before, builtAt, options)).meta.builtAt;
}

/** The rebuild of `next` at `builtAt`, after `before` built from `source`. */
async function rebuiltAt(
  before: Build,
  builtAt: string,
  options: { table?: readonly ContractVersion[]; next?: Source; clock?: boolean; edit?: (h: any) => void } = {},
): Promise<Build> {
  const table = options.table ?? VERSIONS;
  const history = { ...historyOf(before, table), clock: options.clock ?? true };
  options.edit?.(history);
  const after = await prepareBuild(
    options.next ?? source,
    { baseUrl: GOLDEN_OPTIONS.baseUrl, builtAt },
    {},
    table,
    undefined,
    history as never,
  );
  return after;
}

test("a rebuild from the clock keeps the previous built_at only when it would publish nothing new", async () => {
  const first = await build("2026-12-01T00:00:00Z");
  assert.is(await settledAt(first, "2026-12-02T00:00:00Z"), "2026-12-01T00:00:00Z", "nothing changed: kept");
  assert.is(
    await settledAt(first, "2026-12-02T00:00:00Z", { clock: false }),
    "2026-12-02T00:00:00Z",
    "a built_at the operator set is never replaced",
  );
  assert.is(
    await settledAt(first, "2026-11-30T00:00:00Z"),
    "2026-11-30T00:00:00Z",
    "a previous built_at later than the clock is not taken",
  );
  const fewer = { ...source, vaults: source.vaults.slice(1) } as Source;
  assert.is(await settledAt(first, "2026-12-02T00:00:00Z", { next: fewer }), "2026-12-02T00:00:00Z", "a vault less");
  const envelope = { ...source, source_inventory_sha: "0".repeat(40) } as Source;
  assert.is(
    await settledAt(first, "2026-12-02T00:00:00Z", { next: envelope }),
    "2026-12-02T00:00:00Z",
    "the same vaults and edges, another envelope: other bytes",
  );
});

test("a rebuild from the clock keeps the previous built_at only when every file it serves has the previous build's bytes: each answer's Last-Modified moves with its bytes", async () => {
  const first = await build("2026-12-01T00:00:00Z");
  const lastModified = (built: Build) =>
    new Set([...built.routes.values()].map((resource) => resource.identity.ok["last-modified"]));
  const kept = await rebuiltAt(first, "2026-12-02T00:00:00Z");
  assert.is(kept.meta.builtAt, "2026-12-01T00:00:00Z", "every file the same: kept");
  assert.equal(lastModified(kept), new Set([new Date("2026-12-01T00:00:00Z").toUTCString()]));
  // The previous build served another schema, description or Atom feed (an older release's), or none.
  for (const path of [V1.schemaPath, V1.openapiPath, changesPaths(V1).atom]) {
    for (
      const edit of [(files: Map<string, unknown>) => files.set(path, { bytes: new Uint8Array([123, 125, 10]) }), (
        files: Map<string, unknown>,
      ) => files.delete(path)]
    ) {
      const rebuilt = await rebuiltAt(first, "2026-12-02T00:00:00Z", { edit: (h) => edit(h.files) });
      assert.is(rebuilt.meta.builtAt, "2026-12-02T00:00:00Z", `${path}: other bytes then, a new built_at`);
      assert.equal(lastModified(rebuilt), new Set([new Date("2026-12-02T00:00:00Z").toUTCString()]), path);
      const feed = JSON.parse(new TextDecoder().decode(rebuilt.routes.get(changesPaths(V1).json)?.identity.body)) as {
        items: { _registry: { to: { built_at: string } } }[];
      };
      assert.equal(feed.items.map((item) => item._registry.to.built_at), [
        "2026-12-02T00:00:00Z",
        "2026-12-01T00:00:00Z",
      ], "a new document is a new item");
    }
  }
});

test("a rebuild from the clock over several versions keeps the previous built_at only when every served version was built then, under the same plan", async () => {
  const both = await build("2027-03-02T00:00:00Z", TEST_TABLE);
  const table = TEST_TABLE;
  assert.is(await settledAt(both, "2027-03-05T00:00:00Z", { table }), "2027-03-02T00:00:00Z", "kept");
  const v2Later = await build("2027-03-03T00:00:00Z", TEST_TABLE);
  assert.is(
    await settledAt(both, "2027-03-05T00:00:00Z", {
      table,
      edit: (h) => h.previous.set(2, historyOf(v2Later, table).previous.get(2)),
    }),
    "2027-03-05T00:00:00Z",
    "v2 last built at another built_at",
  );
  assert.is(
    await settledAt(both, "2027-03-05T00:00:00Z", { table, edit: (h) => h.previous.delete(2) }),
    "2027-03-05T00:00:00Z",
    "v2 never built",
  );
  assert.is(
    await settledAt(both, "2027-03-05T00:00:00Z", { table, edit: (h) => h.previous.clear() }),
    "2027-03-05T00:00:00Z",
    "no previous build at all",
  );
  assert.is(
    await settledAt(both, "2027-03-05T00:00:00Z", {
      table,
      edit: (h) => (h.previous.get(2).snapshot.ref.etag = '"00"'),
    }),
    "2027-03-05T00:00:00Z",
    "v2's bytes then were other than a build at that instant makes",
  );
  const day89 = await build("2027-05-29T00:00:00Z", TEST_TABLE);
  assert.is(
    await settledAt(day89, "2027-05-30T00:00:00Z", { table }),
    "2027-05-30T00:00:00Z",
    "/vaults.json moves to v2 on day 90",
  );
  const daySunset = await build("2027-05-31T00:00:00Z", TEST_TABLE);
  assert.is(
    await settledAt(daySunset, "2027-06-01T00:00:00Z", { table }),
    "2027-06-01T00:00:00Z",
    "v1 is gone on its sunset",
  );
});

test("a previous build with this build's built_at but other bytes is refused: the same instant cannot name two documents", async () => {
  const first = await build("2026-12-01T00:00:00Z");
  const fewer = { ...source, vaults: source.vaults.slice(1) } as Source;
  try {
    await settledAt(first, "2026-12-01T00:00:00Z", { next: fewer, clock: false });
    assert.unreachable("refused");
  } catch (error) {
    assert.is(
      (error as Error).message,
      "v1: the previous build has this built_at (2026-12-01T00:00:00Z) but other bytes: build at a later time",
    );
  }
});

test("the description names a schema relative to its own folder", () => {
  const cases: [string, string, string][] = [
    ["/api/openapi.v1.json", "/api/registry.v1.schema.json", "registry.v1.schema.json"],
    ["/a/b/c.json", "/a/x/y.json", "../x/y.json"],
    ["/a/b/c.json", "/d.json", "../../d.json"],
    ["/c.json", "/a/b.json", "a/b.json"],
    ["/a/c.json", "/a", "../a"],
    ["/a/b/c.json", "/a/b", "../b"],
    ["/a/x.json", "/a/", "."],
  ];
  for (const [from, to, ref] of cases) {
    const description = JSON.stringify(
      openApiDescription({ ...V1, openapiPath: from, schemaPath: to }, "https://x", true),
    );
    // Every reference out of the description names the schema (its document, its feed's rows and edges), by `ref`.
    const outside = new Set([...description.matchAll(/"\$ref":"([^"#]*)/g)].map((m) => m[1]).filter((r) => r !== ""));
    assert.equal([...outside], [ref], `${from} -> ${to}`);
  }
});

test.run();
