import { test } from "uvu";
import * as assert from "uvu/assert";
import { runCli } from "./process.ts";
import { GOLDEN_OPTIONS, historySteps, invalidCases, publicGoldens, validCases } from "./cases.ts";
import { assertGolden, lineDiff, listGoldens } from "./golden.ts";

const args = ["--base-url", GOLDEN_OPTIONS.baseUrl, "--built-at", GOLDEN_OPTIONS.builtAt];

for (const c of validCases) {
  test(`${c.fixture} builds to golden/${c.golden}`, async () => {
    const result = await runCli([c.fixture, ...args], {});
    assert.is(result.code, 0);
    assertGolden(c.golden, result.stdout);
    assertGolden(c.warnings as string, result.stderr);
  });
}

for (const c of invalidCases) {
  test(`${c.fixture} is refused with golden/${c.golden}`, async () => {
    const result = await runCli([c.fixture, ...args], {});
    assert.is(result.code, 1);
    assert.is(result.stdout.length, 0, "nothing on stdout");
    assert.ok(result.stderr.length > 0, "problems on stderr");
    assertGolden(c.golden, result.stderr);
  });
}

test("golden/ holds exactly the goldens of the cases (none missing, none unused)", () => {
  const history = historySteps.flatMap((step) => [step.goldens.json, step.goldens.atom]);
  const expected = [
    ...[...validCases, ...invalidCases].flatMap((c) => [c.golden, ...(c.warnings === undefined ? [] : [c.warnings])]),
    ...publicGoldens,
    ...history,
  ].sort();
  const unused = listGoldens().filter((g) => !expected.includes(g));
  assert.equal(unused, [], `unused goldens; delete them with git rm: ${unused.join(", ")}`);
  assert.equal(listGoldens(), expected);
});

test("the invalid corpus covers every defect the source format names", () => {
  const names = invalidCases.map((c) => c.fixture);
  for (
    const defect of [
      "not-json",
      "empty-file",
      "top-level-array",
      "missing-registry-schema-version",
      "missing-generated-at",
      "missing-source-inventory-sha",
      "missing-vaults",
      "missing-edges",
      "wrong-type-status",
      "bad-generated-at-date",
      "bad-last-synced",
      "bad-sha-uppercase",
      "bad-slug-uppercase",
      "duplicate-slug",
      "dangling-edge",
      "duplicate-edge",
      "empty-edge-type",
      "near-miss-suppressed",
      "near-miss-licence",
      "near-miss-every-level",
    ]
  ) {
    assert.ok(names.includes(`fixtures/invalid/${defect}.json`), `fixtures/invalid/${defect}.json`);
  }
});

test("lineDiff names the first differing line and shows both sides", () => {
  const diff = lineDiff("a\nb\nc\n", "a\nB\nc\n");
  assert.is(diff, "@@ line 2 @@\n- b\n+ B");
  assert.is(lineDiff("a\n", "a\r\n"), '@@ line 1 @@\n- a\n+ "a\\r"');
});

test.run();
