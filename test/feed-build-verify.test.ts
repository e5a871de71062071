/**
 * `verify`'s feed checks (docs/document.md, "Change feeds") against real builds of a chain served by their own
 * `DIR/node/server.mjs`: every row passes, and a `--previous-document` of an earlier build of the
 * chain catches up; behind a proxy that tampers with the served JSON feed (a carried row that is
 * not the current one, a broken chain), the row about it fails. Builds and verify run in process;
 * the server is a child process, stopped by its handle.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runVerify } from "../node/verify/command.ts";
import { cleanEnv, runCommand } from "./process.ts";
import { type Running, startServer } from "./servers.ts";
import { buildFirst } from "./first-build.ts";

const work = mkdtempSync(join(tmpdir(), "registry-feed-build-verify-"));
const BASE = "https://registry.example.org";
const FEED_PATH = "/api/registry.v1.changes.json";
const day = (n: number) => String(1795262400 + n * 86_400);

type Source = { vaults: Record<string, unknown>[] } & Record<string, unknown>;
const source = JSON.parse(readFileSync("fixtures/registry.json", "utf8")) as Source;
const builds: string[] = [];
/** Three builds of one deployment: the first, a changed note, a vault withheld. */
for (
  const [i, edit] of [() => {}, () => void (source.vaults[0]!["note"] = "A changed note."), () => {
    const open = source.vaults.find((v) => v["suppressed"] !== true && v !== source.vaults[0]);
    (open as Record<string, unknown>)["suppressed"] = true;
  }].entries()
) {
  edit();
  const path = join(work, `source-${i}.json`);
  writeFileSync(path, JSON.stringify(source));
  const out = join(work, `build-${i}`);
  const previous = builds.at(-1);
  const made = await buildFirst(
    ["--source", path, "--base-url", BASE, "--out", out, ...(previous === undefined ? [] : ["--previous", previous])],
    { env: cleanEnv({ SOURCE_DATE_EPOCH: day(i) }) },
  );
  assert.is(made.code, 0, made.stderr);
  builds.push(out);
}
const latest = builds.at(-1) as string;

let running: Running | undefined;
/** How the proxy changes the JSON feed's text (identity: not at all). */
let tamper: (feed: Record<string, unknown>) => unknown = (feed) => feed;
let proxy: Server | undefined;
let proxyOrigin = "";

test.before(async () => {
  running = await startServer(
    process.execPath,
    [join(latest, "node/server.mjs")],
    cleanEnv({ HOST: "127.0.0.1", PORT: "0" }),
    60_000,
  );
  const upstream = new URL(running.origin);
  // Passes every request through; the JSON feed's body is parsed, tampered with and sent as identity.
  proxy = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const isFeed = path === FEED_PATH && req.method === "GET";
    const headers = { ...req.headers, ...(isFeed ? { "accept-encoding": "identity" } : {}) };
    const up = request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers, agent: false },
      (answer) => {
        if (!isFeed || answer.statusCode !== 200) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on("data", (c: Buffer) => chunks.push(c));
        answer.on("end", () => {
          const feed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
          const body = Buffer.from(`${JSON.stringify(tamper(feed), null, 2)}\n`);
          const { "content-length": _l, ...rest } = answer.headers;
          res.writeHead(200, { ...rest, "content-length": String(body.length) }).end(body);
        });
      },
    );
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((done) => proxy?.listen(0, "127.0.0.1", done));
  proxyOrigin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

test.after(async () => {
  if (proxy !== undefined) {
    proxy.closeAllConnections();
    await new Promise((done) => proxy?.close(done));
  }
  await running?.stop();
  rmSync(work, { recursive: true, force: true });
});

const verify = async (origin: string, extra: string[] = []) => {
  const result = await runCommand(runVerify, [origin, "--expect-base", BASE, ...extra], { env: cleanEnv() });
  return { code: result.code, out: result.stdout.toString(), err: result.stderr };
};
/** The result of the table row whose check starts with `name`. */
const rowOf = (out: string, name: string): string => {
  const line = out.split("\n").find((l) => l.startsWith(`| ${name}`));
  assert.ok(line, `no row "${name}" in:\n${out}`);
  return (line as string).split(" | ").at(-2) as string;
};
const CHAIN = "the items form a chain, newest first";
const ROWS = "every row an item carries is the document's row";
const NEWEST = "the newest item's to is the document";
const ENVELOPE = "the newest item carries the document's envelope";
const REPLAY = "the items since the last resync, replayed onto the document, change nothing";

test("a real build of a chain, served by its server.mjs: every feed row passes; each earlier build's document catches up", async () => {
  const served = await verify((running as Running).origin);
  assert.is(served.code, 0, served.out + served.err);
  for (const name of [CHAIN, ROWS, NEWEST, ENVELOPE, REPLAY]) assert.is(rowOf(served.out, name), "pass", name);
  assert.match(served.out, /^\d+ passed, 0 warned, 0 failed$/m);
  for (const [i, earlier] of builds.slice(0, -1).entries()) {
    const file = join(earlier, "static/api/registry.v1.json");
    const caught = await verify((running as Running).origin, ["--previous-document", file]);
    assert.is(caught.code, 0, caught.out);
    const built = `2026-11-${21 + i}T12:00:00Z`;
    assert.match(
      caught.out,
      new RegExp(
        `^\\| catching \\S*registry\\.v1\\.json \\(built ${built}\\) up by the feed gives the document's vaults and edges \\| pass \\| \\d+ vaults, \\d+ edges \\|$`,
        "m",
      ),
      caught.out,
    );
  }
});

interface Item {
  _registry: { from: { etag: string } | null; vaults: { upsert: Record<string, unknown>[] } };
}

test("behind a proxy that tampers with the feed: a carried row that is not the current one fails its row; a broken chain fails the chain row", async () => {
  tamper = (feed) => feed;
  const clean = await verify(proxyOrigin);
  assert.is(clean.code, 0, clean.out);

  tamper = (feed) => {
    const items = feed["items"] as Item[];
    const row = items.flatMap((item) => item._registry.vaults.upsert).find((r) => typeof r["note"] === "string");
    if (row === undefined) throw new Error("no carried row with a note to tamper with");
    row["note"] = "A note the current document never had.";
    return feed;
  };
  const row = await verify(proxyOrigin);
  assert.is(row.code, 1, row.out);
  assert.is(rowOf(row.out, ROWS), "FAIL", row.out);
  assert.is(rowOf(row.out, CHAIN), "pass");

  tamper = (feed) => {
    const items = feed["items"] as Item[];
    (items[0] as Item)._registry.from = {
      etag: '"00000000000000000000000000000000"',
      built_at: "2026-11-22T12:00:00Z",
    } as {
      etag: string;
    };
    return feed;
  };
  const chain = await verify(proxyOrigin, [
    "--previous-document",
    join(builds[1] as string, "static/api/registry.v1.json"),
  ]);
  assert.is(chain.code, 1, chain.out);
  assert.is(rowOf(chain.out, CHAIN), "FAIL", chain.out);
  assert.match(chain.out, /items\[0\]\._registry\.from: expected the next item's to/);
  // The previous document's item is gone from the way: a consumer refetches, and verify says so.
  assert.match(
    chain.out,
    /^\| catching \S+ \(built 2026-11-22T12:00:00Z\) up by the feed gives the document's vaults and edges \| warn \| /m,
  );
});

test.run();
