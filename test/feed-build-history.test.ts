/**
 * The change feed as a chain (docs/document.md, "Change feeds"), through `runBuild` in process: a history is never
 * restarted
 * silently (an --out holding this deployment's build needs --previous or --new-history), a rebuild
 * that changes nothing publishes nothing new, every new document is a new item (even with empty
 * lists), and every carried item is rewritten to the current rows, titles included.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { filesUnder } from "./files.ts";
import { runBuild } from "../node/builder/build.ts";
import { cleanEnv, runCommand } from "./process.ts";
import { buildFirst } from "./first-build.ts";

const work = mkdtempSync(join(tmpdir(), "registry-feed-build-history-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

const BASE = "https://registry.example.org";
const DOCUMENT = "static/api/registry.v1.json";
const FEED = "static/api/registry.v1.changes.json";
const ATOM = "static/api/registry.v1.changes.atom";
/** SOURCE_DATE_EPOCH of day `n` after 2026-11-21T12:00:00Z (before this machine's clock). */
const day = (n: number) => String(1795262400 + n * 86_400);

/** A build; `epochDay` null: built_at from the clock (no SOURCE_DATE_EPOCH). */
const build = (out: string, epochDay: number | null, extra: string[] = [], source = "fixtures/registry.json") =>
  buildFirst(["--source", source, "--base-url", BASE, "--out", out, ...extra], {
    env: cleanEnv(epochDay === null ? {} : { SOURCE_DATE_EPOCH: day(epochDay) }),
  });

interface Change {
  from: { built_at: string; etag: string } | null;
  to: { built_at: string; etag: string };
  vaults: { upsert: { vault_slug: string; display_name: string }[]; remove: string[] };
  edges: { add: unknown[]; remove: unknown[]; remove_touching: string[] };
  envelope?: Record<string, unknown>;
}
interface Feed {
  items: { id: string; title: string; content_text: string; _registry: Change }[];
}
const feedOf = (out: string) => JSON.parse(readFileSync(join(out, FEED), "utf8")) as Feed;
const documentOf = (out: string) => JSON.parse(readFileSync(join(out, DOCUMENT), "utf8")) as Record<string, unknown>;
const envelopeOf = (document: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(document).filter(([k]) => k !== "vaults" && k !== "edges"));
const listsOf = ({ vaults, edges }: Change) => ({ vaults, edges });
const EMPTY = { vaults: { upsert: [], remove: [] }, edges: { add: [], remove: [], remove_touching: [] } };
/** Every file of a folder, by its path: what "writes nothing" is checked against. */
const snapshot = (dir: string) => new Map(filesUnder(dir).map((f) => [f, readFileSync(join(dir, f))]));
const assertSame = (a: Map<string, Buffer>, b: Map<string, Buffer>, what: string) => {
  assert.equal([...b.keys()], [...a.keys()], what);
  for (const [name, bytes] of a) assert.ok(bytes.equals(b.get(name) as Buffer), `${what}: ${name}`);
};

type Source = { vaults: Record<string, unknown>[] } & Record<string, unknown>;
const fixture = (): Source => JSON.parse(readFileSync("fixtures/registry.json", "utf8")) as Source;
const writeSource = (name: string, source: Source) => {
  const path = join(work, name);
  writeFileSync(path, JSON.stringify(source));
  return path;
};

test("an --out holding this deployment's build: refused without --previous or --new-history, in one line naming both, nothing written; --new-history starts a one-item snapshot feed; both together: exit 2", async () => {
  const out = join(work, "held");
  assert.is((await build(out, 0)).code, 0);
  const before = snapshot(out);
  const siblings = readdirSync(work).sort();
  const held = await runCommand(runBuild, ["--source", "fixtures/registry.json", "--base-url", BASE, "--out", out], {
    env: cleanEnv({ SOURCE_DATE_EPOCH: day(1) }),
  });
  assert.is(held.code, 1, held.stderr);
  assert.match(
    held.stderr,
    /^--previous or --new-history: required: say where this deployment's history comes from: --previous URL .*--previous DIR \(the last build's --out folder\), or --new-history \(a first build, on purpose\)\n$/,
  );
  assert.is(held.stdout.toString(), "");
  assertSame(before, snapshot(out), "the refused build left --out as it was");
  assert.equal(readdirSync(work).sort(), siblings, "and nothing beside it");

  const both = await build(out, 1, ["--previous", out, "--new-history"]);
  assert.is(both.code, 2, both.stderr);
  assert.match(both.stderr, /^--new-history and --previous: give one/);
  assertSame(before, snapshot(out), "a bad flag writes nothing");

  const fresh = await build(out, 1, ["--new-history", "--unsigned"]);
  assert.is(fresh.code, 0, fresh.stderr);
  const feed = feedOf(out);
  const document = documentOf(out);
  assert.is(feed.items.length, 1, "a new history: one item");
  const [item] = feed.items;
  assert.is(item!._registry.from, null, "a snapshot");
  assert.ok((document["vaults"] as unknown[]).length > 0);
  assert.equal(item!._registry.vaults, { upsert: [], remove: [] }, "a snapshot's lists are empty: a copy refetches");
  assert.equal(item!._registry.edges, { add: [], remove: [], remove_touching: [] });
  assert.is(item!.title, "Snapshot: a new history begins.");
  assert.equal(item!._registry.envelope, envelopeOf(document));
  assert.is(item!._registry.to.built_at, "2026-11-22T12:00:00Z");
  assert.is(
    item!.id,
    `${BASE}/api/registry.v1.changes.json#2026-11-22T12:00:00Z/${item!._registry.to.etag.slice(1, -1)}`,
  );

  // An --out holding a build of another deployment is no history of this one.
  const other = join(work, "other-deployment");
  assert.is((await build(other, 0)).code, 0);
  const elsewhere = await buildFirst(
    ["--source", "fixtures/registry.json", "--base-url", "https://other.example", "--out", other],
    { env: cleanEnv({ SOURCE_DATE_EPOCH: day(1) }) },
  );
  assert.is(elsewhere.code, 0, elsewhere.stderr);
});

test("a rebuild that changes nothing, built_at from the clock: the previous built_at is kept, every document and feed byte-identical; a later SOURCE_DATE_EPOCH adds an item with empty lists carrying the new envelope", async () => {
  const out = join(work, "steady");
  assert.is((await build(out, 0)).code, 0);
  const first = snapshot(join(out, "static"));
  const kept = await build(out, null, ["--previous", out]);
  assert.is(kept.code, 0, kept.stderr);
  assert.match(kept.stdout.toString(), /built_at 2026-11-21T12:00:00Z,/);
  assertSame(first, snapshot(join(out, "static")), "a rebuild that changes nothing");

  const later = await build(out, 1, ["--previous", out]);
  assert.is(later.code, 0, later.stderr);
  const feed = feedOf(out);
  const document = documentOf(out);
  assert.is(feed.items.length, 2, "a new document is a new item");
  const [newest, older] = feed.items as [Feed["items"][0], Feed["items"][0]];
  assert.equal(listsOf(newest._registry), EMPTY, "an envelope change: its lists are empty");
  assert.is(newest.title, "Data change: no vault or edge changed.");
  assert.equal(newest._registry.from, older._registry.to, "a chain");
  assert.is(newest._registry.to.built_at, "2026-11-22T12:00:00Z");
  assert.equal(newest._registry.envelope, envelopeOf(document), "the newest carries the envelope");
  assert.is(older._registry.envelope, undefined, "an older item carries none");
});

test("a rebuild from the clock whose schema's bytes differ from what the previous build served (an older release's): a new built_at, so that every Last-Modified moves with its bytes", async () => {
  const out = join(work, "new-schema");
  assert.is((await build(out, 0)).code, 0);
  const schemaFile = join(out, "static/api/registry.v1.schema.json");
  writeFileSync(schemaFile, readFileSync(schemaFile, "utf8").replace("\n", '\n  "$comment": "an older release",\n'));
  const rebuilt = await build(out, null, ["--previous", out]);
  assert.is(rebuilt.code, 0, rebuilt.stderr);
  assert.not.match(rebuilt.stdout.toString(), /built_at 2026-11-21T12:00:00Z,/);
  const feed = feedOf(out);
  assert.is(feed.items.length, 2, "a new document is a new item");
  assert.is(feed.items[0]!._registry.to.built_at, documentOf(out)["built_at"]);
});

test("an envelope-only change (the source's generated_at and inventory SHA), built_at from the clock: a new built_at and an item with empty lists whose envelope is the new one", async () => {
  const out = join(work, "envelope");
  assert.is((await build(out, 0)).code, 0);
  const source = fixture();
  source["source_inventory_sha"] = "0".repeat(40);
  source["generated_at"] = "2026-11-15T08:30:00Z";
  const changed = await build(out, null, ["--previous", out], writeSource("envelope.json", source));
  assert.is(changed.code, 0, changed.stderr);
  const feed = feedOf(out);
  const document = documentOf(out);
  assert.is(feed.items.length, 2);
  const [newest] = feed.items;
  assert.equal(listsOf(newest!._registry), EMPTY);
  assert.ok(newest!._registry.to.built_at > "2026-11-21T12:00:00Z", "the clock's built_at, not the previous one");
  assert.is(newest!._registry.to.built_at, document["built_at"]);
  assert.is(newest!._registry.envelope?.["source_inventory_sha"], "0".repeat(40));
  assert.equal(newest!._registry.envelope, envelopeOf(document));
});

test("a vault withheld and renamed in a later build: neither feed holds its former name or note anywhere, and every title counts and names only what its item carries after the rewrite", async () => {
  const FORMER = "FORMER-NAME-Qx7";
  const NOTE = "FORMER-NOTE-Qx7 a detail of the vault";
  const source = fixture();
  const target = source.vaults.find((v) => v["vault_slug"] === "tide-tables") as Record<string, unknown>;
  const gone = source.vaults.find((v) => v["vault_slug"] === "harbour-ledger") as Record<string, unknown>;
  target["display_name"] = FORMER;
  const [a, b, c] = [join(work, "withheld-1"), join(work, "withheld-2"), join(work, "withheld-3")];
  assert.is((await build(a, 0, [], writeSource("w1.json", source))).code, 0);
  target["note"] = NOTE;
  gone["note"] = "A changed note of a vault removed later.";
  const second = await build(b, 1, ["--previous", a], writeSource("w2.json", source));
  assert.is(second.code, 0, second.stderr);
  const carried = feedOf(b).items[0]!;
  assert.is(carried.title, `Data change: updated Harbour Ledger, ${FORMER}.`, "while public, it is named");
  // Withheld and renamed; another vault of the same item removed (with its edges).
  target["suppressed"] = true;
  target["display_name"] = "Renamed Quietly";
  source.vaults = source.vaults.filter((v) => v !== gone);
  source["edges"] = (source["edges"] as Record<string, unknown>[]).filter((e) =>
    e["source"] !== "harbour-ledger" && e["target"] !== "harbour-ledger"
  );
  const third = await build(c, 2, ["--previous", b], writeSource("w3.json", source));
  assert.is(third.code, 0, third.stderr);
  for (const file of [FEED, ATOM]) {
    const text = readFileSync(join(c, file), "utf8");
    assert.not.ok(text.includes(FORMER), `${file} holds the former display name`);
    assert.not.ok(text.includes("FORMER-NOTE-Qx7"), `${file} holds the former note`);
  }
  const feed = feedOf(c);
  assert.is(feed.items.length, 3);
  const [newest, middle, snap] = feed.items as [Feed["items"][0], Feed["items"][0], Feed["items"][0]];
  // The middle item changed two vaults; after the rewrite it carries the withheld one's minimal row only.
  assert.equal(middle._registry.vaults.upsert.map((r) => r.vault_slug), ["tide-tables"]);
  assert.is(middle._registry.vaults.upsert[0]!.display_name, "Renamed Quietly");
  assert.is(middle.title, "Data change: updated Renamed Quietly.");
  assert.not.match(middle.content_text, /Harbour Ledger|FORMER/);
  assert.is(newest._registry.vaults.remove.length, 1);
  assert.match(newest.title, /1 vault removed/);
  // The snapshot lists nothing, so it names no vault, former or current.
  assert.is(snap.title, "Snapshot: a new history begins.");
  assert.equal(snap._registry.vaults.upsert, []);
  assert.equal(snap._registry.edges.add, []);
});

test("a planted resync item that still lists changes, or an edge with a key of its own, is never carried on", async () => {
  // The first build lacks an edge the second adds, so the second's item lists rows and an edge.
  const without = fixture();
  const [added, ...rest] = without["edges"] as Record<string, unknown>[];
  without["edges"] = rest;
  const first = join(work, "planted-1");
  assert.is((await build(first, 1, [], writeSource("planted-0.json", without))).code, 0);
  const second = join(work, "planted-2");
  const changed = fixture();
  changed.vaults = changed.vaults.map((v) => v["suppressed"] === true ? v : { ...v, note: "changed" });
  const made = await build(second, 2, ["--previous", first], writeSource("planted.json", changed));
  assert.is(made.code, 0, made.stderr);
  const feed = feedOf(second);
  assert.equal(feed.items[0]!._registry.edges.add, [added], "the second build's item adds the edge");
  // Plant into the newest item: resync with its lists kept.
  (feed.items[0]!._registry as unknown as { resync: boolean }).resync = true;
  writeFileSync(join(second, FEED), `${JSON.stringify(feed, null, 2)}\n`);
  const refused = await build(join(work, "planted-3"), 3, ["--previous", second]);
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /items\[0\]\._registry: says resync but lists changes/);
  // An edge key of its own on a carried edge: no build writes one, so the item is refused as
  // planted (it was carried on without the key before), and nothing of it is written or printed.
  (feed.items[0]!._registry as unknown as { resync: boolean }).resync = false;
  (feed.items[0]!._registry.edges.add[0] as Record<string, unknown>)["planted"] = "PLANTED-SECRET";
  writeFileSync(join(second, FEED), `${JSON.stringify(feed, null, 2)}\n`);
  const third = join(work, "planted-4");
  const planted = await build(third, 3, ["--previous", second]);
  assert.is(planted.code, 1, planted.stderr);
  assert.match(planted.stderr, /items\[0\]\._registry: not what a build writes beside its document/);
  assert.not.ok(planted.stderr.includes("PLANTED-SECRET"));
  assert.not.ok(existsSync(third), "nothing written");
});

test("an --out holding a later link of the history than --previous leads to is refused, and nothing is written", async () => {
  const [a, b] = [join(work, "link-a"), join(work, "link-b")];
  assert.is((await build(a, 1)).code, 0);
  const changed = fixture();
  changed.vaults = changed.vaults.map((v) => v["suppressed"] === true ? v : { ...v, note: "changed" });
  const made = await build(b, 2, ["--previous", a], writeSource("link.json", changed));
  assert.is(made.code, 0, made.stderr);
  const before = snapshot(b);
  const rolledBack = await build(b, 3, ["--previous", a]);
  assert.is(rolledBack.code, 1);
  assert.match(
    rolledBack.stderr,
    /^--out \S*link-b: holds a build of \S+ \(built at \S+\) that --previous does not lead to/,
  );
  assertSame(before, snapshot(b), "nothing written");
});

test.run();
