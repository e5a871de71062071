/**
 * The signing primitives one by one, in process and fast (the `signing` mutation group runs this
 * file first): base64 and base64url against RFC 4648's vectors, the RFC 7638 thumbprint and key
 * reading against RFC 8037's Ed25519 key, every refusal of `readSigningKeys` (each message quoting
 * nothing of the value), what `verifyingKeys` skips, and every way `verifyGeneral` ignores an entry
 * or calls a JWS malformed. The laws over generated builds are in signing-laws.test.ts.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  base64,
  generateSigningKey,
  KeyError,
  keySet,
  readSigningKeys,
  signGeneral,
  type SigningKey,
  verifyGeneral,
  verifyingKeys,
} from "../assembly/jws.ts";
import {
  documentPath,
  fileEntry,
  KEYS_MEDIA_TYPE,
  KEYS_PATH,
  MANIFEST_MEDIA_TYPE,
  MANIFEST_TYP,
  manifestPath,
  signBuild,
} from "../assembly/manifest.ts";
import { prepareBuild } from "../assembly/prepare.ts";
import { zlibCompress } from "../node/common/compress.ts";
import { problem } from "../http/responses.ts";
import { LIFECYCLE_DATES, TEST_TABLE } from "./v2.ts";
import { type Source, validateSource } from "../registry.ts";
import { checkManifest, fileMatches, filesDigest, type ManifestExpectation } from "../client/client.ts";

/** RFC 8037 appendix A.1: an Ed25519 private key, and (A.3) its RFC 7638 thumbprint. */
const D = "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A";
const X = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";
const KID = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k";
const JWK = { kty: "OKP", crv: "Ed25519", d: D, x: X };
const bytes = (...values: number[]) => new Uint8Array(values);
/** base64url without padding, and back, by Node's own codec: what jws.ts's output is checked against. */
const base64url = (data: Uint8Array) => Buffer.from(data).toString("base64url");
const fromBase64url = (encoded: string) => new Uint8Array(Buffer.from(encoded, "base64url"));
/** RFC 7638's thumbprint of an Ed25519 public key, by Node's own hash and codec: what `kid` is checked against. */
const thumbprint = (x: string) =>
  createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest("base64url");
const text = (value: string) => new TextEncoder().encode(value);

/** The `KeyError` message `readSigningKeys(value)` throws; fails when it returns or throws anything else. */
async function refusal(value: string): Promise<string> {
  try {
    await readSigningKeys(value);
  } catch (error) {
    assert.instance(error, KeyError);
    const message = (error as Error).message;
    assert.not.ok(message.includes(D), "the message quotes no private value");
    return message;
  }
  assert.unreachable("readSigningKeys accepted the value");
  return "";
}

/** `der` as one PEM block with `label`, its body broken at 64 characters. */
const pem = (der: Uint8Array, label = "PRIVATE KEY") =>
  `-----BEGIN ${label}-----\n${base64(der).match(/.{1,64}/g)?.join("\n")}\n-----END ${label}-----\n`;

/** A fresh key and its PKCS#8 DER. */
async function fresh(): Promise<{ pem: string; key: SigningKey; der: Uint8Array }> {
  const made = await generateSigningKey();
  const body = made.pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
  return { ...made, der: Uint8Array.from(atob(body), (c) => c.charCodeAt(0)) };
}

test("base64 and base64url: RFC 4648's vectors, and only canonical base64url decodes", async () => {
  assert.is(base64(text("foobar")), "Zm9vYmFy");
  assert.is(base64(text("fo")), "Zm8=");
  assert.is(base64(bytes(0xfb, 0xff)), "+/8=");
  // base64url as a JWS carries its payload: signed, the vector; verified, the bytes back.
  const [key] = await readSigningKeys(JSON.stringify(JWK));
  const keys = await verifyingKeys([key!.publicJwk]);
  const vectors: [Uint8Array, string][] = [
    [bytes(0xfb, 0xff), "-_8"],
    [bytes(0xfb, 0xef, 0xff), "--__"],
    [text("f"), "Zg"],
    [text("fo"), "Zm8"],
    [bytes(), ""],
  ];
  for (const [data, encoded] of vectors) {
    const jws = await signGeneral(data, [key!], "t");
    assert.is(jws.payload, encoded);
    assert.equal(await verifyGeneral(jws, keys, "t"), { ok: new Uint8Array(data) }, encoded);
  }
  // A payload that is not canonical base64url is malformed; a canonical one is read (and finds no signature).
  for (const bad of ["Z", "Zm9vY", "Zg==", "Zm8=", "+/8", "Zg ", "Zh", "Zm9"]) {
    assert.equal(await verifyGeneral({ payload: bad, signatures: [] }, keys, "t"), { error: "malformed" }, bad);
  }
  assert.equal(await verifyGeneral({ payload: "Zm8", signatures: [] }, keys, "t"), { error: "signature" });
});

test("thumbprint and key reading: RFC 8037's key gives its thumbprint, kid and public JWK", async () => {
  assert.is(thumbprint(X), KID);
  const [key, ...rest] = await readSigningKeys(JSON.stringify(JWK));
  assert.is(rest.length, 0);
  assert.is(key!.kid, KID);
  assert.equal(key!.publicJwk, { kty: "OKP", crv: "Ed25519", x: X, kid: KID, alg: "EdDSA", use: "sig" });
  assert.is(JSON.stringify(keySet([key!])), JSON.stringify({ keys: [key!.publicJwk] }));
  // White space around the value, a JWK Set, and extra members are all read.
  const set = await readSigningKeys(`\n  ${JSON.stringify({ keys: [{ ...JWK, use: "sig", kid: "any" }] })}\n`);
  assert.equal(set.map((k) => k.kid), [KID]);
});

test("readSigningKeys: PEM blocks, one key each, in order; a generated key reads back as itself", async () => {
  const [a, b] = [await fresh(), await fresh()];
  assert.is(a.key.kid, thumbprint(a.key.publicJwk.x));
  const [again] = await readSigningKeys(a.pem);
  assert.is(again!.kid, a.key.kid);
  // RFC 7468's form: the body in lines of at most 64 characters (an Ed25519 PKCS#8 key: one line of 64).
  const lines = a.pem.split("\n");
  assert.equal([lines[0], lines.at(-2), lines.at(-1)], [
    "-----BEGIN PRIVATE KEY-----",
    "-----END PRIVATE KEY-----",
    "",
  ]);
  assert.equal(lines.slice(1, -2).map((line) => line.length), [64]);
  const two = await readSigningKeys(`${a.pem}\n${pem(b.der)}`);
  assert.equal(two.map((k) => k.kid), [a.key.kid, b.key.kid]);
  // The body's line breaks and indentation are not part of the base64.
  const indented = a.pem.replace(/\n(?!-)/g, "\n   ");
  assert.equal((await readSigningKeys(indented)).map((k) => k.kid), [a.key.kid]);
});

test("readSigningKeys: every refusal names the problem and quotes none of the value", async () => {
  const { der, pem: text } = await fresh();
  const cases: [string, string][] = [
    ["hello", "neither PKCS#8 PEM blocks nor a JWK or JWK Set"],
    ["", "neither PKCS#8 PEM blocks nor a JWK or JWK Set"],
    [`{"d":"${D}"`, "not JSON"],
    ['{"keys":[]}', "an empty JWK Set"],
    [JSON.stringify({ ...JWK, kty: "EC" }), "a JWK that is not a private Ed25519 key (kty OKP, crv Ed25519, d, x)"],
    [JSON.stringify({ ...JWK, crv: "X25519" }), "a JWK that is not a private Ed25519 key (kty OKP, crv Ed25519, d, x)"],
    [JSON.stringify({ ...JWK, d: 1 }), "a JWK that is not a private Ed25519 key (kty OKP, crv Ed25519, d, x)"],
    [JSON.stringify({ ...JWK, x: undefined }), "a JWK that is not a private Ed25519 key (kty OKP, crv Ed25519, d, x)"],
    [JSON.stringify({ keys: [JWK, "key"] }), "a JWK that is not a private Ed25519 key (kty OKP, crv Ed25519, d, x)"],
    [JSON.stringify({ ...JWK, d: `${D.slice(0, -2)}AA` }), "a JWK that does not import as an Ed25519 private key"],
    [JSON.stringify({ keys: [JWK, JWK] }), "the same key twice"],
    [`${text}${text}`, "the same key twice"],
    ["-----BEGIN PRIVATE KEY-----\nAAAA", "not a sequence of PEM blocks"],
    [`${text}trailing`, "not a sequence of PEM blocks"],
    [pem(der, "PUBLIC KEY"), "a PEM block that is not a PKCS#8 PRIVATE KEY"],
    [
      pem(der).replace("-----END PRIVATE KEY-----", "-----END PUBLIC KEY-----"),
      "a PEM block that is not a PKCS#8 PRIVATE KEY",
    ],
    [pem(der, "EC PRIVATE KEY"), "a PEM block that is not a PKCS#8 PRIVATE KEY"],
    [
      pem(der, "PUBLIC KEY").replace("-----END PUBLIC KEY-----", "-----END PRIVATE KEY-----"),
      "a PEM block that is not a PKCS#8 PRIVATE KEY",
    ],
    ["-----BEGIN PRIVATE KEY-----\n%%%%\n-----END PRIVATE KEY-----", "a PEM block whose body is not base64"],
    ["-----BEGIN PRIVATE KEY-----\nAAA\n-----END PRIVATE KEY-----", "a PEM block whose body is not base64"],
    ["-----BEGIN PRIVATE KEY-----\n\n-----END PRIVATE KEY-----", "a PEM block whose body is not base64"],
    [
      "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
      "a PEM block that is not an Ed25519 private key in PKCS#8",
    ],
  ];
  for (const [value, message] of cases) assert.is(await refusal(value), message, value.slice(0, 60));
});

test("signGeneral: one entry per key in order, each header exactly { alg, kid, typ }, verifying; the same input gives the same bytes", async () => {
  const [a, b] = [(await fresh()).key, (await fresh()).key];
  const payload = text('{"seq":1}');
  const jws = await signGeneral(payload, [a, b], "registry-manifest");
  assert.is(jws.payload, base64url(payload));
  assert.is(jws.signatures.length, 2);
  for (const [i, key] of [a, b].entries()) {
    const entry = jws.signatures[i]!;
    const header = new TextDecoder().decode(fromBase64url(entry.protected)!);
    assert.is(header, JSON.stringify({ alg: "EdDSA", kid: key.kid, typ: "registry-manifest" }));
    const publicKey = await crypto.subtle.importKey(
      "jwk",
      { kty: "OKP", crv: "Ed25519", x: key.publicJwk.x },
      {
        name: "Ed25519",
      },
      true,
      ["verify"],
    );
    const input = text(`${entry.protected}.${jws.payload}`);
    assert.ok(await crypto.subtle.verify({ name: "Ed25519" }, publicKey, fromBase64url(entry.signature)!, input));
  }
  assert.equal(await signGeneral(payload, [a, b], "registry-manifest"), jws);
  assert.equal(await verifyGeneral(jws, await verifyingKeys(keySet([b])), "registry-manifest"), { ok: payload });
});

test("verifyingKeys: each Ed25519 public key under its thumbprint; everything else skipped", async () => {
  const a = (await fresh()).key;
  const jwk = a.publicJwk;
  assert.equal((await verifyingKeys({ keys: [jwk] })).map((k) => k.kid), [a.kid]);
  assert.equal((await verifyingKeys([jwk])).map((k) => k.kid), [a.kid], "an array of JWKs");
  const { kid: _kid, ...noKid } = jwk;
  assert.equal((await verifyingKeys([noKid])).map((k) => k.kid), [a.kid], "no kid: the thumbprint");
  const skipped = [
    "key",
    null,
    { ...jwk, kty: "EC" },
    { ...jwk, crv: "Ed448" },
    { ...jwk, x: 7 },
    { ...jwk, x: "AAAA" },
    { ...jwk, x: `${jwk.x}AA` },
    { ...jwk, x: "not base64url!" },
    { ...jwk, kid: KID },
  ];
  for (const member of skipped) assert.equal(await verifyingKeys([member]), [], JSON.stringify(member));
  for (const set of [null, "keys", {}, { keys: "x" }, 7]) assert.equal(await verifyingKeys(set), [], String(set));
  assert.equal((await verifyingKeys({ keys: [...skipped, jwk] })).map((k) => k.kid), [a.kid], "the rest still read");
});

test("verifyGeneral: a malformed JWS, and every entry it ignores", async () => {
  const a = (await fresh()).key;
  const keys = await verifyingKeys(keySet([a]));
  const payload = text('{"seq":2}');
  const good = await signGeneral(payload, [a], "t");
  const entry = good.signatures[0]!;
  const verdict = (jws: unknown, typ = "t") => verifyGeneral(jws, keys, typ);
  assert.equal(await verdict(good), { ok: payload });
  for (
    const jws of [
      null,
      "jws",
      { payload: 7, signatures: [entry] },
      { payload: good.payload },
      { payload: good.payload, signatures: {} },
      { payload: `${good.payload}!`, signatures: [entry] },
      { payload: good.payload, signatures: Array(17).fill(entry) },
    ]
  ) assert.equal(await verdict(jws), { error: "malformed" }, JSON.stringify(jws)?.slice(0, 80));
  assert.equal(await verdict({ payload: good.payload, signatures: [...Array(15).fill("x"), entry] }), { ok: payload });
  assert.equal(await verdict(good, "other"), { error: "signature" }, "another typ");
  assert.equal(await verifyGeneral(good, [], "t"), { error: "signature" }, "no key");
  const header = (value: unknown) => base64url(text(JSON.stringify(value)));
  const resigned = async (protectedHeader: string) => {
    const input = text(`${protectedHeader}.${good.payload}`);
    return base64url(new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, a.privateKey, input)));
  };
  const ignored: unknown[] = [
    "entry",
    { protected: 7, signature: entry.signature },
    { protected: entry.protected, signature: 7 },
    { protected: `${entry.protected}!`, signature: entry.signature },
    { protected: entry.protected, signature: `${entry.signature}!` },
  ];
  for (
    const value of [
      { alg: "EdDSA", kid: a.kid, typ: "t", crit: ["x"] },
      { alg: "none", kid: a.kid, typ: "t" },
      { alg: "EdDSA", kid: a.kid },
      { alg: "EdDSA", kid: 7, typ: "t" },
      { alg: "EdDSA", kid: KID, typ: "t" },
      ["EdDSA", a.kid, "t"],
    ]
  ) {
    const signedHeader = header(value);
    ignored.push({ protected: signedHeader, signature: await resigned(signedHeader) });
  }
  const notJson = base64url(text("{alg"));
  ignored.push({ protected: notJson, signature: await resigned(notJson) });
  const notUtf8 = base64url(bytes(0xff, 0xfe));
  ignored.push({ protected: notUtf8, signature: await resigned(notUtf8) });
  for (const value of ignored) {
    assert.equal(
      await verdict({ payload: good.payload, signatures: [value] }),
      { error: "signature" },
      JSON.stringify(value),
    );
    assert.equal(
      await verdict({ payload: good.payload, signatures: [value, entry] }),
      { ok: payload },
      "then a good one",
    );
  }
  // Each key is tried once: a bad entry under a kid uses that key up, however many follow.
  // Its first character changed (a signature ending in "AA" already made the old "AA" ending no change: 1 run in 256).
  const bad = {
    protected: entry.protected,
    signature: `${entry.signature.startsWith("A") ? "B" : "A"}${entry.signature.slice(1)}`,
  };
  assert.equal(await verdict({ payload: good.payload, signatures: [bad, entry] }), { error: "signature" });
});

test("fileEntry: the SHA-256 in hex, the size and the SRI string of FIPS 180's 'abc'", async () => {
  assert.equal(await fileEntry(text("abc")), {
    sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    size: 3,
    integrity: "sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=",
  });
  assert.equal((await fileEntry(new Uint8Array(0))).size, 0);
});

/** A manifest whose payload is `payload` as given (any value), signed by `key`. */
async function manifestOf(payload: unknown, key: SigningKey, raw?: Uint8Array) {
  return await signGeneral(raw ?? text(JSON.stringify(payload)), [key], MANIFEST_TYP);
}

test("checkManifest: every refusal with its reason and detail, each bound exactly at its edge", async () => {
  const key = (await fresh()).key;
  const keys = keySet([key]);
  const entry = await fileEntry(text("{}"));
  const files = { "/api/registry.v1.json": entry, "/vaults.json": entry };
  const good = { iss: "https://r.example", version: 1, seq: 1000, iat: 1000, exp: 2000, files };
  const base = { baseUrl: "https://r.example", version: 1, now: 1500 };
  const verdict = async (payload: unknown, expect: Partial<ManifestExpectation> = {}) =>
    await checkManifest(await manifestOf(payload, key), keys, { ...base, ...expect });
  const refused = async (payload: unknown, expect: Partial<ManifestExpectation> = {}) => {
    const result = await verdict(payload, expect);
    return result.ok ? "accepted" : `${result.reason}: ${result.detail}`;
  };
  const accepted = await verdict(good);
  assert.equal(accepted, { ok: true, seq: 1000, iat: 1000, exp: 2000, files, filesSha256: await filesDigest(files) });
  // The same manifest as text and as bytes; a trailing slash on the base URL.
  const jws = await manifestOf(good, key);
  assert.equal(await checkManifest(JSON.stringify(jws), keys, base), accepted);
  assert.equal(
    await checkManifest(text(JSON.stringify(jws)), keys, { ...base, baseUrl: "https://r.example/" }),
    accepted,
  );
  assert.equal(await checkManifest(bytes(0xff), keys, base), { ok: false, reason: "malformed", detail: "not JSON" });
  // Bytes are UTF-8 or nothing: JSON holding a byte that is not is not read as U+FFFD.
  const stray = new Uint8Array([...text('{"payload":"'), 0xff, ...text('","signatures":[]}')]);
  assert.equal(await checkManifest(stray, keys, base), { ok: false, reason: "malformed", detail: "not JSON" });
  assert.equal(await checkManifest(jws, keys, { ...base, baseUrl: "https://r.example//" }), accepted, "slashes");
  assert.equal(await checkManifest("{", keys, base), { ok: false, reason: "malformed", detail: "not JSON" });
  assert.equal(await checkManifest({ payload: 1 }, keys, base), {
    ok: false,
    reason: "malformed",
    detail: "not a JWS in general JSON serialization",
  });
  assert.equal(await checkManifest(jws, { keys: [] }, base), {
    ok: false,
    reason: "signature",
    detail: "no signature by a pinned key verifies (alg EdDSA, typ registry-manifest)",
  });
  const notJson = await checkManifest(await manifestOf(null, key, text("{")), keys, base);
  assert.equal(notJson, { ok: false, reason: "malformed", detail: "a payload that is not JSON" });
  const notUtf8 = await checkManifest(await manifestOf(null, key, bytes(0x22, 0xff, 0x22)), keys, base);
  assert.equal(notUtf8, { ok: false, reason: "malformed", detail: "a payload that is not JSON" });
  const shapeless = "malformed: a payload without iss, version, seq, iat, exp and files";
  const bad = (sha256: string, size: number, integrity = entry.integrity) => ({ x: { sha256, size, integrity } });
  for (
    const payload of [
      [good],
      { ...good, iss: 1 },
      { ...good, version: 1.5 },
      { ...good, version: "1" },
      { ...good, seq: -1 },
      { ...good, seq: 1.5 },
      { ...good, iat: "1000" },
      { ...good, iat: -1 },
      { ...good, exp: undefined },
      { ...good, exp: -1 },
      { ...good, files: [] },
      { ...good, files: null },
      { ...good, files: { x: "entry" } },
      { ...good, files: { x: null } },
      { ...good, files: { x: { ...entry, sha256: [entry.sha256] } } },
      { ...good, files: bad(entry.sha256.toUpperCase(), entry.size) },
      { ...good, files: bad(entry.sha256.slice(1), entry.size) },
      { ...good, files: bad(`${entry.sha256}0`, entry.size) },
      { ...good, files: bad(entry.sha256, -1) },
      { ...good, files: bad(entry.sha256, 1.5) },
      { ...good, files: bad(entry.sha256, entry.size, `sha256-${entry.integrity}`) },
      { ...good, files: { x: { sha256: entry.sha256, integrity: entry.integrity } } },
      { ...good, files: { x: { size: 2, integrity: entry.integrity } } },
    ]
  ) assert.is(await refused(payload), shapeless, JSON.stringify(payload));
  assert.is(await refused({ ...good, files: {} }), "accepted", "an empty files map is a map");
  assert.is(await refused({ ...good, files: bad(entry.sha256, 0) }), "accepted", "size 0");
  assert.is(
    await refused({ ...good, iss: "https://r.example/" }),
    "issuer: signed for https://r.example/ v1, expected https://r.example v1",
  );
  assert.is(
    await refused({ ...good, version: 2 }),
    "issuer: signed for https://r.example v2, expected https://r.example v1",
  );
  assert.is(
    await refused(good, { version: 2 }),
    "issuer: signed for https://r.example v1, expected https://r.example v2",
  );
  assert.is(await refused({ ...good, seq: 1301 }), "malformed: seq 1301 later than iat 1000 plus 5 minutes");
  assert.is(await refused({ ...good, seq: 1300 }), "accepted");
  assert.is(await refused({ ...good, exp: 999 }), "malformed: exp 999 before iat 1000");
  assert.is(await refused({ ...good, exp: 1000 }, { now: 1000 }), "accepted");
  assert.is(await refused(good, { lastSeq: 1001 }), "rollback: seq 1000 is lower than the last accepted, 1001");
  assert.is(await refused(good, { lastSeq: 999, lastSha256: "0".repeat(64), lastIat: 2000 }), "accepted");
  const other = (await fileEntry(text("[]"))).sha256;
  assert.is(
    await refused(good, { lastSeq: 1000, lastSha256: other }),
    "equivocation: seq 1000 again, with another document than the one last accepted",
  );
  assert.is(await refused(good, { lastSeq: 1000, lastSha256: entry.sha256 }), "accepted");
  assert.is(
    await refused(good, { lastSeq: 1000, lastFilesSha256: other }),
    "equivocation: seq 1000 again, with other files than the ones last accepted",
  );
  assert.is(
    await refused(good, { lastSeq: 1000, lastFilesSha256: accepted.ok ? accepted.filesSha256 : "" }),
    "accepted",
  );
  assert.is(
    await refused(good, { lastSeq: 1000, lastIat: 1001 }),
    "rollback: seq 1000 again, signed at 1000, before the last accepted (1001)",
  );
  assert.is(await refused(good, { lastSeq: 1000, lastIat: 1000 }), "accepted");
  assert.is(await refused(good, { now: 2301 }), "expired: expired at 2000, now 2301: a frozen deployment?");
  assert.is(await refused(good, { now: 2300 }), "accepted");
  assert.is(await refused(good, { now: null }), "accepted", "null judges no age");
  assert.is(await refused({ ...good, iat: 5000, exp: 6000 }, { now: null }), "accepted", "nor the signing time");
  assert.is(await refused(good, { now: 699 }), "malformed: signed at 1000, after now (699) plus 5 minutes");
  assert.is(await refused(good, { now: 700 }), "accepted");
  // Without now, the clock: a manifest that expired in 1970 is expired today.
  const today = await checkManifest(jws, keys, { baseUrl: base.baseUrl, version: 1 });
  assert.match(today.ok ? "" : today.detail, /^expired at 2000, now \d{10}: a frozen deployment\?$/);
});

test("checkManifest: an expectation that is not whole seconds or 64 lowercase hex digits is a TypeError, not a switched-off check", async () => {
  const key = (await fresh()).key;
  const jws = await manifestOf({}, key);
  const base = { baseUrl: "https://r.example", version: 1 };
  const cases: [Partial<ManifestExpectation>, string][] = [
    [{ lastSeq: Number.NaN }, "checkManifest: expect.lastSeq is not whole seconds"],
    [{ lastSeq: 1.5 }, "checkManifest: expect.lastSeq is not whole seconds"],
    [{ lastSeq: "1" as unknown as number }, "checkManifest: expect.lastSeq is not whole seconds"],
    [{ lastIat: Infinity }, "checkManifest: expect.lastIat is not whole seconds"],
    [{ now: Number.NaN }, "checkManifest: expect.now is not whole seconds"],
    [{ lastSha256: "A".repeat(64) }, "checkManifest: expect.lastSha256 is not 64 lowercase hex digits"],
    [{ lastSha256: "a".repeat(63) }, "checkManifest: expect.lastSha256 is not 64 lowercase hex digits"],
    [{ lastSha256: `x${"a".repeat(64)}` }, "checkManifest: expect.lastSha256 is not 64 lowercase hex digits"],
    [
      { lastFilesSha256: `${"a".repeat(64)}\n` },
      "checkManifest: expect.lastFilesSha256 is not 64 lowercase hex digits",
    ],
  ];
  for (const [expect, message] of cases) {
    try {
      await checkManifest(jws, keySet([key]), { ...base, ...expect });
      assert.unreachable(message);
    } catch (error) {
      assert.instance(error, TypeError);
      assert.is((error as Error).message, message);
    }
  }
});

test("filesDigest and fileMatches: the canonical form's digest, whatever the order; a file matches only its own listing", async () => {
  const [a, b] = [await fileEntry(text("a")), await fileEntry(text("bb"))];
  const canonical =
    `{"/a":{"integrity":"${a.integrity}","sha256":"${a.sha256}","size":1},"/b":{"integrity":"${b.integrity}","sha256":"${b.sha256}","size":2}}`;
  const expected = (await fileEntry(text(canonical))).sha256;
  assert.is(await filesDigest({ "/a": a, "/b": b }), expected);
  assert.is(await filesDigest({ "/b": { size: 2, sha256: b.sha256, integrity: b.integrity }, "/a": a }), expected);
  assert.is.not(await filesDigest({ "/a": a }), expected);
  assert.is(await filesDigest({}), (await fileEntry(text("{}"))).sha256);
  const files = { "/a": a, "/b": b };
  assert.ok(await fileMatches(files, "/a", text("a")));
  assert.not.ok(await fileMatches(files, "/a", text("b")), "same size, other bytes");
  assert.not.ok(await fileMatches(files, "/b", text("a")), "another size");
  assert.not.ok(await fileMatches(files, "/c", text("a")), "not listed");
  assert.not.ok(await fileMatches(files, "toString", text("a")), "not listed: an inherited member");
  assert.not.ok(await fileMatches({ "/a": { ...a, size: 2 } }, "/a", text("a")), "the size is checked");
});

test("signBuild: a manifest per version listing every file of it exactly, signed by each key; the key set; every other answer the same object", async () => {
  const checked = validateSource(JSON.parse(new TextDecoder().decode(await readFile("fixtures/registry.json"))));
  assert.ok(checked.ok);
  const build = await prepareBuild(checked.source as Source, {
    baseUrl: "https://r.example/base",
    builtAt: "2026-11-21T12:00:30Z",
  });
  const [a, b] = [(await fresh()).key, (await fresh()).key];
  try {
    await signBuild(build, [], { iat: 1, lifetime: 1 });
    assert.unreachable("no key");
  } catch (error) {
    assert.is((error as Error).message, "signBuild: no key");
  }
  const { build: signed, manifests } = await signBuild(build, [a, b], { iat: 1795270000, lifetime: 600 });
  assert.equal([...manifests.keys()], [1]);
  const { payload, bytes: manifestBytes } = manifests.get(1)!;
  const listed = [...build.routes.keys()].filter((p) => p.startsWith("/api/registry.v1.") || p === "/vaults.json");
  assert.equal(Object.keys(payload.files), [...listed].sort(), "every file of v1 and /vaults.json, sorted");
  for (const path of listed) assert.equal(payload.files[path], await fileEntry(build.routes.get(path)!.identity.body));
  assert.is(
    JSON.stringify({ ...payload, files: {} }),
    '{"iss":"https://r.example/base","version":1,"seq":1795262430,"iat":1795270000,"exp":1795270600,"files":{}}',
  );
  const jws = JSON.parse(new TextDecoder().decode(manifestBytes));
  assert.is(new TextDecoder().decode(manifestBytes), `${JSON.stringify(jws, null, 2)}\n`);
  assert.equal(jws.signatures.length, 2);
  for (const key of [a, b]) {
    const verified = await verifyGeneral(jws, await verifyingKeys(keySet([key])), MANIFEST_TYP);
    assert.equal(verified, { ok: text(JSON.stringify(payload)) });
  }
  const manifest = signed.routes.get(manifestPath(1))!;
  assert.equal(manifest.identity.body, manifestBytes);
  assert.is(manifest.identity.ok["content-type"], MANIFEST_MEDIA_TYPE);
  assert.is(manifest.lastModified, 1795270000 * 1000, "Last-Modified: the signing time");
  const keysAnswer = signed.routes.get(KEYS_PATH)!;
  assert.is(new TextDecoder().decode(keysAnswer.identity.body), `${JSON.stringify(keySet([a, b]), null, 2)}\n`);
  assert.is(keysAnswer.identity.ok["content-type"], KEYS_MEDIA_TYPE);
  assert.is(keysAnswer.lastModified, 1795270000 * 1000);
  assert.equal([...signed.routes.keys()].sort(), [...build.routes.keys(), manifestPath(1), KEYS_PATH].sort());
  for (const [path, resource] of build.routes) assert.is(signed.routes.get(path), resource, path);
  assert.is(signed.meta, build.meta);
  assert.ok(build.routes.has(documentPath(1)) && !build.routes.has(manifestPath(1)), "the build given is not changed");
});

test("signBuild across versions: each manifest lists its own version's files (and /vaults.json where it is canonical), sorted; a deprecated version's signals; a gone version's manifest is gone too; versions by number", async () => {
  const checked = validateSource(JSON.parse(new TextDecoder().decode(await readFile("fixtures/registry.json"))));
  assert.ok(checked.ok);
  const source = checked.source as Source;
  const [key] = [(await fresh()).key];
  const at = (name: string) => LIFECYCLE_DATES.find((d) => d.name === name)!.builtAt;
  const options = { iat: 1830000000, lifetime: 600, compression: { compress: zlibCompress } };
  const listing = (signed: Awaited<ReturnType<typeof signBuild>>, n: number) =>
    Object.keys(signed.manifests.get(n)!.payload.files);
  const pathsOf = (build: { routes: ReadonlyMap<string, unknown> }, n: number) =>
    [...build.routes.keys()].filter((p) => p.startsWith(`/api/registry.v${n}.`)).sort();
  // Day 89: v1 canonical and deprecated, v2 served; the routes given in reverse, so order is the signer's own.
  const day89 = await prepareBuild(source, { baseUrl: "https://r.example", builtAt: at("3-day-89") }, {}, TEST_TABLE);
  const reversed = { ...day89, routes: new Map([...day89.routes].reverse()) };
  const signed = await signBuild(reversed, [key], options);
  assert.equal([...signed.manifests.keys()], [1, 2]);
  assert.equal(listing(signed, 1), [...pathsOf(day89, 1), "/vaults.json"].sort());
  assert.equal(listing(signed, 2), pathsOf(day89, 2));
  assert.equal([...signed.build.routes.keys()].slice(-3), [manifestPath(1), manifestPath(2), KEYS_PATH]);
  const v1 = day89.routes.get(documentPath(1))!.identity.ok;
  assert.ok(v1["deprecation"] !== undefined && v1["sunset"] !== undefined, "v1 is deprecated on day 89");
  for (const n of [1, 2]) {
    const manifest = signed.build.routes.get(manifestPath(n))!;
    const doc = day89.routes.get(documentPath(n))!.identity.ok;
    assert.is(manifest.identity.ok["deprecation"], doc["deprecation"], `v${n} deprecation`);
    assert.is(manifest.identity.ok["sunset"], doc["sunset"], `v${n} sunset`);
    assert.is(manifest.identity.ok["link"], undefined, "no other header of the document's");
    assert.equal(Object.keys(manifest.encoded).sort(), ["br", "gzip"], "compressed as the build is");
  }
  assert.equal(Object.keys(signed.build.routes.get(KEYS_PATH)!.encoded).sort(), ["br", "gzip"]);
  // Signing a signed build again: a manifest never lists itself.
  const again = await signBuild(signed.build, [key], options);
  assert.equal(listing(again, 1), listing(signed, 1));
  // Day 90: /vaults.json is v2's.
  const day90 = await signBuild(
    await prepareBuild(source, { baseUrl: "https://r.example", builtAt: at("4-day-90") }, {}, TEST_TABLE),
    [key],
    options,
  );
  assert.ok(!listing(day90, 1).includes("/vaults.json") && listing(day90, 2).includes("/vaults.json"));
  // Past v1's sunset: v1's manifest answers 410 with the rest of v1.
  const sunset = await prepareBuild(
    source,
    { baseUrl: "https://r.example", builtAt: at("5-v1-sunset") },
    {},
    TEST_TABLE,
  );
  const after = await signBuild(sunset, [key], options);
  assert.equal([...after.manifests.keys()], [2]);
  assert.is(after.build.gone.get(manifestPath(1))?.status, 410);
  assert.equal(
    [...after.build.gone.keys()].filter((p) => !sunset.gone.has(p)),
    [manifestPath(1)],
    "only the gone version's manifest is added",
  );
  // A file belongs to version N by its path's start, /api/registry.v{N}., exactly: N of any length,
  // and nothing that only ends or starts like a document is a version.
  const document = day89.routes.get(documentPath(1))!;
  const odd = {
    ...day89,
    routes: new Map([
      ...day89.routes,
      ["/api/registry.v10.json", document],
      ["/old/api/registry.v3.json", document],
      ["/api/registry.v4.json.bak", document],
      ["/api/registry.vx.json", document],
    ]),
    gone: new Map([...day89.gone, ["/old/api/registry.v5.json", problem(410, "Gone")]]),
  };
  const oddSigned = await signBuild(odd, [key], options);
  assert.equal([...oddSigned.manifests.keys()], [1, 2, 10]);
  assert.equal(listing(oddSigned, 10), ["/api/registry.v10.json"]);
  assert.is(oddSigned.build.gone.has(manifestPath(5)), false);
});

test.run();
