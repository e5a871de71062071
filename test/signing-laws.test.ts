/**
 * Laws of signed builds (fast-check, in process): a change of one byte of a listed file or of the
 * manifest fails; a manifest signed by another key fails; at the same `seq`, a consumer accepts only
 * the files map it accepted last, signed no earlier; `seq` never decreases along a generated
 * history of builds, whose refusals are exactly the signing rules (docs/deploying.md, "Signed builds"); the same
 * source, key and clock give the
 * same bytes. Replay a failure with FC_SEED=<seed>; run more cases with FC_RUNS=<n>.
 */
import fc from "fast-check";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { base64, keySet, readSigningKeys, signGeneral, type SigningKey } from "../assembly/jws.ts";
import {
  CLOCK_SKEW_S,
  documentPath,
  fileEntry,
  KEYS_PATH,
  MANIFEST_TYP,
  type ManifestFile,
  manifestPath,
  signBuild,
} from "../assembly/manifest.ts";
import { type Build, prepareBuild } from "../assembly/prepare.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { checkManifest, fileMatches, filesDigest } from "../client/client.ts";
import { prepareSigning, signStaged } from "../node/builder/signing.ts";
import { type Source, validateSource } from "../registry.ts";
import { fcParams } from "./arbitraries.ts";

/** base64url without padding, and back, by Node's own codec: what jws.ts's output is checked against. */
const base64url = (data: Uint8Array) => Buffer.from(data).toString("base64url");
const fromBase64url = (encoded: string) => new Uint8Array(Buffer.from(encoded, "base64url"));

const BASE = "https://registry.example.org";
/** 2026-11-21T12:00:00Z: every generated built_at is this plus whole hours. */
const T0 = 1795262400;
const HOURS = 24;
const work = mkdtempSync(join(tmpdir(), "registry-signing-laws-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

/** The fixture, and a variant whose document differs (one display name): two sources. */
const sources: readonly Source[] = (() => {
  const json = JSON.parse(readFileSync("fixtures/registry.json", "utf8"));
  const variant = structuredClone(json);
  variant.vaults[0].display_name = `${variant.vaults[0].display_name} II`;
  return [json, variant].map((value) => {
    const result = validateSource(value);
    if (!result.ok) throw new Error(result.problems.join("\n"));
    return result.source as Source;
  });
})();

const isoOf = (seconds: number) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z");

/** Builds by (source, hour), each made once per cache: two caches, so that determinism is of the build too. */
function builder(): (variant: number, hour: number) => Promise<Build> {
  const cache = new Map<string, Promise<Build>>();
  return (variant, hour) => {
    const key = `${variant}@${hour}`;
    let built = cache.get(key);
    if (built === undefined) {
      built = prepareBuild(sources[variant] as Source, { baseUrl: BASE, builtAt: isoOf(T0 + hour * 3600) });
      cache.set(key, built);
    }
    return built;
  };
}
const buildOf = builder();
const otherBuildOf = builder();

/** An Ed25519 private key from its 32-byte seed, as PKCS#8 PEM (RFC 8410's fixed prefix, then the seed). */
function pemOf(seed: Uint8Array): string {
  const der = new Uint8Array([
    0x30,
    0x2e,
    0x02,
    0x01,
    0x00,
    0x30,
    0x05,
    0x06,
    0x03,
    0x2b,
    0x65,
    0x70,
    0x04,
    0x22,
    0x04,
    0x20,
    ...seed,
  ]);
  return `-----BEGIN PRIVATE KEY-----\n${base64(der)}\n-----END PRIVATE KEY-----\n`;
}
const keyOf = async (seed: Uint8Array): Promise<SigningKey> => (await readSigningKeys(pemOf(seed)))[0] as SigningKey;
const seed = fc.uint8Array({ minLength: 32, maxLength: 32 });
const twoSeeds = fc.tuple(seed, seed).filter(([a, b]) => a.some((byte, i) => byte !== b[i]));

const LIFETIME = 7 * 86400;
const IAT = T0 + 2 * HOURS * 3600;
const expect1 = { baseUrl: BASE, version: 1, now: IAT };

/** One build, signed with one key: its listed files' bytes and its manifest's bytes. */
const signed = (async () => {
  const key = await keyOf(new Uint8Array(32).fill(7));
  const build = await buildOf(0, 0);
  const { build: out, manifests } = await signBuild(build, [key], { iat: IAT, lifetime: LIFETIME });
  const manifest = manifests.get(1)!.bytes;
  const files = manifests.get(1)!.payload.files;
  const bytes = new Map(Object.keys(files).map((path) => [path, out.routes.get(path)!.identity.body]));
  return { key, keys: keySet([key]), manifest, files, bytes };
})();

const xor = fc.integer({ min: 1, max: 255 });
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

test("a change of one byte of a listed file fails its digest check", async () => {
  const { files, bytes } = await signed;
  const paths = Object.keys(files);
  assert.ok(paths.includes(documentPath(1)) && paths.includes("/vaults.json") && paths.length >= 6);
  for (const [path, body] of bytes) assert.ok(await fileMatches(files, path, body), path);
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...paths), fc.nat(), xor, async (path, at, flip) => {
      const changed = new Uint8Array(bytes.get(path)!);
      changed[at % changed.length]! ^= flip;
      assert.not.ok(await fileMatches(files, path, changed), path);
      assert.is.not((await fileEntry(changed)).integrity, files[path]!.integrity);
    }),
    fcParams,
  );
});

test("a change of one byte of the manifest fails checkManifest (JSON whitespace for JSON whitespace aside: not signed)", async () => {
  const { keys, manifest } = await signed;
  assert.ok((await checkManifest(manifest, keys, expect1)).ok);
  await fc.assert(
    fc.asyncProperty(fc.nat(), xor, async (at, flip) => {
      const changed = new Uint8Array(manifest);
      const i = at % changed.length;
      changed[i]! ^= flip;
      const result = await checkManifest(changed, keys, expect1);
      // The signature covers the protected header and the payload, not the serialization's layout.
      const layout = WHITESPACE.has(manifest[i]!) && WHITESPACE.has(changed[i]!);
      assert.is(result.ok, layout, `byte ${i}: ${JSON.stringify(result)}`);
      if (!result.ok) assert.ok(result.reason === "signature" || result.reason === "malformed", result.reason);
    }),
    fcParams,
  );
  // A change of one byte of the signed payload itself, validly re-encoded: the signature fails.
  const jws = JSON.parse(new TextDecoder().decode(manifest)) as { payload: string };
  const payload = fromBase64url(jws.payload)!;
  await fc.assert(
    fc.asyncProperty(fc.nat(), xor, async (at, flip) => {
      const changed = new Uint8Array(payload);
      changed[at % changed.length]! ^= flip;
      const result = await checkManifest({ ...jws, payload: base64url(changed) }, keys, expect1);
      assert.equal(result.ok ? "ok" : result.reason, "signature");
    }),
    fcParams,
  );
});

test("a manifest signed by another key fails on the signature; each key verifies its own", async () => {
  const build = await buildOf(0, 0);
  await fc.assert(
    fc.asyncProperty(twoSeeds, async ([a, b]) => {
      const [mine, theirs] = [await keyOf(a), await keyOf(b)];
      const { manifests } = await signBuild(build, [theirs], { iat: IAT, lifetime: LIFETIME });
      const manifest = manifests.get(1)!.bytes;
      const result = await checkManifest(manifest, keySet([mine]), expect1);
      assert.equal(result.ok ? "ok" : result.reason, "signature");
      assert.ok((await checkManifest(manifest, keySet([theirs]), expect1)).ok);
    }),
    fcParams,
  );
});

/** A files map drawn from a small pool of paths and contents, so that two draws are often equal. */
const filesMap = fc.uniqueArray(
  fc.tuple(
    fc.constantFrom(documentPath(1), "/vaults.json", "/api/registry.v1.changes.json", "/api/registry.v1.schema.json"),
    fc.integer({ min: 0, max: 2 }),
  ),
  { selector: ([path]) => path, minLength: 1, maxLength: 4 },
);
const entryOf = (content: number) => fileEntry(new TextEncoder().encode(`content ${content}\n`));

test("at the same seq, checkManifest accepts a manifest only with the files map last accepted and an iat not lower", async () => {
  const key = await keyOf(new Uint8Array(32).fill(5));
  const keys = keySet([key]);
  /** A manifest of `files`, signed at `iat`, as a build writes one (its payload's members in order). */
  const manifestOf = async (drawn: [string, number][], iat: number) => {
    const files: Record<string, ManifestFile> = {};
    for (const [path, content] of [...drawn].sort(([a], [b]) => (a < b ? -1 : 1))) files[path] = await entryOf(content);
    const payload = { iss: BASE, version: 1, seq: T0, iat, exp: iat + LIFETIME, files };
    return { files, jws: await signGeneral(new TextEncoder().encode(JSON.stringify(payload)), [key], MANIFEST_TYP) };
  };
  // A digest that is not one would switch the check off: refused, as a lastSha256 that is none is.
  const { jws } = await manifestOf([[documentPath(1), 0]], T0);
  for (const lastFilesSha256 of ["x", "0".repeat(63), "A".repeat(64)]) {
    const thrown = await checkManifest(jws, keys, { ...expect1, lastSeq: T0, lastFilesSha256 }).catch((e) => e);
    assert.instance(thrown, TypeError, lastFilesSha256);
  }
  let accepted = 0;
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(
      filesMap,
      filesMap,
      fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: 0, max: 3 }),
      fc.boolean(),
      fc.boolean(),
      async (a, drawn, iatA, iatB, withDocument, again) => {
        // Half the time the same map again: a rebuild that re-signs it.
        const b = again ? a : drawn;
        const first = await manifestOf(a, T0 + iatA);
        const last = await checkManifest(first.jws, keys, { ...expect1, now: T0 });
        assert.ok(last.ok, JSON.stringify(last));
        if (!last.ok) return;
        const second = await manifestOf(b, T0 + iatB);
        // The state as a consumer keeps it, with or without the document's own SHA-256 (the older form).
        const document = last.files[documentPath(1)]?.sha256;
        const result = await checkManifest(second.jws, keys, {
          ...expect1,
          now: T0,
          lastSeq: last.seq,
          lastIat: last.iat,
          lastFilesSha256: last.filesSha256,
          ...(withDocument && document !== undefined ? { lastSha256: document } : {}),
        });
        const same = JSON.stringify(first.files) === JSON.stringify(second.files);
        assert.is(result.ok, same && iatB >= iatA, JSON.stringify(result));
        if (!result.ok) assert.is(result.reason, same ? "rollback" : "equivocation");
        assert.is(last.filesSha256 === (await filesDigest(second.files)), same, "the digest names the map");
        result.ok ? accepted++ : refused++;
      },
    ),
    fcParams,
  );
  assert.ok(accepted > 0 && refused > 0, `accepted ${accepted}, refused ${refused}`);
});

/** One build of a history: its source, its built_at (in hours after T0), and how far the clock moved. */
const step = fc.record({
  variant: fc.constantFrom(0, 1),
  move: fc.integer({ min: -2, max: 3 }),
  clock: fc.integer({ min: -3600, max: 2 * 86400 }),
});

test("seq never decreases along a history of signed builds; the refusals are exactly the signing rules", async () => {
  const pem = pemOf(new Uint8Array(32).fill(9));
  const keys = keySet(await readSigningKeys(pem));
  let n = 0;
  let refused = 0;
  let accepted = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 6 }),
      fc.integer({ min: 0, max: 12 * 3600 }),
      fc.array(step, { minLength: 1, maxLength: 8 }),
      async (start, clock0, steps) => {
        const dir = join(work, `history-${n++}`);
        try {
          let hour = start;
          let now = T0 + clock0;
          let last: { seq: number; iat: number; sha: string; files: string } | undefined;
          for (const { variant, move, clock } of steps) {
            hour = Math.min(HOURS - 1, Math.max(0, hour + move));
            now += clock;
            const served = await buildOf(variant, hour);
            const seq = T0 + hour * 3600;
            const sha = (await fileEntry(served.routes.get(documentPath(1))!.identity.body)).sha256;
            const plan = await prepareSigning({
              env: { REGISTRY_SIGNING_KEY: pem },
              values: {},
              location: dir,
              baseUrl: BASE,
              versions: VERSIONS,
              cwd: work,
              now: () => now,
            });
            assert.ok("ok" in plan && plan.ok !== null, JSON.stringify(plan));
            const plan_ = (plan as { ok: Parameters<typeof signStaged>[2] }).ok;
            // The rules: no built_at past the clock plus 5 minutes; given a previous manifest, no earlier
            // seq, the same seq only with the same document, and no clock before its iat.
            const expected = seq <= now + CLOCK_SKEW_S &&
              (last === undefined || (seq > last.seq || (seq === last.seq && sha === last.sha)) && now >= last.iat);
            const ok = await signStaged(served, join(dir, "static"), plan_).then(() => true, () => false);
            assert.is(ok, expected, `seq ${seq}, now ${now}, last ${JSON.stringify(last)}`);
            if (!ok) {
              refused++;
              continue;
            }
            accepted++;
            const manifest = readFileSync(join(dir, "static", manifestPath(1)));
            // A consumer that accepted the last one accepts this one: no rollback, no equivocation.
            const result = await checkManifest(manifest, keys, {
              baseUrl: BASE,
              version: 1,
              now,
              ...(last === undefined
                ? {}
                : { lastSeq: last.seq, lastIat: last.iat, lastSha256: last.sha, lastFilesSha256: last.files }),
            });
            assert.ok(result.ok, JSON.stringify(result));
            if (!result.ok) return;
            assert.is(result.seq, seq);
            assert.ok(last === undefined || result.seq >= last.seq, "seq went back");
            assert.is(result.files[documentPath(1)]!.sha256, sha);
            last = { seq: result.seq, iat: result.iat, sha, files: result.filesSha256 };
          }
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    ),
    fcParams,
  );
  assert.ok(refused > 0 && accepted > 0, `refused ${refused}, accepted ${accepted}`);
});

test("the same source, key and clock give the same manifest and key set bytes", async () => {
  await fc.assert(
    fc.asyncProperty(
      seed,
      fc.constantFrom(0, 1),
      fc.integer({ min: 0, max: HOURS - 1 }),
      fc.integer({ min: 0, max: 86400 }),
      fc.integer({ min: 1, max: 30 * 86400 }),
      async (key, variant, hour, after, lifetime) => {
        const iat = T0 + hour * 3600 + after;
        const sign = async (build: Build) =>
          (await signBuild(build, [await keyOf(key)], { iat, lifetime })).build.routes;
        const [a, b] = [await sign(await buildOf(variant, hour)), await sign(await otherBuildOf(variant, hour))];
        for (const path of [manifestPath(1), KEYS_PATH]) {
          assert.ok(Buffer.from(a.get(path)!.identity.body).equals(b.get(path)!.identity.body), path);
        }
      },
    ),
    fcParams,
  );
});

test.run();
