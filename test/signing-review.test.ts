/**
 * What an adversarial review of signed builds found, each pinned: a manifest's signature entries
 * cost one check per pinned key at most; a consumer refuses a manifest signed in its future, an
 * SRI string that is not the digest, a negative size, and an expectation that would switch a check
 * off; a build refuses a previous deployment that serves a key set without its manifest; the
 * signature lifetime has a ceiling; `keygen ""` is a usage error.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { generateSigningKey, keySet, signGeneral, verifyGeneral, verifyingKeys } from "../assembly/jws.ts";
import { MANIFEST_TYP } from "../assembly/manifest.ts";
import { checkManifest } from "../client/client.ts";
import { runKeygen } from "../node/builder/keygen.ts";
import { cleanEnv, runCommand } from "./process.ts";
import { buildFirst } from "./first-build.ts";

const work = mkdtempSync(join(tmpdir(), "registry-signing-review-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

const BASE = "https://registry.example.org";
const NOW = 1795262400;
const SHA = "ab".repeat(32);
const SRI = `sha256-${btoa(String.fromCharCode(...Array.from({ length: 32 }, () => 0xab)))}`;

async function signed(payload: Record<string, unknown>, key: Awaited<ReturnType<typeof generateSigningKey>>["key"]) {
  return await signGeneral(new TextEncoder().encode(JSON.stringify(payload)), [key], MANIFEST_TYP);
}
const payload = (extra: Record<string, unknown> = {}) => ({
  iss: BASE,
  version: 1,
  seq: NOW,
  iat: NOW,
  exp: NOW + 86400,
  files: { "/api/registry.v1.json": { sha256: SHA, size: 10, integrity: SRI } },
  ...extra,
});

test("signature entries: more than 16 is malformed; each pinned key is tried once, so repeats cost nothing", async () => {
  const { key } = await generateSigningKey();
  const good = await signed(payload(), key);
  const keys = keySet([key]);
  const entry = good.signatures[0]!;
  const bad = { ...entry, signature: Buffer.alloc(64).toString("base64url") };
  assert.equal(await verifyGeneral({ ...good, signatures: Array(17).fill(entry) }, await pinned(keys), MANIFEST_TYP), {
    error: "malformed",
  });
  assert.equal(await verifyGeneral({ ...good, signatures: [bad, entry] }, await pinned(keys), MANIFEST_TYP), {
    error: "signature",
  });
  assert.ok(
    "ok" in
      await verifyGeneral({ ...good, signatures: [{ not: "an entry" }, entry] }, await pinned(keys), MANIFEST_TYP),
  );
  const result = await checkManifest(good, keys, { baseUrl: BASE, version: 1, now: NOW });
  assert.ok(result.ok);
});

const pinned = (set: unknown) => verifyingKeys(set);

test("checkManifest refuses a manifest signed in its future, an SRI string that is not the digest, a negative size", async () => {
  const { key } = await generateSigningKey();
  const keys = keySet([key]);
  const expect = { baseUrl: BASE, version: 1, now: NOW };
  const future = await checkManifest(
    await signed(payload({ seq: NOW + 86400 * 365, iat: NOW + 86400 * 365, exp: NOW + 86400 * 366 }), key),
    keys,
    expect,
  );
  assert.equal([future.ok, !future.ok && future.reason], [false, "malformed"]);
  const sri = await checkManifest(
    await signed(
      payload({ files: { "/api/registry.v1.json": { sha256: SHA, size: 10, integrity: "sha256-AAAA" } } }),
      key,
    ),
    keys,
    expect,
  );
  assert.equal([sri.ok, !sri.ok && sri.reason], [false, "malformed"]);
  const size = await checkManifest(
    await signed(payload({ files: { "/api/registry.v1.json": { sha256: SHA, size: -1, integrity: SRI } } }), key),
    keys,
    expect,
  );
  assert.equal([size.ok, !size.ok && size.reason], [false, "malformed"]);
  // A build re-signing what it reads judges neither age nor signing time: now null.
  assert.ok(
    (await checkManifest(
      await signed(payload({ iat: NOW + 10 ** 6, seq: NOW + 10 ** 6, exp: NOW + 2 * 10 ** 6 }), key),
      keys,
      { baseUrl: BASE, version: 1, now: null },
    )).ok,
  );
});

test("checkManifest throws on an expectation that would switch a check off: NaN, a string, a sha that is not hex", async () => {
  const { key } = await generateSigningKey();
  const manifest = await signed(payload(), key);
  for (
    const bad of [
      { lastSeq: Number.NaN },
      { lastSeq: "5" as unknown as number },
      { lastIat: 1.5 },
      { now: Number.NaN },
      { lastSha256: "x" },
    ]
  ) {
    let thrown: unknown;
    try {
      await checkManifest(manifest, keySet([key]), { baseUrl: BASE, version: 1, ...bad });
    } catch (error) {
      thrown = error;
    }
    assert.ok(thrown instanceof TypeError, JSON.stringify(bad));
  }
});

test("a previous build that serves a key set but no manifest is refused: signing is never dropped by a missing file", async () => {
  const keyPath = join(work, "k.pem");
  assert.is((await runCommand(runKeygen, [keyPath], { cwd: work })).code, 0);
  const pem = readFileSync(keyPath, "utf8");
  const out = join(work, "signed");
  const build = (dir: string, env: Record<string, string>, extra: string[]) =>
    buildFirst(["--source", "fixtures/registry.json", "--base-url", BASE, "--out", dir, ...extra], {
      env: cleanEnv(env),
    });
  assert.is((await build(out, { REGISTRY_SIGNING_KEY: pem, SOURCE_DATE_EPOCH: String(NOW) }, [])).code, 0);
  rmSync(join(out, "static", "api", "registry.v1.manifest.json"));
  const next = await build(join(work, "next"), { SOURCE_DATE_EPOCH: String(NOW + 3600) }, ["--previous", out]);
  assert.is(next.code, 1);
  assert.match(next.stderr, /registry\.keys\.json: a key set, but no manifest beside it/);
  assert.not.match(next.stderr, /BEGIN|PRIVATE/);
});

test("--signature-lifetime past 366 days is refused; keygen with an empty FILE or - is a usage error, and writes nothing", async () => {
  const far = await buildFirst(
    [
      "--source",
      "fixtures/registry.json",
      "--base-url",
      BASE,
      "--out",
      join(work, "far"),
      "--signature-lifetime",
      "367d",
    ],
    { env: cleanEnv({ SOURCE_DATE_EPOCH: String(NOW) }) },
  );
  assert.is(far.code, 2);
  assert.match(
    far.stderr,
    /^--signature-lifetime: "367d" is not a duration such as 7d, 12h, 90m or 90s, of at most 366d/,
  );
  const empty = await runCommand(runKeygen, [""], { cwd: work });
  assert.is(empty.code, 2);
  assert.match(empty.stderr, /^FILE: empty; give the new key's file name/);
  const dash = await runCommand(runKeygen, ["-"], { cwd: work });
  assert.is(dash.code, 2);
  assert.match(dash.stderr, /^FILE: "-" is not a file name here; the key is never written to stdout/);
  assert.is(dash.stdout.length, 0);
  assert.not.ok(existsSync(join(work, "-")), "no file named -");
});

test.run();
