/**
 * The history sequence (`fixtures/history/`): each source built with the build before it as its
 * previous build, as `npm run build -- --previous` does; each build's JSON and Atom feeds are
 * golden (`golden/history/`), and both forms parse with a third-party parser (feedsmith).
 */
import { parseAtomFeed, parseJsonFeed } from "feedsmith";
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { type ChangeFeed, envelopeOf } from "../feed/feed.ts";
import { changeFeedSchema } from "../feed/schema.ts";
import { type Build, prepareBuild } from "../assembly/prepare.ts";
import { changesPaths } from "../contract/version-policy.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { classifyChange } from "../node/builder/classify.ts";
import { type Registry, validateSource } from "../registry.ts";
import { GOLDEN_OPTIONS, historySteps } from "./cases.ts";
import { assertGolden } from "./golden.ts";

const V1 = VERSIONS[0]!;
const FEEDS = changesPaths(V1);
const text = (build: Build, path: string) => new TextDecoder().decode(build.routes.get(path)!.identity.body);

/** Builds every step, each with the one before as its previous build (read back from its bytes). */
async function buildSequence(): Promise<Build[]> {
  const builds: Build[] = [];
  for (const step of historySteps) {
    const result = validateSource(JSON.parse(readFileSync(step.fixture, "utf8")));
    if (!result.ok) throw new Error(`${step.fixture}: ${result.problems.join("; ")}`);
    const before = builds.at(-1);
    let history = {};
    if (before !== undefined) {
      const document = JSON.parse(text(before, V1.path)) as Registry;
      const snapshot = {
        ref: { built_at: document.built_at, etag: before.routes.get(V1.path)!.identity.etag },
        vaults: document.vaults,
        edges: document.edges,
        envelope: envelopeOf(document),
      };
      const feed = JSON.parse(text(before, FEEDS.json)) as ChangeFeed;
      history = {
        previous: new Map([[1, { snapshot, feed }]]),
        documents: new Map([[1, document]]),
        classify: classifyChange,
        // Each step's time stands for the clock: the rebuild with no change keeps the previous built_at.
        clock: true,
      };
    }
    builds.push(
      await prepareBuild(
        result.source,
        { baseUrl: GOLDEN_OPTIONS.baseUrl, builtAt: step.builtAt },
        {},
        VERSIONS,
        undefined,
        history,
      ),
    );
  }
  return builds;
}

const builds = await buildSequence();

historySteps.forEach((step, i) => {
  test(`history ${step.name}: its feeds are golden/${step.goldens.json} and golden/${step.goldens.atom}, and parse as JSON Feed and Atom`, () => {
    const [json, atom] = [text(builds[i]!, FEEDS.json), text(builds[i]!, FEEDS.atom)];
    assertGolden(step.goldens.json, json);
    assertGolden(step.goldens.atom, atom);
    const parsedJson = parseJsonFeed(JSON.parse(json));
    const parsedAtom = parseAtomFeed(atom);
    const ids = (JSON.parse(json) as ChangeFeed).items.map((item) => item.id);
    assert.equal(parsedJson.items?.map((item) => item.id), ids);
    assert.equal(
      parsedAtom.entries?.map((entry) => entry.id),
      ids,
      "Atom entries carry the same ids, in the same order",
    );
    assert.equal(
      parsedAtom.entries?.map((entry) => entry.updated),
      (JSON.parse(json) as ChangeFeed).items.map((item) => item.date_published),
    );
  });
});

test("history: one item per new document, a chain; the rebuild with no change keeps its built_at and writes the same bytes; the newest item alone carries the envelope", () => {
  const feeds = builds.map((b) => JSON.parse(text(b, FEEDS.json)) as ChangeFeed);
  assert.equal(feeds.map((f) => f.items.length), [1, 2, 3, 4, 5, 6, 6, 7]);
  assert.is(text(builds[6]!, FEEDS.json), text(builds[5]!, FEEDS.json), "07 keeps 06's feed");
  assert.is(text(builds[6]!, V1.path), text(builds[5]!, V1.path), "07 keeps 06's document");
  const items = feeds.at(-1)!.items;
  items.forEach((item, i) => {
    const older = items[i + 1];
    assert.equal(item._registry.from, older === undefined ? null : older._registry.to, "a chain");
  });
  const titles = items.map((item) => item.title).reverse();
  assert.match(titles[0]!, /^Snapshot: /);
  assert.match(titles[4]!, /1 vault removed/);
  assert.match(titles[5]!, /1 edge removed/);
  const { vaults: _v, edges: _e, ...envelope } = JSON.parse(text(builds.at(-1)!, V1.path)) as Registry;
  assert.equal(items[0]!._registry.envelope, envelope);
  assert.ok(items.slice(1).every((item) => !("envelope" in item._registry)));
});

test("history: the withheld and the removed vault's detail leave every later feed, in both forms", () => {
  const withheld = "Permit applications for the east quay, with applicant correspondence.";
  const removed = "Storm warnings since 1990.";
  historySteps.forEach((step, i) => {
    const out = text(builds[i]!, FEEDS.json) + text(builds[i]!, FEEDS.atom) + text(builds[i]!, V1.path);
    if (step.name >= "04") assert.not.ok(out.includes(withheld), `${step.name}: the withheld note`);
    if (step.name >= "05") assert.not.ok(out.includes(removed), `${step.name}: the removed vault's note`);
    if (step.name < "04") assert.ok(out.includes(withheld), `${step.name}: published until withheld`);
  });
});

test("the change feed's schema is the one golden/registry.v1.openapi.json carries; exact, every object of it admits no other key", () => {
  const golden = JSON.parse(readFileSync("golden/registry.v1.openapi.json", "utf8")) as {
    components: { schemas: { ChangeFeed: unknown } };
  };
  const row = "registry.v1.schema.json#/$defs/row";
  const edge = "registry.v1.schema.json#/$defs/edge";
  const { $schema, $id, ...feed } = changeFeedSchema("https://example.org/changes.json", row, edge);
  assert.is($schema, "https://json-schema.org/draft/2020-12/schema");
  assert.is($id, "https://example.org/changes.json");
  assert.equal(feed, golden.components.schemas.ChangeFeed);
  // Exact: the same schema with additionalProperties false on every object that lists properties.
  const open: string[] = [];
  const walk = (node: unknown, path: string): void => {
    if (typeof node !== "object" || node === null) return;
    const record = node as Record<string, unknown>;
    if ("properties" in record && record["additionalProperties"] !== false) open.push(path);
    for (const [key, value] of Object.entries(record)) walk(value, `${path}/${key}`);
  };
  const exact = changeFeedSchema("", row, edge, true);
  walk(exact, "#");
  assert.equal(open, []);
  const strip = (
    node: unknown,
  ): unknown => (typeof node !== "object" || node === null
    ? node
    : Array.isArray(node)
    ? node.map(strip)
    : Object.fromEntries(
      Object.entries(node).filter(([k]) => k !== "additionalProperties").map(([k, v]) => [k, strip(v)]),
    ));
  const { $schema: _s, $id: _i, ...exactFeed } = exact;
  assert.equal(strip(exactFeed), feed);
});

test.run();
