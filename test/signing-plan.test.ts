/**
 * The build's signing (node/builder/signing.ts) in this process, fast (the `signing` mutation group
 * runs it early): `prepareSigning`'s every refusal, each line exactly, against previous builds kept
 * in folders (signed with one key or another, unsigned, a key set without its manifest, files
 * changed or unlisted since they were signed); `signStaged`'s rules of `seq`, `iat` and the clock at
 * their edges, and what it writes beside the export; `parseLifetime` and the summary line.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { generateSigningKey } from "../assembly/jws.ts";
import { documentPath, fileEntry, KEYS_PATH, manifestPath } from "../assembly/manifest.ts";
import { type Build, prepareBuild } from "../assembly/prepare.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { parseLifetime, prepareSigning, signedSummary, type SigningPlan, signStaged } from "../node/builder/signing.ts";
import { type Source, validateSource } from "../registry.ts";

const BASE = "https://registry.example.org";
const T0 = Date.parse("2026-11-21T12:00:00Z") / 1000;
const work = mkdtempSync(join(tmpdir(), "registry-signing-plan-"));
const servers: Server[] = [];
test.after(async () => {
  rmSync(work, { recursive: true, force: true });
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

const source = (() => {
  const result = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
  if (!result.ok) throw new Error(result.problems.join("\n"));
  return result.source as Source;
})();
const buildAt = (seconds: number): Promise<Build> =>
  prepareBuild(source, { baseUrl: BASE, builtAt: new Date(seconds * 1000).toISOString().replace(".000Z", "Z") });

const [a, b] = [await generateSigningKey(), await generateSigningKey()];
const KEY_LINE =
  "it must hold one or more PKCS#8 PEM blocks of Ed25519 private keys (registry-endpoint keygen FILE makes one), or a private Ed25519 JWK or JWK Set (its value is not shown)";

/** prepareSigning with the given variables, flags and previous folder, at the clock `now`. */
const prepare = (
  env: Record<string, string>,
  values: Record<string, string | boolean> = {},
  location?: string,
  carried?: Map<string, { bytes: Uint8Array<ArrayBuffer>; where: string }>,
) =>
  prepareSigning({
    env,
    values,
    location,
    baseUrl: BASE,
    versions: VERSIONS,
    cwd: work,
    carried,
    now: () => T0 + 3600,
  });

/** The line of a refusal, or what was returned instead. */
const lineOf = (result: Awaited<ReturnType<typeof prepare>>) =>
  "message" in result ? `${result.exit} ${result.message}` : JSON.stringify(result);

/** A build at `T0` signed with `pem` into `name`/static, as a previous build's folder; its plan. */
async function signedFolder(name: string, pem: string): Promise<{ dir: string; plan: SigningPlan; build: Build }> {
  const dir = join(work, name);
  mkdirSync(join(dir, "static"), { recursive: true });
  const planned = await prepare({ REGISTRY_SIGNING_KEY: pem });
  assert.ok("ok" in planned && planned.ok !== null);
  const plan = (planned as { ok: SigningPlan }).ok;
  const build = await signStaged(await buildAt(T0), join(dir, "static"), plan);
  return { dir, plan, build };
}

test("parseLifetime: d, h, m and s up to 366 days; anything else is null", () => {
  const cases: [string, number | null][] = [
    ["7d", 604800],
    ["12h", 43200],
    ["90m", 5400],
    ["90s", 90],
    ["1s", 1],
    ["366d", 366 * 86400],
    ["367d", null],
    ["8784h", 366 * 86400],
    ["8785h", null],
    ["1234567s", 1234567],
    ["12345678s", null],
    ["0d", null],
    ["01d", null],
    ["7", null],
    ["7w", null],
    ["7d ", null],
    [" 7d", null],
    ["-7d", null],
    ["", null],
  ];
  for (const [text, seconds] of cases) assert.is(parseLifetime(text), seconds, text);
});

test("signedSummary: nothing unsigned; the keys by kid, counted", async () => {
  assert.is(signedSummary(null), "");
  const plan = { keys: [a.key], lifetime: 1, previous: new Map(), now: () => 0 };
  assert.is(signedSummary(plan), `; signed by 1 key (kid ${a.key.kid})`);
  assert.is(signedSummary({ ...plan, keys: [a.key, b.key] }), `; signed by 2 keys (kid ${a.key.kid}, ${b.key.kid})`);
});

test("prepareSigning without a previous build: no key is no plan; a bad key, a bad lifetime, a key with --unsigned, --new-history without either are refused", async () => {
  assert.equal(await prepare({}), { ok: null });
  assert.equal(await prepare({ REGISTRY_SIGNING_KEY: " \n " }), { ok: null }, "white space is no key");
  assert.is(
    lineOf(await prepare({ REGISTRY_SIGNING_KEY: "secret-text" })),
    `1 REGISTRY_SIGNING_KEY: neither PKCS#8 PEM blocks nor a JWK or JWK Set; ${KEY_LINE}`,
  );
  assert.is(
    lineOf(await prepare({}, { "signature-lifetime": "8 weeks, or maybe nine" })),
    '2 --signature-lifetime: "8 weeks, or maybe ni" is not a duration such as 7d, 12h, 90m or 90s, of at most 366d',
  );
  assert.is(
    lineOf(await prepare({ REGISTRY_SIGNING_KEY: a.pem }, { unsigned: true })),
    "2 --unsigned and REGISTRY_SIGNING_KEY: give one (unset the variable to build unsigned)",
  );
  assert.is(
    lineOf(await prepare({}, { "new-history": true })),
    "1 --new-history: it cannot see whether the deployment it replaces was signed: set REGISTRY_SIGNING_KEY to sign this build, or give --unsigned to publish an unsigned one on purpose",
  );
  assert.equal(await prepare({}, { "new-history": true, unsigned: true }), { ok: null });
  assert.equal(await prepare({}, { unsigned: true }), { ok: null });
  const plan = await prepare({ REGISTRY_SIGNING_KEY: a.pem }, { "new-history": true, "signature-lifetime": "12h" });
  assert.ok("ok" in plan && plan.ok !== null);
  const { keys, lifetime, previous, now } = (plan as { ok: SigningPlan }).ok;
  assert.equal([keys.map((k) => k.kid), lifetime, previous.size, now()], [[a.key.kid], 43200, 0, T0 + 3600]);
  const byDefault = await prepareSigning({
    env: { REGISTRY_SIGNING_KEY: a.pem },
    values: {},
    location: undefined,
    baseUrl: BASE,
    versions: VERSIONS,
    cwd: work,
  });
  const clock = (byDefault as { ok: SigningPlan }).ok;
  assert.is(clock.lifetime, 7 * 86400, "7d by default");
  assert.ok(Math.abs(clock.now() - Date.now() / 1000) < 5, "the clock by default, in seconds");
});

test("prepareSigning after a signed build: the previous manifest read and verified; no key, another key, a changed or unlisted file, a version without a manifest are refused", async () => {
  const { dir, build } = await signedFolder("signed", a.pem);
  const where = join(dir, "static", manifestPath(1));
  const manifest = JSON.parse(readFileSync(where, "utf8"));
  const payload = JSON.parse(Buffer.from(manifest.payload, "base64url").toString("utf8"));
  const planned = await prepare({ REGISTRY_SIGNING_KEY: a.pem }, {}, dir);
  const plan = (planned as { ok: SigningPlan }).ok;
  assert.equal([...plan.previous], [[1, {
    where,
    seq: T0,
    iat: T0 + 3600,
    documentSha256: payload.files[documentPath(1)].sha256,
  }]]);
  assert.is(
    lineOf(await prepare({}, {}, dir)),
    `1 the previous build is signed (${where}): set REGISTRY_SIGNING_KEY to sign this one, or give --unsigned to publish an unsigned build on purpose`,
  );
  assert.equal(await prepare({}, { unsigned: true }, dir), { ok: null }, "an unsigned build on purpose");
  assert.is(
    lineOf(await prepare({ REGISTRY_SIGNING_KEY: b.pem }, {}, dir)),
    `1 the previous manifest ${where} does not verify with REGISTRY_SIGNING_KEY's keys (signature: no signature by a pinned key verifies (alg EdDSA, typ registry-manifest))`,
  );
  assert.ok("ok" in await prepare({ REGISTRY_SIGNING_KEY: `${b.pem}${a.pem}` }, {}, dir), "a rotation: either key");
  // The files the build carries on from it: each checked against the manifest.
  const document = build.routes.get(documentPath(1))!.identity.body;
  const file = (path: string, bytes: Uint8Array<ArrayBuffer>) => new Map([[path, { bytes, where: `at ${path}` }]]);
  assert.ok("ok" in await prepare({ REGISTRY_SIGNING_KEY: a.pem }, {}, dir, file(documentPath(1), document)));
  const changed = new Uint8Array(document);
  changed[10] = changed[10]! ^ 1;
  assert.is(
    lineOf(await prepare({ REGISTRY_SIGNING_KEY: a.pem }, {}, dir, file(documentPath(1), changed))),
    `1 --previous: at ${
      documentPath(1)
    }: its bytes are not the ones the previous manifest (${where}) lists (sha256): changed on the host since it was signed, or a deploy in progress; nothing is carried on`,
  );
  assert.is(
    lineOf(await prepare({ REGISTRY_SIGNING_KEY: a.pem }, {}, dir, file("/api/registry.v1.planted.json", document))),
    `1 --previous: at /api/registry.v1.planted.json: not listed in the previous manifest (${where}): nothing unsigned is carried into a signed build`,
  );
  assert.is(
    lineOf(await prepare({ REGISTRY_SIGNING_KEY: a.pem }, {}, dir, file("/api/registry.v10.json", document))),
    "1 --previous: at /api/registry.v10.json: no manifest of its version beside it, in a signed build: nothing is carried on unchecked",
  );
  assert.is(
    lineOf(await prepare({ REGISTRY_SIGNING_KEY: a.pem }, {}, dir, file("/api/registry.v1.toString", document))),
    `1 --previous: at /api/registry.v1.toString: not listed in the previous manifest (${where}): nothing unsigned is carried into a signed build`,
  );
});

test("prepareSigning after an unsigned build or a stripped one: nothing unsigned is carried into a signed build; a key set without its manifest is a signed build missing them", async () => {
  const dir = join(work, "unsigned");
  mkdirSync(join(dir, "static", "api"), { recursive: true });
  const carried = new Map([["/api/registry.v1.json", { bytes: new Uint8Array([1]), where: "the document" }]]);
  assert.is(
    lineOf(await prepare({ REGISTRY_SIGNING_KEY: a.pem }, {}, dir, carried)),
    "1 --previous: the document: no signed manifest beside it, in a signed build: nothing unsigned is carried on; restore the deployment's manifest, or start a signed history with --new-history (consumers refetch once)",
  );
  const plan = await prepare({ REGISTRY_SIGNING_KEY: a.pem }, {}, dir);
  assert.is((plan as { ok: SigningPlan }).ok.previous.size, 0, "nothing carried: nothing to check");
  assert.equal(await prepare({}, {}, dir, carried), { ok: null }, "unsigned after unsigned");
  writeFileSync(join(dir, "static", KEYS_PATH), "{}");
  assert.is(
    lineOf(await prepare({}, {}, dir)),
    `1 --previous: ${
      join(dir, "static", KEYS_PATH)
    }: a key set, but no manifest beside it: a signed build missing its manifests`,
  );
});

/**
 * A deployment on 127.0.0.1 at a free port: `answers[path]` (a status, or bytes served with 200)
 * for a path without its query, else 404. `asked` collects each request's path and cache-control.
 */
async function deployment(answers: Record<string, number | Uint8Array>, asked: string[] = []): Promise<string> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "").replace(/\?.*/, "");
    asked.push(`${path} ${req.headers["cache-control"]}`);
    const answer = Object.hasOwn(answers, path) ? answers[path] : 404;
    if (typeof answer === "number") res.writeHead(answer, answer === 302 ? { location: "/moved" } : {}).end();
    else res.writeHead(200, { "content-type": "application/json" }).end(answer);
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test("prepareSigning after a live deployment: the manifest read from the URL past caches and verified; a 404 is none; a key set alone, an error, a redirect or an oversized manifest are refused", async () => {
  const { dir } = await signedFolder("live", a.pem);
  const manifest = new Uint8Array(readFileSync(join(dir, "static", manifestPath(1))));
  const asked: string[] = [];
  const origin = await deployment({ [manifestPath(1)]: manifest }, asked);
  const planned = await prepare({ REGISTRY_SIGNING_KEY: a.pem }, {}, `${origin}//`);
  assert.equal([...(planned as { ok: SigningPlan }).ok.previous].map(([n, p]) => [n, p.where, p.seq]), [
    [1, `${origin}${manifestPath(1)}`, T0],
  ]);
  assert.ok(asked.length > 0 && asked.every((line) => line.endsWith(" no-cache")), asked.join(", "));
  assert.ok("ok" in await prepare({ REGISTRY_SIGNING_KEY: a.pem }, {}, origin.replace("http", "HTTP")));
  assert.is(
    lineOf(await prepare({}, {}, origin)),
    `1 the previous build is signed (${origin}${
      manifestPath(1)
    }): set REGISTRY_SIGNING_KEY to sign this one, or give --unsigned to publish an unsigned build on purpose`,
  );
  // Nothing at all: an unsigned deployment, or none.
  const none = await deployment({});
  assert.equal([...(await prepare({ REGISTRY_SIGNING_KEY: a.pem }, {}, none) as { ok: SigningPlan }).ok.previous], []);
  assert.equal(await prepare({}, {}, none), { ok: null });
  // A key set, or anything but a 404 where it would be, without a manifest: fail closed.
  const stripped = (at: string) =>
    `1 --previous: ${at}${KEYS_PATH}: a key set, but no manifest beside it: a signed build missing its manifests`;
  for (const keys of [new Uint8Array([123, 125]), 500, 403, new Uint8Array(1024 * 1024 + 1)]) {
    const at = await deployment({ [KEYS_PATH]: keys });
    assert.is(lineOf(await prepare({}, {}, at)), stripped(at), String(keys));
  }
  const failed = async (answer: number | Uint8Array) => {
    const at = await deployment({ [manifestPath(1)]: answer });
    return lineOf(await prepare({ REGISTRY_SIGNING_KEY: a.pem }, {}, at)).replaceAll(at, "ORIGIN");
  };
  const wayOn =
    `: the live deployment could not be read; build again when it answers, or, if nothing was ever deployed at ${BASE}, give --new-history instead of --previous`;
  assert.is(await failed(500), `1 --previous: ORIGIN${manifestPath(1)}: answered 500${wayOn}`);
  assert.is(await failed(410), `1 --previous: ORIGIN${manifestPath(1)}: answered 410`);
  assert.is(
    await failed(302),
    `1 --previous: ORIGIN${manifestPath(1)}: answered 302, a redirect to /moved: give the address it names`,
  );
  assert.is(
    await failed(new Uint8Array(4 * 1024 * 1024 + 1)),
    `1 --previous: GET ORIGIN${manifestPath(1)}: the body is over 4 MiB; --previous reads at most 4 MiB`,
  );
  assert.ok(
    "ok" in
      await prepare({ REGISTRY_SIGNING_KEY: a.pem }, {}, await deployment({ [manifestPath(1)]: manifest.slice() })),
  );
});

test("signStaged: no plan signs nothing; the clock, seq and iat rules at their edges; the manifest and key set written beside the export, with their headers", async () => {
  const served = await buildAt(T0 + 7200);
  assert.is(await signStaged(served, join(work, "none"), null), served);
  assert.not.ok(existsSync(join(work, "none")));
  const plan = (now: number, previous: SigningPlan["previous"] = new Map()): SigningPlan => ({
    keys: [a.key],
    lifetime: 86400,
    previous,
    now: () => now,
  });
  const refusal = (build: Build, p: SigningPlan) =>
    signStaged(build, join(work, "refused"), p).then(() => "signed", (error: Error) => error.message);
  assert.is(
    await refusal(served, plan(T0 + 7200 - 301)),
    "built_at 2026-11-21T14:00:00Z is more than 5 minutes after this machine's clock: signed, it would move every consumer's seq past the future",
  );
  assert.is(await refusal(served, plan(T0 + 7200 - 300)), "signed", "5 minutes ahead of the clock");
  const sha = (await fileEntry(served.routes.get(documentPath(1))!.identity.body)).sha256;
  const before = (seq: number, iat: number, documentSha256: string | undefined) =>
    new Map([[1, { where: "THE-MANIFEST", seq, iat, documentSha256 }]]);
  const later = `v1: a new document whose built_at (2026-11-21T14:00:00Z, seq ${
    T0 + 7200
  }) is not later than the previous manifest's seq`;
  assert.is(
    await refusal(served, plan(T0 + 9000, before(T0 + 7201, 0, sha))),
    `${later} (${T0 + 7201}, THE-MANIFEST): build at a later time`,
  );
  assert.is(
    await refusal(served, plan(T0 + 9000, before(T0 + 7200, 0, "0".repeat(64)))),
    `${later} (${T0 + 7200}, THE-MANIFEST): build at a later time`,
  );
  assert.is(
    await refusal(served, plan(T0 + 9000, before(T0 + 7200, 0, sha))),
    "signed",
    "a re-sign of the same document",
  );
  assert.is(await refusal(served, plan(T0 + 9000, before(T0 + 7199, 0, undefined))), "signed", "an earlier seq");
  assert.is(
    await refusal(served, plan(T0 + 9000, before(T0 + 7200, 0, undefined))),
    `${later} (${T0 + 7200}, THE-MANIFEST): build at a later time`,
    "the same seq, and a previous manifest that lists no document",
  );
  assert.is(
    await refusal(served, plan(T0 + 9000, before(T0, T0 + 9001, sha))),
    `v1: this machine's clock is before the previous manifest's iat (${
      T0 + 9001
    }): consumers would take the new signature for a rollback`,
  );
  assert.is(await refusal(served, plan(T0 + 9000, before(T0, T0 + 9000, sha))), "signed");
  const retired = new Map([[2, { where: "V2-MANIFEST", seq: T0 + 7200, iat: 0, documentSha256: sha }]]);
  assert.is(
    await refusal(served, plan(T0 + 9000, retired)),
    `v2: a new document whose built_at (2026-11-21T14:00:00Z, seq ${
      T0 + 7200
    }) is not later than the previous manifest's seq (${T0 + 7200}, V2-MANIFEST): build at a later time`,
    "a version this build no longer serves has no document: not the same one",
  );
  // What it writes: the manifest and the key set under the base path, and their _headers blocks.
  const dir = join(work, "written");
  mkdirSync(dir);
  writeFileSync(join(dir, "_headers"), "/vaults.json\n  X: y\n");
  const signed = await signStaged(served, dir, plan(T0 + 9000));
  const added = [...signed.routes.keys()].filter((path) => !served.routes.has(path)).sort();
  assert.equal(added, [KEYS_PATH, manifestPath(1)].sort());
  for (const path of added) assert.equal(Object.keys(signed.routes.get(path)!.encoded).sort(), ["br", "gzip"], path);
  for (const path of added) {
    assert.equal(readFileSync(join(dir, path)), Buffer.from(signed.routes.get(path)!.identity.body), path);
  }
  const headers = readFileSync(join(dir, "_headers"), "utf8");
  assert.ok(headers.startsWith("/vaults.json\n  X: y\n\n"), "appended after what was there");
  for (const path of added) assert.match(headers, new RegExp(`^${path.replaceAll(".", "\\.")}$`, "m"));
  assert.not.match(headers, /^\/api\/registry\.v1\.json$/m, "only the added answers' blocks");
});

test.run();
