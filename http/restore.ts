/** A build as plain data: restoring computes nothing at import (Workers forbid it; Lambda cold starts stay cheap). */
import type { Encoding } from "./encoding.ts";
import type { Build, BuildMeta } from "./table.ts";
import { type Problem, type Resource, selector, type Variant } from "./responses.ts";

/** One variant without its body: the body is `bodies[etag]` of the stamp. */
export interface VariantStamp {
  readonly etag: string;
  readonly ok: Readonly<Record<string, string>>;
  readonly notModified: Readonly<Record<string, string>>;
}

/** One route: its identity variant, the codings on offer, Last-Modified in epoch milliseconds. */
export interface RouteStamp {
  readonly lastModified: number;
  readonly identity: VariantStamp;
  readonly encoded: Readonly<Partial<Record<Encoding, VariantStamp>>>;
}

/** A whole build as JSON-safe data. Bodies are UTF-8 text (identity) or base64 (a coding), by ETag. */
export interface BuildStamp {
  readonly meta: BuildMeta;
  readonly routes: Readonly<Record<string, RouteStamp>>;
  /** Paths past their version's sunset: the 410 problem each answers. */
  readonly gone: Readonly<
    Record<
      string,
      { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly text: string }
    >
  >;
  readonly bodies: Readonly<Record<string, { readonly text: string } | { readonly base64: string }>>;
}

/** The build a stamp describes; bodies are decoded on first use and kept. */
export function restoreBuild(stamp: BuildStamp): Build {
  const decoded = new Map<string, Uint8Array<ArrayBuffer>>();
  const bodyOf = (etag: string): Uint8Array<ArrayBuffer> => {
    let bytes = decoded.get(etag);
    if (bytes === undefined) {
      const body = stamp.bodies[etag];
      if (body === undefined) throw new Error(`the stamp has no body for ETag ${etag}`);
      bytes = "text" in body ? new TextEncoder().encode(body.text) : fromBase64(body.base64);
      if ("text" in body) texts.set(bytes, body.text);
      decoded.set(etag, bytes);
    }
    return bytes;
  };
  const variant = (v: VariantStamp): Variant => ({
    get body() {
      return bodyOf(v.etag);
    },
    etag: v.etag,
    ok: v.ok,
    notModified: v.notModified,
  });
  const routes = new Map<string, Resource>();
  for (const [path, route] of Object.entries(stamp.routes)) {
    const identity = variant(route.identity);
    const encoded: Partial<Record<Encoding, Variant>> = {};
    for (const [coding, v] of Object.entries(route.encoded) as [Encoding, VariantStamp][]) encoded[coding] = variant(v);
    const offered = Object.keys(encoded) as Encoding[];
    routes.set(path, {
      identity,
      encoded,
      lastModified: route.lastModified,
      select: selector(identity, encoded, offered),
    });
  }
  const gone = new Map<string, Problem>();
  for (const [path, p] of Object.entries(stamp.gone)) {
    gone.set(path, { status: p.status, headers: { ...p.headers }, body: new TextEncoder().encode(p.text) });
  }
  return { routes, gone, meta: stamp.meta };
}

const texts = new WeakMap<Uint8Array, string>();

/**
 * The UTF-8 text of a body that is identity JSON: the stamp's own text for a body restored from one, so that Lambda,
 * which sends text, does not decode what it was given as text.
 */
export function textOf(bytes: Uint8Array): string {
  let text = texts.get(bytes);
  if (text === undefined) {
    text = new TextDecoder().decode(bytes);
    texts.set(bytes, text);
  }
  return text;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
