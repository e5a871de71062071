/**
 * Ed25519 and JWS general JSON serialization (RFC 7515 §7.2.1, RFC 8037) with `crypto.subtle` only, not `jose`: the
 * consumer kit stays dependency-free. Nothing here puts a private key's bytes in a returned value or a thrown message.
 */
import { isObject } from "../contract/json.ts";

/** A key that signs: its public JWK, its RFC 7638 thumbprint, and the private key (never exported). */
export interface SigningKey {
  readonly kid: string;
  readonly publicJwk: PublicJwk;
  readonly privateKey: CryptoKey;
}

/** A public Ed25519 JWK as a key set lists it. */
export interface PublicJwk {
  readonly kty: "OKP";
  readonly crv: "Ed25519";
  readonly x: string;
  readonly kid: string;
  readonly alg: "EdDSA";
  readonly use: "sig";
}

/** A JWS in general JSON serialization. */
export interface GeneralJws {
  readonly payload: string;
  readonly signatures: readonly { readonly protected: string; readonly signature: string }[];
}

const ED25519 = { name: "Ed25519" } as const;

/** base64url without padding (RFC 7515 §2). */
function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The bytes of base64url text without padding, or null when it is not that. */
function fromBase64url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  // atob takes base64 without its padding (the forgiving decode of the HTML standard).
  const out = Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  // Only the canonical form: no stray bits in the last character.
  return base64url(out) === text ? out : null;
}

/** Standard base64 (with padding), for SRI strings. */
export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** The RFC 7638 thumbprint of an Ed25519 public key: SHA-256 of its required members in order, base64url. */
async function thumbprint(x: string): Promise<string> {
  const canonical = `{"crv":"Ed25519","kty":"OKP","x":"${x}"}`;
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical))));
}

async function publicJwkOf(x: string): Promise<PublicJwk> {
  return { kty: "OKP", crv: "Ed25519", x, kid: await thumbprint(x), alg: "EdDSA", use: "sig" };
}

/** The public JWK Set (RFC 7517) of `keys`, in their order. */
export function keySet(keys: readonly SigningKey[]): { keys: PublicJwk[] } {
  return { keys: keys.map((k) => k.publicJwk) };
}

/** Why a value of keys was refused; the message never quotes the value. */
export class KeyError extends Error {}

/**
 * The signing keys in `text`: one or more PKCS#8 PEM blocks of Ed25519 private keys, or a private Ed25519 JWK, or a JWK
 * Set of them. Each key signs a probe that its public half verifies, so a JWK whose `x` is not its `d`'s is refused.
 * Throws a `KeyError` whose message describes the problem without quoting any of `text`.
 */
export async function readSigningKeys(text: string): Promise<SigningKey[]> {
  const trimmed = text.trim();
  const privates: CryptoKey[] = [];
  const extractable = true; // the public half (x) is read back through the JWK export; `d` is dropped at once
  if (trimmed.startsWith("-----BEGIN")) {
    const blocks = [...trimmed.matchAll(/-----BEGIN ([A-Z ]+)-----([\s\S]*?)-----END ([A-Z ]+)-----/g)];
    const rest = trimmed.replace(/-----BEGIN ([A-Z ]+)-----([\s\S]*?)-----END ([A-Z ]+)-----/g, "").trim();
    // Text starting with a BEGIN line and holding no block is all rest.
    if (rest !== "") throw new KeyError("not a sequence of PEM blocks");
    for (const [, label, body, end] of blocks) {
      if (label !== "PRIVATE KEY" || end !== "PRIVATE KEY") {
        throw new KeyError("a PEM block that is not a PKCS#8 PRIVATE KEY");
      }
      const der = fromBase64((body as string).replace(/\s/g, ""));
      if (der === null) throw new KeyError("a PEM block whose body is not base64");
      privates.push(
        await crypto.subtle.importKey("pkcs8", der, ED25519, extractable, ["sign"]).catch(() => {
          throw new KeyError("a PEM block that is not an Ed25519 private key in PKCS#8");
        }),
      );
    }
  } else if (trimmed.startsWith("{")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      throw new KeyError("not JSON");
    }
    const jwks = isObject(parsed) && Array.isArray(parsed["keys"]) ? parsed["keys"] : [parsed];
    if (jwks.length === 0) throw new KeyError("an empty JWK Set");
    for (const jwk of jwks) {
      if (
        !isObject(jwk) || jwk["kty"] !== "OKP" || jwk["crv"] !== "Ed25519" || typeof jwk["d"] !== "string" ||
        typeof jwk["x"] !== "string"
      ) {
        throw new KeyError("a JWK that is not a private Ed25519 key (kty OKP, crv Ed25519, d, x)");
      }
      privates.push(
        await crypto.subtle.importKey(
          "jwk",
          { kty: "OKP", crv: "Ed25519", d: jwk["d"], x: jwk["x"] },
          ED25519,
          extractable,
          ["sign"],
        ).catch(() => {
          throw new KeyError("a JWK that does not import as an Ed25519 private key");
        }),
      );
    }
  } else {
    throw new KeyError("neither PKCS#8 PEM blocks nor a JWK or JWK Set");
  }
  const keys: SigningKey[] = [];
  for (const privateKey of privates) {
    const exported = await crypto.subtle.exportKey("jwk", privateKey);
    const x = exported.x as string;
    const publicJwk = await publicJwkOf(x);
    const publicKey = await crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x }, ED25519, true, [
      "verify",
    ]);
    const probe = new TextEncoder().encode("registry-manifest key probe");
    const signature = await crypto.subtle.sign(ED25519, privateKey, probe);
    if (!(await crypto.subtle.verify(ED25519, publicKey, signature, probe))) {
      throw new KeyError("a key whose public half (x) is not its private key's");
    }
    if (keys.some((k) => k.kid === publicJwk.kid)) throw new KeyError("the same key twice");
    keys.push({ kid: publicJwk.kid, publicJwk, privateKey });
  }
  return keys;
}

/** A new Ed25519 key: its PKCS#8 PEM text (to write to a private file) and its signing key. */
export async function generateSigningKey(): Promise<{ pem: string; key: SigningKey }> {
  const pair = await crypto.subtle.generateKey(ED25519, true, ["sign", "verify"]) as CryptoKeyPair;
  const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const lines = base64(der).match(/.{1,64}/g) ?? [];
  const pem = `-----BEGIN PRIVATE KEY-----\n${lines.join("\n")}\n-----END PRIVATE KEY-----\n`;
  const [key] = await readSigningKeys(pem);
  return { pem, key: key as SigningKey };
}

/**
 * Signs `payload` with each of `keys`, one signature each, in their order: protected header `{ alg: "EdDSA", kid, typ
 * }`. Ed25519 is deterministic, so the same payload and keys give the same bytes.
 */
export async function signGeneral(payload: Uint8Array, keys: readonly SigningKey[], typ: string): Promise<GeneralJws> {
  const encodedPayload = base64url(payload);
  const signatures = [];
  for (const key of keys) {
    const header = base64url(new TextEncoder().encode(JSON.stringify({ alg: "EdDSA", kid: key.kid, typ })));
    const input = new TextEncoder().encode(`${header}.${encodedPayload}`);
    const signature = new Uint8Array(await crypto.subtle.sign(ED25519, key.privateKey, input));
    signatures.push({ protected: header, signature: base64url(signature) });
  }
  return { payload: encodedPayload, signatures };
}

/** A public key to verify with, from a JWK Set member; undefined when it is not a public Ed25519 JWK. */
export interface VerifyingKey {
  readonly kid: string;
  readonly key: CryptoKey;
}

/**
 * The Ed25519 public keys of a JWK Set (`{ keys: [...] }`) or an array of JWKs, each under its own RFC 7638 thumbprint
 * (a `kid` member that says otherwise is not trusted: the key is skipped). Members that are not Ed25519 public keys are
 * skipped; private members are never read.
 */
export async function verifyingKeys(set: unknown): Promise<VerifyingKey[]> {
  const members = Array.isArray(set) ? set : isObject(set) && Array.isArray(set["keys"]) ? set["keys"] : [];
  const out: VerifyingKey[] = [];
  for (const jwk of members) {
    if (!isObject(jwk) || jwk["kty"] !== "OKP" || jwk["crv"] !== "Ed25519" || typeof jwk["x"] !== "string") continue;
    const x = jwk["x"];
    if (fromBase64url(x)?.length !== 32) continue;
    const kid = await thumbprint(x);
    if (jwk["kid"] !== undefined && jwk["kid"] !== kid) continue;
    const key = await crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x }, ED25519, true, ["verify"])
      .catch(() => undefined);
    if (key !== undefined) out.push({ kid, key });
  }
  return out;
}

/** The most signature entries a manifest may carry: one per key, with room for a rotation or two. */
const MAX_SIGNATURES = 16;

/**
 * The payload bytes of `jws` when at least one signature whose protected header is exactly `{ alg: "EdDSA", kid, typ }`
 * with `kid` among `keys` verifies; others are ignored. `"malformed"` when `jws` is not a general JSON serialization;
 * `"signature"` when none verifies.
 */
export async function verifyGeneral(
  jws: unknown,
  keys: readonly VerifyingKey[],
  typ: string,
): Promise<{ ok: Uint8Array<ArrayBuffer> } | { error: "malformed" | "signature" }> {
  if (!isObject(jws) || typeof jws["payload"] !== "string" || !Array.isArray(jws["signatures"])) {
    return { error: "malformed" };
  }
  const payload = fromBase64url(jws["payload"]);
  // More signatures than keys anyone rotates through is no manifest a build wrote, and each costs a check.
  if (payload === null || jws["signatures"].length > MAX_SIGNATURES) return { error: "malformed" };
  // Each pinned key is tried once: repeated entries under one kid cost nothing more.
  const tried = new Set<string>();
  for (const entry of jws["signatures"] as unknown[]) {
    if (!isObject(entry) || typeof entry["protected"] !== "string" || typeof entry["signature"] !== "string") continue;
    const headerBytes = fromBase64url(entry["protected"]);
    const signature = fromBase64url(entry["signature"]);
    if (headerBytes === null || signature === null) continue;
    let header: unknown;
    try {
      header = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(headerBytes));
    } catch {
      continue;
    }
    if (
      !isObject(header) || header["alg"] !== "EdDSA" || header["typ"] !== typ || typeof header["kid"] !== "string" ||
      Object.keys(header).some((k) => !["alg", "kid", "typ"].includes(k))
    ) continue;
    const key = keys.find((k) => k.kid === header["kid"]);
    if (key === undefined || tried.has(key.kid)) continue;
    tried.add(key.kid);
    const input = new TextEncoder().encode(`${entry["protected"]}.${jws["payload"]}`);
    if (await crypto.subtle.verify(ED25519, key.key, signature, input)) return { ok: payload };
  }
  return { error: "signature" };
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0 || text.length === 0) return null;
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
