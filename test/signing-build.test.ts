/**
 * Signed builds, through `runBuild` and `runKeygen` in process: keygen's file and output, a build
 * signed by two keys (a manifest per version, listing every served file, and the key set) in the
 * static export and the fetch artifact, the documents' bytes unchanged, no manifest without a key,
 * no silent downgrade, a malformed key refused unquoted, the seq rules, and no byte of key
 * material anywhere.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runBuild } from "../node/builder/build.ts";
import { runKeygen } from "../node/builder/keygen.ts";
import { signStaged } from "../node/builder/signing.ts";
import { prepareBuild } from "../assembly/prepare.ts";
import { validateSource } from "../contract/source.ts";
import { readSigningKeys } from "../assembly/jws.ts";
import { checkManifest, fileMatches } from "../client/client.ts";
import { filesUnder } from "./files.ts";
import { firstBuild } from "./first-build.ts";
import { cleanEnv, type Finished, runCommand } from "./process.ts";
import { startServer } from "./servers.ts";

/** RFC 7638's thumbprint of an Ed25519 public key, by Node's own hash and codec: what `kid` is checked against. */
const thumbprint = (x: string) =>
  createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest("base64url");

const work = mkdtempSync(join(tmpdir(), "registry-signing-build-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

const BASE = "https://registry.example.org";
const MANIFEST = "static/api/registry.v1.manifest.json";
const KEYS = "static/api/registry.keys.json";
/** SOURCE_DATE_EPOCH of day `n` after 2026-11-21T12:00:00Z (before this machine's clock). */
const day = (n: number) => String(1795262400 + n * 86_400);
const outputs: Finished[] = [];
const run = async (...args: Parameters<typeof runCommand>) => {
  const result = await runCommand(...args);
  outputs.push(result);
  return result;
};
const build = (out: string, env: Record<string, string>, extra: string[] = []) =>
  run(runBuild, firstBuild(["--source", "fixtures/registry.json", "--base-url", BASE, "--out", out, ...extra], env), {
    env: cleanEnv(env),
  });

const keyFile = (name: string) => join(work, name);
let pemA = "";
let pemB = "";
let pemC = "";

test("keygen writes a PKCS#8 PEM with mode 0600, never over a file, and prints the public JWK Set", async () => {
  const made = await run(runKeygen, [keyFile("a.pem")], { cwd: work });
  assert.is(made.code, 0, made.stderr);
  pemA = readFileSync(keyFile("a.pem"), "utf8");
  assert.match(pemA, /^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END PRIVATE KEY-----\n$/);
  assert.is(statSync(keyFile("a.pem")).mode & 0o777, 0o600);
  const set = JSON.parse(made.stdout.toString("utf8")) as { keys: Record<string, string>[] };
  assert.is(set.keys.length, 1);
  const [jwk] = set.keys as [Record<string, string>];
  assert.equal(Object.keys(jwk).sort(), ["alg", "crv", "kid", "kty", "use", "x"]);
  assert.is(jwk["kid"], thumbprint(jwk["x"] as string));
  const again = await run(runKeygen, [keyFile("a.pem")], { cwd: work });
  assert.is(again.code, 1);
  assert.match(again.stderr, /exists: a key is never overwritten/);
  assert.is(readFileSync(keyFile("a.pem"), "utf8"), pemA, "the existing key is untouched");
  assert.is((await run(runKeygen, ["--bad"], { cwd: work })).code, 2);
  assert.is((await run(runKeygen, [], { cwd: work })).code, 2);
  const help = await run(runKeygen, ["--help"], { cwd: work });
  assert.is(help.code, 0);
  assert.match(help.stdout.toString("utf8"), /mode 0600/);
  assert.is((await run(runKeygen, [keyFile("b.pem")], { cwd: work })).code, 0);
  assert.is((await run(runKeygen, [keyFile("c.pem")], { cwd: work })).code, 0);
  pemB = readFileSync(keyFile("b.pem"), "utf8");
  pemC = readFileSync(keyFile("c.pem"), "utf8");
});

test("two keys sign one manifest twice; it lists every served file; the documents' bytes do not move", async () => {
  const signed = join(work, "signed");
  const plain = join(work, "plain");
  const a = await build(signed, { SOURCE_DATE_EPOCH: day(3), REGISTRY_SIGNING_KEY: pemA + pemB });
  assert.is(a.code, 0, a.stderr);
  const b = await build(plain, { SOURCE_DATE_EPOCH: day(3) });
  assert.is(b.code, 0, b.stderr);
  // Without a key, no manifest and no key set; with one, every other file the same bytes.
  const plainFiles = filesUnder(plain);
  assert.not.ok(plainFiles.includes(MANIFEST) || plainFiles.includes(KEYS));
  for (const file of plainFiles.filter((f) => f.startsWith("static/api/") || f === "static/vaults.json")) {
    assert.ok(readFileSync(join(signed, file)).equals(readFileSync(join(plain, file))), file);
  }
  const keys = JSON.parse(readFileSync(join(signed, KEYS), "utf8")) as { keys: { kid: string }[] };
  assert.is(keys.keys.length, 2);
  const manifestBytes = readFileSync(join(signed, MANIFEST));
  const manifest = JSON.parse(manifestBytes.toString("utf8")) as { signatures: { protected: string }[] };
  assert.equal(
    manifest.signatures.map((s) => JSON.parse(Buffer.from(s.protected, "base64url").toString("utf8"))),
    keys.keys.map((k) => ({ alg: "EdDSA", kid: k.kid, typ: "registry-manifest" })),
  );
  const result = await checkManifest(new Uint8Array(manifestBytes), keys, { baseUrl: BASE, version: 1 });
  assert.ok(result.ok, JSON.stringify(result));
  if (!result.ok) return;
  assert.is(result.seq, Number(day(3)));
  assert.is(result.exp - result.iat, 7 * 86400);
  const listed = Object.keys(result.files);
  assert.equal(listed, [
    "/api/registry.v1.changes.atom",
    "/api/registry.v1.changes.json",
    "/api/registry.v1.json",
    "/api/registry.v1.openapi.json",
    "/api/registry.v1.schema.json",
    "/vaults.json",
  ]);
  for (const path of listed) {
    const bytes = readFileSync(join(signed, "static", path));
    assert.ok(await fileMatches(result.files, path, bytes), path);
    assert.is(result.files[path]?.integrity, `sha256-${sha256Base64(bytes)}`);
  }
  // Each key alone verifies it; a third key does not.
  const one = JSON.parse(
    (await runCommand(runKeygen, [join(work, "scratch.pem")], { cwd: work })).stdout.toString("utf8"),
  );
  assert.equal(
    await checkManifest(manifestBytes.toString("utf8"), one, { baseUrl: BASE, version: 1 }).then((r) => r.ok),
    false,
  );
  for (const key of keys.keys) {
    assert.ok((await checkManifest(manifest, [key], { baseUrl: BASE, version: 1 })).ok);
  }
  // The static export's headers, and the fetch artifact's answers.
  const headers = readFileSync(join(signed, "static/_headers"), "utf8");
  assert.match(headers, /\/api\/registry\.v1\.manifest\.json\n {2}content-type: application\/jose\+json\n/);
  assert.match(headers, /\/api\/registry\.keys\.json\n {2}content-type: application\/jwk-set\+json\n/);
  const app = (await import(pathToFileURL(join(signed, "fetch/index.mjs")).href)) as {
    default: { fetch(r: Request): Promise<Response> };
    config: { path: string[] };
  };
  for (
    const [path, file, type] of [["/api/registry.v1.manifest.json", MANIFEST, "application/jose+json"], [
      "/api/registry.keys.json",
      KEYS,
      "application/jwk-set+json",
    ]] as const
  ) {
    const res = await app.default.fetch(new Request(`${BASE}${path}`));
    assert.is(res.status, 200);
    assert.is(res.headers.get("content-type"), type);
    assert.is(res.headers.get("access-control-allow-origin"), "*");
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(signed, file))), path);
    assert.ok(app.config.path.includes(path), path);
  }
  const lastModified = (await app.default.fetch(new Request(`${BASE}/api/registry.v1.manifest.json`))).headers.get(
    "last-modified",
  );
  assert.is(lastModified, new Date(result.iat * 1000).toUTCString(), "Last-Modified is iat");
  const doc = await app.default.fetch(new Request(`${BASE}/vaults.json`));
  assert.ok(Buffer.from(await doc.arrayBuffer()).equals(readFileSync(join(plain, "static/vaults.json"))));
});

test("a manifest lists exactly the paths every artifact serves: each with its sha256 from the Node server, the fetch artifact and the static export; none that one of them does not serve", async () => {
  const out = join(work, "served");
  const made = await build(out, { SOURCE_DATE_EPOCH: day(3), REGISTRY_SIGNING_KEY: pemA }, ["--new-history"]);
  assert.is(made.code, 0, made.stderr);
  const keys = JSON.parse(readFileSync(join(out, KEYS), "utf8"));
  const checked = await checkManifest(readFileSync(join(out, MANIFEST)), keys, { baseUrl: BASE, version: 1 });
  assert.ok(checked.ok, JSON.stringify(checked));
  if (!checked.ok) return;
  const listed = Object.keys(checked.files).sort();
  // Every file of version 1 in the static export (a static host answers 200 for each), and what is listed.
  const ofVersion = (path: string) => /^\/api\/registry\.v1\./.test(path) || path === "/vaults.json";
  const exported = filesUnder(join(out, "static")).map((f) => `/${f}`).filter(ofVersion);
  const candidates = [...new Set([...exported, ...listed])].filter((p) => p !== "/api/registry.v1.manifest.json")
    .sort();
  assert.ok(candidates.some((p) => p.endsWith(".d.ts")), "the static export's types are among the candidates");
  const app = (await import(pathToFileURL(join(out, "fetch/index.mjs")).href)) as {
    default: { fetch(r: Request): Promise<Response> };
  };
  const server = await startServer(
    process.execPath,
    [join(out, "node/server.mjs")],
    cleanEnv({ HOST: "127.0.0.1", PORT: "0" }),
    60_000,
  );
  const servedByAll: string[] = [];
  try {
    for (const path of candidates) {
      const node = await fetch(`${server.origin}${path}`, { headers: { "accept-encoding": "identity" } });
      const fetched = await app.default.fetch(new Request(`${BASE}${path}`));
      const file = join(out, "static", path);
      const bodies = [
        node.status === 200 ? Buffer.from(await node.arrayBuffer()) : (await node.arrayBuffer(), null),
        fetched.status === 200 ? Buffer.from(await fetched.arrayBuffer()) : null,
        existsSync(file) ? readFileSync(file) : null,
      ];
      if (bodies.every((b) => b !== null)) servedByAll.push(path);
      if (!listed.includes(path)) continue;
      for (const [i, body] of bodies.entries()) {
        assert.ok(
          body !== null,
          `${path}: listed, but ${["the Node server", "the fetch artifact", "the static export"][i]} does not serve it`,
        );
        assert.ok(await fileMatches(checked.files, path, new Uint8Array(body as Buffer)), `${path}: its sha256`);
      }
    }
  } finally {
    await server.stop();
  }
  assert.equal(listed, servedByAll, "listed: exactly what every artifact serves");
});

test("a rebuild re-signs the same seq; a signed previous build is never followed silently by an unsigned one", async () => {
  const out = join(work, "history");
  const env = { SOURCE_DATE_EPOCH: day(4), REGISTRY_SIGNING_KEY: pemA };
  assert.is((await build(out, env)).code, 0);
  const first = JSON.parse(readFileSync(join(out, MANIFEST), "utf8"));
  const again = await build(out, env, ["--previous", out, "--signature-lifetime", "12h"]);
  assert.is(again.code, 0, again.stderr);
  const second = await checkManifest(readFileSync(join(out, MANIFEST)), { keys: [] }, { baseUrl: BASE, version: 1 });
  assert.is(second.ok, false, "no pinned key, no pass");
  const keys = JSON.parse(readFileSync(join(out, KEYS), "utf8"));
  const checked = await checkManifest(readFileSync(join(out, MANIFEST)), keys, { baseUrl: BASE, version: 1 });
  const before = await checkManifest(first, keys, { baseUrl: BASE, version: 1 });
  assert.ok(checked.ok && before.ok);
  if (!checked.ok || !before.ok) return;
  assert.is(checked.seq, before.seq, "the same seq: the document is the same");
  assert.is(checked.exp - checked.iat, 12 * 3600);

  const unsigned = await build(out, { SOURCE_DATE_EPOCH: day(5) }, ["--previous", out]);
  assert.is(unsigned.code, 1);
  assert.match(unsigned.stderr, /^the previous build is signed \(.*\): set REGISTRY_SIGNING_KEY .* --unsigned/);
  assert.is(unsigned.stderr.split("\n").length, 2, "one line");
  // Another key: the previous manifest does not verify with it.
  const other = await build(out, { SOURCE_DATE_EPOCH: day(5), REGISTRY_SIGNING_KEY: pemC }, ["--previous", out]);
  assert.is(other.code, 1);
  assert.match(other.stderr, /the previous manifest .* does not verify with REGISTRY_SIGNING_KEY's keys \(signature/);
  // An earlier built_at with another document, and a built_at past the clock: refused.
  const future = await build(join(work, "future"), {
    SOURCE_DATE_EPOCH: String(Math.floor(Date.now() / 1000) + 3600),
    REGISTRY_SIGNING_KEY: pemA,
  });
  assert.is(future.code, 1);
  assert.match(future.stderr, /more than 5 minutes after this machine's clock/);
  assert.is((await build(out, env, ["--signature-lifetime", "7 days", "--previous", out])).code, 2);
  assert.is((await build(out, env, ["--unsigned", "--previous", out])).code, 2);
  const down = await build(out, { SOURCE_DATE_EPOCH: day(5) }, ["--previous", out, "--unsigned"]);
  assert.is(down.code, 0, down.stderr);
  assert.not.ok(filesUnder(out).includes(MANIFEST));
});

test("a previous build's manifest in a folder is read with the one bounded reader: over 4 MiB it is refused unread, in one line", async () => {
  const out = join(work, "big-manifest");
  const env = { SOURCE_DATE_EPOCH: day(4), REGISTRY_SIGNING_KEY: pemA };
  assert.is((await build(out, env)).code, 0);
  const copy = join(work, "big-manifest-copy");
  cpSync(out, copy, { recursive: true });
  writeFileSync(join(copy, MANIFEST), " ".repeat(4 * 1024 * 1024 + 1));
  const next = await build(join(work, "big-manifest-next"), { ...env, SOURCE_DATE_EPOCH: day(5) }, [
    "--previous",
    copy,
  ]);
  assert.is(next.code, 1);
  assert.match(
    next.stderr,
    /^--previous: \S+registry\.v1\.manifest\.json: the file is 4194305 bytes; the limit is 4 MiB\n$/,
  );
  assert.not.ok(existsSync(join(work, "big-manifest-next")), "nothing written");
  // A named pipe in its place is refused without waiting for a writer.
  rmSync(join(copy, MANIFEST));
  execFileSync("mkfifo", [join(copy, MANIFEST)]);
  const piped = await build(join(work, "big-manifest-next"), { ...env, SOURCE_DATE_EPOCH: day(5) }, [
    "--previous",
    copy,
  ]);
  assert.is(piped.code, 1);
  assert.match(piped.stderr, /^--previous: \S+registry\.v1\.manifest\.json: not a file\n$/);
});

test("equivocation: the same seq with another document is refused, by the feed's history, by the manifest when the document served is older than it, and by the seq rule", async () => {
  const out = join(work, "equivocation");
  const variant = join(work, "variant.json");
  const source = JSON.parse(readFileSync("fixtures/registry.json", "utf8"));
  source.vaults[0].display_name += " II";
  writeFileSync(variant, JSON.stringify(source));
  const env = { SOURCE_DATE_EPOCH: day(1), REGISTRY_SIGNING_KEY: pemA };
  const first = await build(out, env);
  assert.is(first.code, 0, first.stderr);
  const manifest = readFileSync(join(out, MANIFEST));
  // With the whole previous build, its change feed already refuses the same built_at with other bytes.
  const again = await run(runBuild, ["--source", variant, "--base-url", BASE, "--out", out, "--previous", out], {
    env: cleanEnv(env),
  });
  assert.is(again.code, 1);
  assert.match(
    again.stderr,
    /^build failed: v1: the previous build has this built_at \(.*\) but other bytes: build at a later time\n$/,
  );
  assert.ok(readFileSync(join(out, MANIFEST)).equals(manifest), "the previous build is untouched");
  // A deployment mid-way (or a cache) serving the newer manifest beside an older document and feed:
  // the feeds' history sees a later build, and the signing rule alone refuses the same seq.
  const older = join(work, "equivocation-older");
  const newer = join(work, "equivocation-newer");
  let midway = true;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const file = join(path === "/api/registry.v1.manifest.json" || !midway ? newer : older, "static", path);
    if (!/^\/[\w./-]+$/.test(path) || path.includes("..") || !existsSync(file)) res.writeHead(404).end();
    else res.writeHead(200).end(readFileSync(file));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  try {
    const live = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const at = (source: string, dir: string, epoch: string, extra: string[] = []) =>
      run(runBuild, firstBuild(["--source", source, "--base-url", live, "--out", dir, ...extra], env), {
        env: cleanEnv({ ...env, SOURCE_DATE_EPOCH: epoch }),
      });
    assert.is((await at("fixtures/registry.json", older, day(0))).code, 0);
    assert.is((await at("fixtures/registry.json", newer, day(1))).code, 0);
    const alone = await at(variant, join(work, "equivocation-alone"), day(1), ["--previous", live]);
    assert.is(alone.code, 1);
    assert.match(
      alone.stderr,
      new RegExp(
        `^--previous: ${live}/api/registry\\.v1\\.json: its bytes are not the ones the previous manifest \\(${live}/api/registry\\.v1\\.manifest\\.json\\) lists \\(sha256\\)[^\n]*\n$`,
      ),
    );
    assert.not.ok(existsSync(join(work, "equivocation-alone", MANIFEST)), "nothing signed");
    // The signing rule itself, which a previous build whose files match its manifest never reaches.
    const validated = validateSource(JSON.parse(readFileSync(variant, "utf8")));
    assert.ok(validated.ok);
    if (!validated.ok) return;
    const served = await prepareBuild(validated.source, { baseUrl: live, builtAt: "2026-11-22T12:00:00Z" });
    const plan = {
      keys: await readSigningKeys(pemA),
      lifetime: 86400,
      previous: new Map([[1, {
        where: "M",
        seq: Number(day(1)),
        iat: Number(day(1)),
        documentSha256: "0".repeat(64),
      }]]),
      now: () => Number(day(1)) + 60,
    };
    try {
      await signStaged(served, join(work, "equivocation-unwritten"), plan);
      assert.unreachable("refused");
    } catch (error) {
      assert.is(
        (error as Error).message,
        `v1: a new document whose built_at (2026-11-22T12:00:00Z, seq ${
          day(1)
        }) is not later than the previous manifest's seq (${day(1)}, M): build at a later time`,
      );
    }
    assert.not.ok(existsSync(join(work, "equivocation-unwritten")), "nothing written");
    midway = false;
    // The same document at the same seq re-signs; another document later is signed.
    const resign = await at("fixtures/registry.json", join(work, "equivocation-resign"), day(1), ["--previous", live]);
    assert.is(resign.code, 0, resign.stderr);
    const later = await at(variant, join(work, "equivocation-later"), day(2), ["--previous", live]);
    assert.is(later.code, 0, later.stderr);
    const keys = JSON.parse(readFileSync(join(out, KEYS), "utf8"));
    const seqOf = async (dir: string) => {
      const checked = await checkManifest(readFileSync(join(dir, MANIFEST)), keys, { baseUrl: live, version: 1 });
      return checked.ok ? checked.seq : checked.reason;
    };
    assert.equal(
      [await seqOf(join(work, "equivocation-resign")), await seqOf(join(work, "equivocation-later"))],
      [Number(day(1)), Number(day(2))],
    );
  } finally {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

test("a signed build carries nothing the host changed since the previous build was signed: a removal planted in the feed is refused, naming the file, nothing written", async () => {
  const env = { REGISTRY_SIGNING_KEY: pemA };
  const variant = join(work, "planted-variant.json");
  const source = JSON.parse(readFileSync("fixtures/registry.json", "utf8"));
  source.vaults[0].display_name += " II";
  writeFileSync(variant, JSON.stringify(source));
  const [one, two, planted, next] = ["planted-1", "planted-2", "planted-copy", "planted-3"].map((d) =>
    join(work, d)
  ) as [string, string, string, string];
  assert.is((await build(one, { ...env, SOURCE_DATE_EPOCH: day(1) }, ["--new-history"])).code, 0);
  const second = await run(runBuild, ["--source", variant, "--base-url", BASE, "--out", two, "--previous", one], {
    env: cleanEnv({ ...env, SOURCE_DATE_EPOCH: day(2) }),
  });
  assert.is(second.code, 0, second.stderr);
  // Someone who can write to the host, with no key: a vault removed that never was, and an edge
  // between two listed vaults that the document does not hold. Applied, neither changes it.
  cpSync(two, planted, { recursive: true });
  const feedFile = join(planted, "static/api/registry.v1.changes.json");
  const feed = JSON.parse(readFileSync(feedFile, "utf8"));
  const document = JSON.parse(readFileSync(join(planted, "static/api/registry.v1.json"), "utf8"));
  const edge = { source: "harbour-ledger", target: "tide-tables", type: "reconciles" };
  assert.not.ok(JSON.stringify(document.edges).includes(JSON.stringify(edge)), "an edge the document does not hold");
  feed.items[0]._registry.vaults.remove.push("planted-slug");
  feed.items[0]._registry.edges.remove.push(edge);
  writeFileSync(feedFile, `${JSON.stringify(feed, null, 2)}\n`);
  const refused = await build(next, { ...env, SOURCE_DATE_EPOCH: day(3) }, ["--previous", planted]);
  assert.is(refused.code, 1, refused.stdout.toString("utf8"));
  assert.match(
    refused.stderr,
    /^--previous: \S+planted-copy\/static\/api\/registry\.v1\.changes\.json: its bytes are not the ones the previous manifest \(\S+registry\.v1\.manifest\.json\) lists \(sha256\)[^\n]*\n$/,
  );
  assert.not.ok(existsSync(next), "nothing written");
  // The same previous build as it was signed carries on.
  const carried = await build(next, { ...env, SOURCE_DATE_EPOCH: day(3) }, ["--previous", two]);
  assert.is(carried.code, 0, carried.stderr);
  assert.not.ok(readFileSync(join(next, "static/api/registry.v1.changes.json"), "utf8").includes("planted-slug"));
  // Every file read from it is checked, not only what is carried on: a schema edited there too.
  writeFileSync(feedFile, readFileSync(join(two, "static/api/registry.v1.changes.json")));
  writeFileSync(join(planted, "static/api/registry.v1.schema.json"), "{}\n");
  const schema = await build(join(work, "planted-4"), { ...env, SOURCE_DATE_EPOCH: day(3) }, ["--previous", planted]);
  assert.is(schema.code, 1);
  assert.match(schema.stderr, /^--previous: \S+registry\.v1\.schema\.json: its bytes are not the ones/);
});

test("a signed build carries nothing unsigned: a previous build whose manifest and key set were removed from the host, or that was never signed, is refused, nothing written", async () => {
  const env = { REGISTRY_SIGNING_KEY: pemA };
  const [signed, stripped, unsigned, next] = ["strip-1", "strip-copy", "strip-unsigned", "strip-next"].map((d) =>
    join(work, d)
  ) as [string, string, string, string];
  assert.is((await build(signed, { ...env, SOURCE_DATE_EPOCH: day(1) }, ["--new-history"])).code, 0);
  // Someone who can write to the host, with no key: the manifest and key set gone, so that what they
  // plant next (a removal no document disproves) would pass every check but the signature.
  cpSync(signed, stripped, { recursive: true });
  rmSync(join(stripped, MANIFEST));
  rmSync(join(stripped, KEYS));
  const refused = await build(next, { ...env, SOURCE_DATE_EPOCH: day(2) }, ["--previous", stripped]);
  assert.is(refused.code, 1, refused.stdout.toString("utf8"));
  assert.match(
    refused.stderr,
    /^--previous: \S+strip-copy\/static\S*: no signed manifest beside it, in a signed build: nothing unsigned is carried on; restore the deployment's manifest, or start a signed history with --new-history \(consumers refetch once\)\n$/,
  );
  assert.not.ok(existsSync(next), "nothing written");
  // An unsigned deployment that starts signing does so with a new history, not by carrying one on.
  assert.is((await build(unsigned, { SOURCE_DATE_EPOCH: day(1) }, ["--new-history", "--unsigned"])).code, 0);
  const first = await build(next, { ...env, SOURCE_DATE_EPOCH: day(2) }, ["--previous", unsigned]);
  assert.is(first.code, 1);
  assert.match(first.stderr, /no signed manifest beside it, in a signed build/);
  assert.is((await build(next, { ...env, SOURCE_DATE_EPOCH: day(2) }, ["--new-history"])).code, 0);
});

test("--new-history needs a key or --unsigned: a new history cannot see whether the deployment it replaces was signed", async () => {
  const fresh = join(work, "fresh-history");
  const refused = await build(fresh, { SOURCE_DATE_EPOCH: day(6) }, ["--new-history"]);
  assert.is(refused.code, 1);
  assert.match(
    refused.stderr,
    /^--new-history: it cannot see whether the deployment it replaces was signed: set REGISTRY_SIGNING_KEY to sign this build, or give --unsigned to publish an unsigned one on purpose\n$/,
  );
  assert.not.ok(existsSync(fresh), "nothing written");
  const unsigned = await build(fresh, { SOURCE_DATE_EPOCH: day(6) }, ["--new-history", "--unsigned"]);
  assert.is(unsigned.code, 0, unsigned.stderr);
  assert.not.ok(existsSync(join(fresh, MANIFEST)));
  const signed = await build(join(work, "fresh-signed"), { SOURCE_DATE_EPOCH: day(6), REGISTRY_SIGNING_KEY: pemA }, [
    "--new-history",
  ]);
  assert.is(signed.code, 0, signed.stderr);
  assert.ok(existsSync(join(work, "fresh-signed", MANIFEST)));
});

test("a signed build's summary line says it signed, by how many keys and which", async () => {
  const out = join(work, "summary");
  const made = await build(out, { SOURCE_DATE_EPOCH: day(3), REGISTRY_SIGNING_KEY: pemA + pemB });
  assert.is(made.code, 0, made.stderr);
  const kids = (JSON.parse(readFileSync(join(out, KEYS), "utf8")) as { keys: { kid: string }[] }).keys.map((k) =>
    k.kid
  );
  const line = made.stdout.toString("utf8");
  assert.match(line, /^built \S+: \d+ vaults, .*, ETag "[0-9a-f]+"; signed by 2 keys \(kid [\w-]+, [\w-]+\)\n$/);
  for (const kid of kids) assert.ok(line.includes(kid), kid);
  const plain = await build(join(work, "summary-plain"), { SOURCE_DATE_EPOCH: day(3) });
  assert.not.match(plain.stdout.toString("utf8"), /signed/);
});

test("a malformed REGISTRY_SIGNING_KEY is refused in one line naming the variable, quoting none of it", async () => {
  const secret = "c2VjcmV0LWtleS1tYXRlcmlhbC10aGF0LW11c3Qtbm90LWxlYWs";
  for (
    const value of [
      `-----BEGIN PRIVATE KEY-----\n${secret}\n-----END PRIVATE KEY-----\n`,
      `{"kty":"OKP","crv":"Ed25519","d":"${secret}","x":"${secret}"}`,
      secret,
      pemA.replace("PRIVATE KEY-----\n", `PRIVATE KEY-----\n${secret}`),
    ]
  ) {
    const result = await build(join(work, "bad-key"), { SOURCE_DATE_EPOCH: day(3), REGISTRY_SIGNING_KEY: value });
    assert.is(result.code, 1);
    assert.match(result.stderr, /^REGISTRY_SIGNING_KEY: [^\n]*\(its value is not shown\)\n$/);
    assert.not.ok(result.stderr.includes(secret.slice(0, 12)));
  }
});

test("no byte of a private key reaches any output, message or artifact", async () => {
  const material: string[] = [];
  for (const pem of [pemA, pemB, pemC]) {
    const body = pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
    const der = Buffer.from(body, "base64");
    const seed = der.subarray(der.length - 32);
    material.push(body, seed.toString("base64url"), seed.toString("base64"), seed.toString("hex"));
    // Every 24-character window of the PEM body: a partial leak is a leak.
    for (let i = 0; i + 24 <= body.length; i += 8) material.push(body.slice(i, i + 24));
  }
  const texts = outputs.map((o) => `${o.stdout.toString("utf8")}\n${o.stderr}`);
  const seeds = [pemA, pemB, pemC].map((pem) => {
    const der = Buffer.from(pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, ""), "base64");
    return der.subarray(der.length - 32);
  });
  for (const dir of ["signed", "history", "plain"]) {
    for (const file of filesUnder(join(work, dir))) {
      const bytes = readFileSync(join(work, dir, file));
      for (const seed of seeds) assert.is(bytes.indexOf(seed), -1, `${dir}/${file} holds a raw seed`);
      texts.push(bytes.toString("latin1"));
    }
  }
  for (const text of texts) for (const m of material) assert.not.ok(text.includes(m), "key material in an output");
  assert.ok(texts.length > 20);
});

function sha256Base64(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("base64");
}

test.run();
