/**
 * `npm run build -- --previous`: the previous build's history carried on from its folder or its
 * base URL (which must be this build's own), and every previous build that is not one refused in
 * one line, nothing written. More of the chain's rules through the command: test/feed-build-*.test.ts.
 */
import { createServer, type Server } from "node:http";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { filesUnder } from "./files.ts";
import { cleanEnv, runCommand } from "./process.ts";
import { freePort } from "./servers.ts";
import { buildFirst } from "./first-build.ts";

const work = mkdtempSync(join(tmpdir(), "registry-previous-"));
const BASE = "https://registry.example.org";
const FEED = "static/api/registry.v1.changes.json";
/** SOURCE_DATE_EPOCH of the first build, then one day later per step. */
const day = (n: number) => String(1795262400 + n * 86_400);
const build = (out: string, epochDay: number, extra: string[] = [], source = "fixtures/registry.json", base = BASE) =>
  buildFirst(["--source", source, "--base-url", base, "--out", out, ...extra], {
    env: cleanEnv({ SOURCE_DATE_EPOCH: day(epochDay) }),
  });
interface Lists {
  vaults: { upsert: { note?: string }[]; remove: string[] };
  edges: { add: unknown[]; remove: unknown[]; remove_touching: string[] };
}
const feedOf = (out: string, basePath = "") =>
  JSON.parse(readFileSync(join(out, FEED.replace("static/", `static${basePath}/`)), "utf8")) as {
    items: { id: string; title: string; _registry: { from: unknown; to: unknown; envelope?: unknown } & Lists }[];
  };
const EMPTY = {
  vaults: { upsert: [], remove: [] },
  edges: { add: [], remove: [], remove_touching: [] },
};
const listsOf = ({ vaults, edges }: Lists) => ({ vaults, edges });

let first = "";
test.before(async () => {
  first = join(work, "first");
  const result = await build(first, 0);
  assert.is(result.code, 0, result.stderr);
});
test.after(() => rmSync(work, { recursive: true, force: true }));

test("without --previous: one item, a snapshot (from null) whose lists are empty", () => {
  const feed = feedOf(first);
  assert.is(feed.items.length, 1);
  assert.is(feed.items[0]!._registry.from, null);
  const document = JSON.parse(readFileSync(join(first, "static/api/registry.v1.json"), "utf8")) as {
    vaults: unknown[];
    edges: unknown[];
  };
  assert.ok(document.vaults.length > 0 && document.edges.length > 0);
  assert.equal(feed.items[0]!._registry.vaults, { upsert: [], remove: [] });
  assert.equal(feed.items[0]!._registry.edges, { add: [], remove: [], remove_touching: [] });
});

test("a deployment built before snapshots listed nothing: its snapshot, listing every row and edge, is carried with its lists emptied; one that lists another row or says another class is refused", async () => {
  const old = join(work, "old-snapshot");
  cpSync(first, old, { recursive: true });
  const document = JSON.parse(readFileSync(join(old, "static/api/registry.v1.json"), "utf8")) as {
    vaults: Record<string, unknown>[];
    edges: unknown[];
  };
  const feed = feedOf(old);
  const snapshotOf = (edit: (lists: Lists) => void, cls = "data") => {
    const written = structuredClone(feed);
    const change = written.items[0]!._registry as unknown as Lists & { class: string };
    change.vaults.upsert = [...document.vaults];
    change.edges.add = [...document.edges];
    change.class = cls;
    edit(change);
    writeFileSync(join(old, FEED), `${JSON.stringify(written, null, 2)}\n`);
  };
  snapshotOf(() => {});
  const next = join(work, "old-snapshot-next");
  const made = await build(next, 1, ["--previous", old]);
  assert.is(made.code, 0, made.stderr);
  const carried = feedOf(next).items.at(-1)!._registry;
  assert.is(carried.from, null);
  assert.equal(listsOf(carried), EMPTY, "carried, its lists emptied");
  snapshotOf((lists) => lists.vaults.upsert[0] = { ...document.vaults[0], note: "PLANTED note" });
  const planted = await refused(old, /items(\[0\]\._registry: not what a build writes|: replayed onto the document)/);
  assert.not.ok(planted.includes("PLANTED"));
  snapshotOf(() => {}, "breaking");
  await refused(old, /items\[0\]\._registry: not what a build writes beside its document/);
});

test("--previous FOLDER: a changed source adds one item naming the vault; an equal rebuild at a later SOURCE_DATE_EPOCH adds one with empty lists; the same folder may be --out and --previous", async () => {
  const source = JSON.parse(readFileSync("fixtures/registry.json", "utf8")) as {
    vaults: { display_name: string; note?: string | null }[];
  };
  source.vaults[0]!.note = "A changed note.";
  writeFileSync(join(work, "changed.json"), JSON.stringify(source));
  const out = join(work, "rolling");
  cpSync(first, out, { recursive: true });
  const changed = await build(out, 1, ["--previous", out], join(work, "changed.json"));
  assert.is(changed.code, 0, changed.stderr);
  const [newest, older] = feedOf(out).items;
  assert.is(feedOf(out).items.length, 2);
  assert.is(newest!.title, `Data change: updated ${source.vaults[0]!.display_name}.`);
  assert.equal(newest!._registry.from, older!._registry.to, "a chain: its from is the older item's to");
  const again = await build(out, 2, ["--previous", out], join(work, "changed.json"));
  assert.is(again.code, 0, again.stderr);
  const feed = feedOf(out);
  assert.is(feed.items.length, 3, "a new document (a new built_at) is a new item");
  assert.equal(listsOf(feed.items[0]!._registry), EMPTY);
  assert.is(feed.items[0]!.title, "Data change: no vault or edge changed.");
  assert.equal(feed.items.slice(1).map((i) => i.id), [newest!.id, older!.id]);
});

/** Runs a build with --previous `location` that must be refused: one line naming the reason, exit 1, nothing written. */
async function refused(location: string, reason: RegExp, epochDay = 5, base = BASE): Promise<string> {
  const out = join(work, `never-${Math.random().toString(36).slice(2)}`);
  const result = await build(out, epochDay, ["--previous", location], "fixtures/registry.json", base);
  assert.is(result.code, 1, result.stderr);
  assert.is(result.stderr.trim().split("\n").length, 1, result.stderr);
  assert.match(result.stderr, reason, result.stderr);
  assert.not.ok(existsSync(out), "nothing written");
  return result.stderr;
}

test("refused: a folder that is not a build's output, another base URL, a later built_at, the same built_at with other bytes; the same built_at and bytes is the same build", async () => {
  await refused(join(work), /^--previous: .* holds no versioned document of this build's versions/);
  await refused(
    first,
    /a document of another base URL or version, not https:\/\/other\.example\/api\/registry\.v1\.json$/m,
    5,
    "https://other.example",
  );
  const later = join(work, "later");
  assert.is((await build(later, 3)).code, 0);
  await refused(later, /built at 2026-11-24T12:00:00Z, later than this build \(2026-11-23T12:00:00Z\)$/m, 2);
  const source = JSON.parse(readFileSync("fixtures/registry.json", "utf8")) as { vaults: { note?: string | null }[] };
  source.vaults[0]!.note = "Other bytes at the same built_at.";
  writeFileSync(join(work, "same-time.json"), JSON.stringify(source));
  const out = join(work, "same-time");
  const other = await build(out, 0, ["--previous", first], join(work, "same-time.json"));
  assert.is(other.code, 1, other.stderr);
  assert.match(
    other.stderr,
    /^build failed: v1: the previous build has this built_at \(2026-11-21T12:00:00Z\) but other bytes: build at a later time\n$/,
  );
  assert.not.ok(existsSync(out), "nothing written");
  const again = await build(out, 0, ["--previous", first]);
  assert.is(again.code, 0, again.stderr);
  for (const file of filesUnder(first)) {
    assert.ok(readFileSync(join(out, file)).equals(readFileSync(join(first, file))), `${file}: the same build again`);
  }
});

test("refused: a feed missing, not JSON, not a change feed, over its size limit, or tampered so that its items do not replay to its document; a planted title is not carried on", async () => {
  const variant = (name: string, edit: (feedPath: string) => void) => {
    const dir = join(work, name);
    cpSync(first, dir, { recursive: true });
    edit(join(dir, FEED));
    return dir;
  };
  await refused(
    variant("no-feed", (f) => rmSync(f)),
    /changes\.json: missing: the previous build has a document but no change feed$/m,
  );
  await refused(variant("not-json", (f) => writeFileSync(f, "{")), /changes\.json: not JSON$/m);
  await refused(
    variant("not-feed", (f) => writeFileSync(f, JSON.stringify({ version: "x" }))),
    /changes\.json: not a change feed: /,
  );
  await refused(
    variant("huge", (f) => writeFileSync(f, " ".repeat(4 * 1024 * 1024 + 1))),
    /: the file is \d+ bytes; the limit is 4 MiB$/m,
  );
  // Planted into the snapshot, which lists nothing: a document row with a note it never had.
  const documentRows = () =>
    (JSON.parse(readFileSync(join(first, "static/api/registry.v1.json"), "utf8")) as {
      vaults: Record<string, unknown>[];
    }).vaults;
  const tampered = variant("tampered", (f) => {
    const feed = JSON.parse(readFileSync(f, "utf8")) as {
      items: { _registry: { vaults: { upsert: Record<string, unknown>[] } } }[];
    };
    const row = documentRows().find((r) => "note" in r)!;
    feed.items[0]!._registry.vaults.upsert.push({ ...row, note: "A note the document never had." });
    writeFileSync(f, JSON.stringify(feed, null, 2));
  });
  assert.ok(statSync(join(tampered, FEED)).size > 0);
  await refused(
    tampered,
    /not the history of its document: items: replayed onto the document they lead to, they change it: the feed is not this document's history; refused, as a corrupt or planted item would be$/m,
  );
  const extraKey = variant("extra-key", (f) => {
    const feed = JSON.parse(readFileSync(f, "utf8")) as {
      items: { _registry: { vaults: { upsert: Record<string, unknown>[] } } }[];
    };
    feed.items[0]!._registry.vaults.upsert.push({ ...documentRows()[0], internal_owner: "someone" });
    writeFileSync(f, JSON.stringify(feed, null, 2));
  });
  // A row that is not the document's row (here: a key more) changes the document when replayed onto it.
  const said = await refused(
    extraKey,
    /changes\.json: not the history of its document: items: replayed onto the document/,
  );
  assert.not.ok(said.includes("someone") || said.includes("internal_owner"), said);
  // Every title is made anew from what its item carries: one planted there is not carried on.
  const planted = variant("planted-title", (f) => {
    const feed = JSON.parse(readFileSync(f, "utf8")) as { items: { title: string; content_text: string }[] };
    feed.items[0]!.title = "breaking: <b>PLANTED</b>\nsecond line";
    feed.items[0]!.content_text = "PLANTED summary";
    writeFileSync(f, JSON.stringify(feed, null, 2));
  });
  const out = join(work, "after-planted");
  const carried = await build(out, 5, ["--previous", planted]);
  assert.is(carried.code, 0, carried.stderr);
  assert.not.ok(carried.stderr.includes("PLANTED"), carried.stderr);
  assert.not.ok(readFileSync(join(out, FEED), "utf8").includes("PLANTED"), "the planted title is not carried on");
  assert.not.ok(
    readFileSync(join(out, "static/api/registry.v1.changes.atom"), "utf8").includes("PLANTED"),
    "nor in the Atom feed",
  );
});

test("refused: a previous document with a byte order mark put before it, as from its URL: its bytes are not those its feed names", async () => {
  const marked = join(work, "bom");
  cpSync(first, marked, { recursive: true });
  const document = join(marked, "static", "api", "registry.v1.json");
  writeFileSync(document, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(document)]));
  await refused(
    marked,
    /registry\.v1\.changes\.json: not the history of its document: .*not this document \(its built_at and ETag\)/,
  );
});

test("refused: a previous document whose rows or edges are out of order or repeated, named as such (not blamed on its feed)", async () => {
  const DOCUMENT = "static/api/registry.v1.json";
  const edited = (name: string, edit: (d: { vaults: unknown[]; edges: unknown[] }) => void) => {
    const dir = join(work, name);
    cpSync(first, dir, { recursive: true });
    const document = JSON.parse(readFileSync(join(dir, DOCUMENT), "utf8"));
    edit(document);
    writeFileSync(join(dir, DOCUMENT), `${JSON.stringify(document, null, 2)}\n`);
    return dir;
  };
  const named =
    /registry\.v1\.json: (vaults|edges)\[1\]: out of order or repeated \(rows by vault_slug, edges by source, target, type, each once\); a build never writes that$/m;
  await refused(edited("rows-swapped", (d) => d.vaults.splice(0, 2, d.vaults[1], d.vaults[0])), named);
  await refused(edited("row-doubled", (d) => d.vaults.splice(1, 0, d.vaults[0])), named);
  await refused(edited("edge-doubled", (d) => d.edges.splice(1, 0, d.edges[0])), named);
});

test("--previous URL: read from the live base URL; a redirect, an error status, an HTML page, a body over the cap and an unreachable host are refused, naming the way on", async () => {
  const seen: string[] = [];
  let live = "";
  const server: Server = createServer((req, res) => {
    seen.push(req.url ?? "");
    const path = (req.url ?? "/").split("?")[0] as string;
    if (path.startsWith("/huge/")) {
      res.writeHead(200, { "content-length": String(1 << 30) }).flushHeaders();
      res.destroy();
      return;
    }
    if (path.startsWith("/moved/")) {
      res.writeHead(301, { location: "https://elsewhere.example/" }).end();
      return;
    }
    if (path.startsWith("/controls/")) {
      // A C1 CSI (U+009B, sent as the byte 0x9B): a fetch hands them over in the Location it reads.
      res.writeHead(301, { location: "https://elsewhere.example/\u009b2J\u009b31mred" }).end();
      return;
    }
    if (path.startsWith("/broken/")) {
      res.writeHead(500).end();
      return;
    }
    if (path.startsWith("/parked/")) {
      // A host that is not this deployment yet: a page for every path.
      res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>Coming soon</title>");
      return;
    }
    // The static export of a build for base URL <origin>/live names its folders after /live.
    const file = join(live, "static", path);
    if (!path.startsWith("/live/") || !existsSync(file)) res.writeHead(404).end();
    else res.writeHead(200).end(readFileSync(file));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  const origin = `http://127.0.0.1:${port}`;
  try {
    live = join(work, "live");
    const deployed = await build(live, 0, [], "fixtures/registry.json", `${origin}/live`);
    assert.is(deployed.code, 0, deployed.stderr);
    const out = join(work, "from-url");
    const ok = await build(out, 3, ["--previous", `${origin}/live`], "fixtures/registry.json", `${origin}/live`);
    assert.is(ok.code, 0, ok.stderr);
    assert.is(ok.stderr, "", "a history carried on says nothing");
    const [newest, older] = feedOf(out, "/live").items;
    assert.is(feedOf(out, "/live").items.length, 2, "a new built_at is a new item, with empty lists");
    assert.equal(listsOf(newest!._registry), EMPTY);
    assert.is(older!.id, feedOf(live, "/live").items[0]!.id);
    const refusedAt = (path: string, reason: RegExp) => refused(`${origin}${path}`, reason, 5, `${origin}${path}`);
    await refusedAt(
      "/moved",
      /answered 301, a redirect to elsewhere\.example\/: give the address it names$/m,
    );
    // A deployment that is down is not one with no past: the line says the way on.
    await refusedAt(
      "/broken",
      /answered 500: the live deployment could not be read; build again when it answers, or, if nothing was ever deployed at http:\/\/127\.0\.0\.1:\d+\/broken, give --new-history instead of --previous$/m,
    );
    await refusedAt(
      "/parked",
      /\/parked\/api\/registry\.v1\.json: not JSON: not a registry build \(a host answering an HTML page\?\); check the base URL, or, if nothing of this registry was ever deployed there, give --new-history instead of --previous$/m,
    );
    await refusedAt(
      "/huge",
      /^--previous: GET http:\/\/127\.0\.0\.1:\d+\/huge\/api\/registry\.v1\.json: the body is 1 GiB; --previous reads at most \d+ MiB$/m,
    );
    // A live base URL by the base URL's rules: credentials refused and never printed; no query or
    // fragment for the paths to land after.
    const fetched = seen.length;
    for (
      const [location, reason] of [
        [
          `http://user:hunter2@127.0.0.1:${port}/live`,
          /^--previous: a base URL must not hold a user name or password .*the value is not printed$/m,
        ],
        [
          `${origin}/live?token=hunter2`,
          /^--previous: expected an absolute http or https URL without query, fragment or credentials, got /m,
        ],
        [
          `${origin}/live#hunter2`,
          /^--previous: expected an absolute http or https URL without query, fragment or credentials, got /m,
        ],
      ] as const
    ) {
      const said = await refused(location, reason, 5, `${origin}/live`);
      if (location.includes("user:")) assert.not.ok(said.includes("hunter2"), said);
      assert.is(seen.length, fetched, `nothing fetched for ${location}: ${seen.slice(fetched).join(", ")}`);
    }
    const out2 = join(work, "from-url-slash");
    const slashed = await build(out2, 3, ["--previous", `${origin}/live/`], "fixtures/registry.json", `${origin}/live`);
    assert.is(slashed.code, 0, slashed.stderr);
    // What the redirect names reaches the terminal without its controls.
    const controls = await refusedAt(
      "/controls",
      /answered 301, a redirect to elsewhere\.example\/\S*: give the address it names$/m,
    );
    assert.not.match(controls, /[\u0080-\u009f\u001b]/);
  } finally {
    await new Promise((done) => server.close(done));
  }
  const closed = `http://127.0.0.1:${await freePort()}`;
  await refused(
    closed,
    /^--previous: GET http:\/\/127\.0\.0\.1:\d+\/api\/registry\.v1\.json: connection refused \(127\.0\.0\.1 port \d+\): the live deployment could not be read; build again when it answers, or, if nothing was ever deployed at http:\/\/127\.0\.0\.1:\d+, give --new-history instead of --previous$/m,
    5,
    closed,
  );
});

test("docs/deploying.md's history lines run as written: the first deploy, then later ones from the live URL and from the folder", async () => {
  const text = readFileSync("docs/deploying.md", "utf8");
  const lines = ["history-first", "history-later"].flatMap((name) =>
    (new RegExp(`<!-- ${name} -->\n\`\`\`sh\n([\\s\\S]*?)\`\`\``).exec(text)?.[1] ?? "").trim().split("\n")
  );
  const section = lines.join("\n");
  assert.is(lines.length, 3, section);
  // As written, but for the source's path, the live URL (served here from the first build's folder,
  // and so the base URL too) and the output folder.
  const argsOf = (line: string, out: string, live: string): string[] => {
    assert.match(
      line,
      /^npm run build -- --source registry\.source\.json --base-url https:\/\/registry\.example\.org( |$)/,
    );
    // --previous URL must be the build's own base URL: the live one stands for both.
    const args = line.replace(/^npm run build -- /, "").replaceAll("https://registry.example.org", live)
      .split(" ").map((a) => (a === "dist" ? out : a === "registry.source.json" ? join(work, "doc-source.json") : a));
    return args.includes("--out") ? args : [...args, "--out", out];
  };
  const source = JSON.parse(readFileSync("fixtures/registry.json", "utf8")) as { vaults: { note?: string | null }[] };
  writeFileSync(join(work, "doc-source.json"), JSON.stringify(source));
  const out = join(work, "doc-lines");
  const server: Server = createServer((req, res) => {
    const file = join(out, "static", (req.url ?? "/").split("?")[0] as string);
    if (!existsSync(file) || !statSync(file).isFile()) res.writeHead(404).end();
    else res.writeHead(200).end(readFileSync(file));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const live = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const runLine = (line: string, epochDay: number) =>
    buildFirst([...argsOf(line, out, live)], { env: cleanEnv({ SOURCE_DATE_EPOCH: day(epochDay) }) });
  try {
    const firstDeploy = await runLine(lines[0] as string, 10);
    assert.is(firstDeploy.code, 0, firstDeploy.stderr);
    const firstId = feedOf(out).items[0]!.id;
    // A changed note, from the live URL: one item more, the first build's carried on.
    source.vaults[0]!.note = "Changed before the second deploy.";
    writeFileSync(join(work, "doc-source.json"), JSON.stringify(source));
    const fromUrl = await runLine(lines[1] as string, 11);
    assert.is(fromUrl.code, 0, fromUrl.stderr);
    assert.equal(feedOf(out).items.map((i) => i.id).slice(1), [firstId]);
    // Another change, from the folder the build writes into: one more again.
    source.vaults[0]!.note = "Changed before the third deploy.";
    writeFileSync(join(work, "doc-source.json"), JSON.stringify(source));
    const fromFolder = await runLine(lines[2] as string, 12);
    assert.is(fromFolder.code, 0, fromFolder.stderr);
    assert.is(feedOf(out).items.length, 3);
    assert.is(feedOf(out).items[2]!.id, firstId);
  } finally {
    await new Promise((done) => server.close(done));
  }
});

test("a vault withheld in a later build: its former detail is in no file of that build and no line it prints", async () => {
  const source = JSON.parse(readFileSync("fixtures/registry.json", "utf8")) as {
    vaults: { vault_slug: string; note?: string | null; suppressed?: boolean }[];
  };
  const target = source.vaults.find((v) => v.suppressed !== true && typeof v.note === "string")!;
  target.note = "WITHHELD-LATER detail of a vault";
  writeFileSync(join(work, "before.json"), JSON.stringify(source));
  target.suppressed = true;
  writeFileSync(join(work, "after.json"), JSON.stringify(source));
  const [base, before, after] = ["canary-base", "canary-before", "canary-after"].map((name) => join(work, name)) as [
    string,
    string,
    string,
  ];
  assert.is((await build(base, 9)).code, 0);
  // The detail reaches the feed in a change (a snapshot lists nothing).
  const first = await build(before, 10, ["--previous", base], join(work, "before.json"));
  assert.is(first.code, 0, first.stderr);
  assert.ok(readFileSync(join(before, FEED), "utf8").includes("WITHHELD-LATER"), "published while the vault is public");
  const second = await build(after, 11, ["--previous", before], join(work, "after.json"));
  assert.is(second.code, 0, second.stderr);
  assert.not.ok((second.stdout.toString() + second.stderr).includes("WITHHELD-LATER"));
  for (const file of filesUnder(after)) {
    assert.not.ok(
      readFileSync(join(after, file)).toString("latin1").includes("WITHHELD-LATER"),
      `${file} holds the withheld detail`,
    );
  }
  assert.is(feedOf(after).items.length, 3);
});

test("a planted item: an edge touching a vault the document does not list is refused, as no build writes one; a removal the document cannot disprove (a slug it does not hold, an edge between listed vaults) is carried unsigned", async () => {
  const source = JSON.parse(readFileSync("fixtures/registry.json", "utf8")) as { vaults: { display_name: string }[] };
  source.vaults[0]!.display_name += " II";
  writeFileSync(join(work, "planted.json"), JSON.stringify(source));
  const two = join(work, "planted-two");
  const made = await build(two, 21, ["--previous", first], join(work, "planted.json"));
  assert.is(made.code, 0, made.stderr);
  const plant = (edit: (lists: Lists) => void) => {
    const copy = join(work, `planted-${crypto.randomUUID()}`);
    cpSync(two, copy, { recursive: true });
    const feed = feedOf(copy);
    edit(feed.items[0]!._registry);
    writeFileSync(join(copy, FEED), `${JSON.stringify(feed, null, 2)}\n`);
    return copy;
  };
  const touching = plant((lists) =>
    lists.edges.remove.push({ source: "harbour-ledger", target: "planted-slug", type: "reconciles" })
  );
  const refused = await build(join(work, "planted-next"), 22, ["--previous", touching]);
  assert.is(refused.code, 1, refused.stdout.toString());
  assert.match(
    refused.stderr,
    /^--previous: \S+registry\.v1\.changes\.json: items\[0\]\._registry: not what a build writes beside its document \([^\n]*\); refused, as a corrupt or planted item would be\n$/,
  );
  assert.not.ok(existsSync(join(work, "planted-next")), "nothing written");
  // Applied, these change nothing, and without the document before the item nothing tells them
  // from real removals: an unsigned previous build carries them; a signed one's manifest refuses
  // them (test/signing-build.test.ts).
  const undisproved = plant((lists) => {
    lists.vaults.remove.push("planted-slug");
    lists.edges.remove.push({ source: "harbour-ledger", target: "tide-tables", type: "reconciles" });
  });
  const carried = await build(join(work, "planted-carried"), 22, ["--previous", undisproved]);
  assert.is(carried.code, 0, carried.stderr);
  assert.ok(feedOf(join(work, "planted-carried")).items[1]!._registry.vaults.remove.includes("planted-slug"));
});

test.run();
