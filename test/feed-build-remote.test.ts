/**
 * `build --previous URL` (docs/document.md, "Change feeds") through `runBuild` in process, against a local server that
 * records
 * what it is asked: the URL must be the build's own base URL, every read goes past caches, 404 for
 * both files starts a new history (said in one line), anything else that is not this deployment's
 * chain is refused in one line; and no URL a server sent is printed with its user name, password,
 * query or fragment, by build or by verify.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runVerify } from "../node/verify/command.ts";
import { cleanEnv, runCommand } from "./process.ts";
import { buildFirst } from "./first-build.ts";

const work = mkdtempSync(join(tmpdir(), "registry-feed-build-remote-"));
const DOCUMENT = "/live/api/registry.v1.json";
const FEED = "/live/api/registry.v1.changes.json";
const day = (n: number) => String(1795262400 + n * 86_400);

type Handler = (req: IncomingMessage, res: ServerResponse, path: string) => void;
/** What the server answers (set per case) and every request it saw. */
let handle: Handler = (_req, res) => void res.writeHead(404).end();
const seen: { url: string; cacheControl: string | undefined }[] = [];
const server: Server = createServer((req, res) => {
  seen.push({ url: req.url ?? "", cacheControl: req.headers["cache-control"] });
  handle(req, res, (req.url ?? "/").split("?")[0] as string);
});
await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
const ORIGIN = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const BASE = `${ORIGIN}/live`;
test.after(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
  rmSync(work, { recursive: true, force: true });
});

const build = (out: string, epochDay: number, extra: string[], source = "fixtures/registry.json", base = BASE) =>
  buildFirst(["--source", source, "--base-url", base, "--out", out, ...extra], {
    env: cleanEnv({ SOURCE_DATE_EPOCH: day(epochDay) }),
  });
const fileOf = (out: string, path: string) => readFileSync(join(out, "static", path));

// Two builds of the live deployment: the first, then one with a changed note carrying it on.
const [first, second] = [join(work, "first"), join(work, "second")];
{
  assert.is((await build(first, 0, [])).code, 0);
  const source = JSON.parse(readFileSync("fixtures/registry.json", "utf8")) as { vaults: { note?: unknown }[] };
  source.vaults[0]!.note = "Changed for the second build.";
  const path = join(work, "second.json");
  writeFileSync(path, JSON.stringify(source));
  const made = await build(second, 1, ["--previous", first], path);
  assert.is(made.code, 0, made.stderr);
}
/** Serves `document` and `feed` (a Buffer, or a status for none) at the live paths; 404 elsewhere. */
const serve = (document: Buffer | number, feed: Buffer | number): Handler => (_req, res, path) => {
  const body = path === DOCUMENT ? document : path === FEED ? feed : 404;
  if (typeof body === "number") res.writeHead(body).end();
  else res.writeHead(200, { "content-type": "application/json" }).end(body);
};

/** A build with --previous BASE that must be refused: one line, exit 1, nothing written; returns the line. */
async function refused(reason: RegExp, location = BASE, base = BASE): Promise<string> {
  const out = join(work, `never-${Math.random().toString(36).slice(2)}`);
  const result = await build(out, 5, ["--previous", location], "fixtures/registry.json", base);
  assert.is(result.code, 1, result.stderr);
  assert.is(result.stderr.trim().split("\n").length, 1, result.stderr);
  assert.match(result.stderr, reason, result.stderr);
  assert.not.ok(existsSync(out), "nothing written");
  return result.stderr;
}

test("--previous URL must be the build's base URL: another one is refused unread", async () => {
  handle = serve(fileOf(second, DOCUMENT), fileOf(second, FEED));
  const count = seen.length;
  await refused(
    /^--previous http:\/\/127\.0\.0\.1:\d+\/other: not this build's base URL \(http:\/\/127\.0\.0\.1:\d+\/live\); /,
    `${ORIGIN}/other`,
  );
  await refused(
    /: not this build's base URL \(https:\/\/registry\.example\.org\)/,
    BASE,
    "https://registry.example.org",
  );
  assert.is(seen.length, count, "nothing fetched");
});

test("--previous URL: every read says Cache-Control: no-cache and has a query string of its own; the history is carried on", async () => {
  handle = serve(fileOf(second, DOCUMENT), fileOf(second, FEED));
  const count = seen.length;
  const out = join(work, "carried");
  const result = await build(out, 2, ["--previous", BASE]);
  assert.is(result.code, 0, result.stderr);
  assert.is(result.stderr, "");
  const requests = seen.slice(count);
  // The files a rebuild that keeps built_at must serve unchanged; then the signing step asks for the
  // previous manifest too, and with none, the key set: past caches as well.
  assert.equal(requests.map((r) => r.url.split("?")[0]), [
    DOCUMENT,
    FEED,
    DOCUMENT.replace(/\.json$/, ".schema.json"),
    DOCUMENT.replace(/\.json$/, ".openapi.json"),
    FEED.replace(/\.json$/, ".atom"),
    DOCUMENT.replace(/\.json$/, ".manifest.json"),
    "/live/api/registry.keys.json",
  ]);
  assert.ok(requests.every((r) => r.cacheControl === "no-cache"), JSON.stringify(requests));
  const queries = requests.map((r) => r.url.split("?")[1] ?? "");
  assert.ok(queries.every((q) => q.length > 0), JSON.stringify(requests));
  // Unique across builds too: a second build asks with other query strings.
  const again = seen.length;
  assert.is((await build(join(work, "carried-again"), 2, ["--previous", BASE])).code, 0);
  const all = [...queries, ...seen.slice(again).map((r) => r.url.split("?")[1] ?? "")];
  assert.is(new Set(all).size, all.length, all.join(" "));
  const feed = JSON.parse(fileOf(out, FEED).toString()) as { items: { id: string }[] };
  const previous = JSON.parse(fileOf(second, FEED).toString()) as { items: { id: string }[] };
  assert.equal(feed.items.slice(1).map((i) => i.id), previous.items.map((i) => i.id));
});

test("--previous URL answering 404 for both the document and the feed: a new history starts, said in one line", async () => {
  handle = serve(404, 404);
  const out = join(work, "started");
  const result = await build(out, 2, ["--previous", BASE]);
  assert.is(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /^--previous http:\/\/127\.0\.0\.1:\d+\/live: nothing published there yet \(404 for every versioned document and change feed\): this build starts a new history\n$/,
  );
  const feed = JSON.parse(fileOf(out, FEED).toString()) as { items: { _registry: { from: unknown } }[] };
  assert.is(feed.items.length, 1);
  assert.is(feed.items[0]!._registry.from, null);
});

test("--previous URL: one of the two missing, a 5xx or a 403 (with the way on), a feed that is not a chain, or an older feed beside a newer document: refused in one line", async () => {
  handle = serve(404, fileOf(second, FEED));
  await refused(
    /^--previous: http:\/\/127\.0\.0\.1:\d+\/live\/api\/registry\.v1\.json: missing beside its change feed$/m,
  );
  handle = serve(fileOf(second, DOCUMENT), 404);
  await refused(/changes\.json: missing: the previous build has a document but no change feed$/m);
  for (const status of [500, 503, 403]) {
    handle = serve(fileOf(second, DOCUMENT), status);
    // A deployment that is down is not one with no past: the way on is named.
    const wayOn = "the live deployment could not be read; build again when it answers, or, if nothing was ever " +
      "deployed at http://127\\.0\\.0\\.1:\\d+/live, give --new-history instead of --previous$";
    await refused(new RegExp(`changes\\.json: answered ${status}: ${wayOn}`, "m"));
    handle = serve(status, fileOf(second, FEED));
    await refused(new RegExp(`registry\\.v1\\.json: answered ${status}: ${wayOn}`, "m"));
  }
  // A feed as builds before the chain rule wrote it: ids without the ETag, no envelope.
  const feed = JSON.parse(fileOf(second, FEED).toString()) as {
    feed_url: string;
    items: { id: string; date_published: string; _registry: { envelope?: unknown } }[];
  };
  const oldStyle = {
    ...feed,
    items: feed.items.map(({ _registry: { envelope: _e, ...change }, ...item }) => ({
      ...item,
      id: `${feed.feed_url}#${item.date_published}`,
      _registry: change,
    })),
  };
  handle = serve(fileOf(second, DOCUMENT), Buffer.from(JSON.stringify(oldStyle)));
  await refused(/changes\.json: not the history of its document: items\[0\]\.id: .*--new-history$/m);
  const reversed = { ...feed, items: [...feed.items].reverse() };
  handle = serve(fileOf(second, DOCUMENT), Buffer.from(JSON.stringify(reversed)));
  await refused(/changes\.json: not the history of its document: .*chain.*--new-history$/m);
  // A cache handed back the first build's feed beside the second build's document.
  handle = serve(fileOf(second, DOCUMENT), fileOf(first, FEED));
  await refused(/changes\.json: not the history of its document: items\[0\]\._registry\.to: not this document/m);
  // And the new history on purpose is the way on from any of them, without reading anything.
  const count = seen.length;
  const moved = await build(join(work, "moved-on"), 5, ["--new-history", "--unsigned"]);
  assert.is(moved.code, 0, moved.stderr);
  assert.is(seen.length, count);
});

const SECRET_LOCATION = "https://USERSECRET:PASSSECRET@elsewhere.example:8443/moved/here?token=QUERYSECRET#FRAGSECRET";

test("a redirect whose Location holds user:pass@, a query and a fragment: neither build --previous nor verify prints them, both name the host and path", async () => {
  handle = (_req, res) => void res.writeHead(302, { location: SECRET_LOCATION }).end();
  const said = await refused(
    /answered 302, a redirect to elsewhere\.example:8443\/moved\/here: give the address it names$/m,
  );
  assert.not.match(said, /SECRET|token=|#|@elsewhere/);
  const verified = await runCommand(runVerify, [BASE], { env: cleanEnv() });
  const out = verified.stdout.toString() + verified.stderr;
  assert.is(verified.code, 1, out);
  assert.match(out, /\/vaults\.json answers 200 \| FAIL \| 302, a redirect to elsewhere\.example:8443\/moved\/here: /);
  assert.not.match(out, /SECRET|token=|@elsewhere/);
  // A relative Location is resolved against the address asked: on its origin, named by its path.
  handle = (_req, res) => void res.writeHead(301, { location: "/other/place?token=QUERYSECRET#FRAGSECRET" }).end();
  const relative = await refused(/a redirect to \/other\/place: give the address it names$/m);
  assert.not.match(relative, /SECRET/);
});

test.run();
