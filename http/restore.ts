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

/**
 * A body kept out of the stamp's data: the `at`th of the bodies in `BuildStamp.embedded`, UTF-8 text (identity) or, when
 * `base64`, a coding's bytes in base64.
 */
export interface EmbeddedBody {
  readonly at: number;
  readonly base64?: true;
}

/**
 * Bodies held as the comments of one function's source text (`node/builder/bundle.ts` writes them so): a JavaScript
 * parser skips a comment far faster than it reads a string literal of the same length, so a bundle that embeds them
 * this way starts sooner. Each body is a run of `/*...*\/` comments, bodies one after the other, with `joins[i]` the
 * text that goes between the comments of body `i`: what a comment cannot hold (`*\/`) or is kept out of the file so
 * that it stays ASCII (every non-ASCII character), which the parser reads faster still.
 */
export interface EmbeddedBodies {
  /** The function whose source text holds the comments: `function name(){/*...*\/...}`. */
  readonly source: () => void;
  /** The length of that source text: another (a bundle minified again, its comments dropped) is refused. */
  readonly length: number;
  readonly joins: readonly (readonly string[])[];
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

/** A stamp as a bundle holds it: bodies in its data, or embedded (`EmbeddedBodies`). */
export interface BundledStamp extends Omit<BuildStamp, "bodies"> {
  readonly bodies: Readonly<Record<string, BuildStamp["bodies"][string] | { readonly embedded: EmbeddedBody }>>;
  /** Where the `embedded` bodies are. */
  readonly embedded?: EmbeddedBodies;
}

/** The build a stamp describes; bodies are decoded on first use and kept. */
export function restoreBuild(stamp: BundledStamp, options: { readonly eager?: boolean } = {}): Build {
  const decoded = new Map<string, Uint8Array<ArrayBuffer>>();
  // Checked now, so that a bundle whose comments were dropped fails at import, not at its first request.
  const embedded = stamp.embedded === undefined ? undefined : embeddedTexts(stamp.embedded);
  // `eager`: every comment read now (a server about to listen), so that an edited file fails before it says it serves.
  if (options.eager === true) embedded?.();
  /** A body as the stamp holds it: UTF-8 text, or base64. */
  const contentOf = (etag: string): { readonly text: string } | { readonly base64: string } => {
    const body = stamp.bodies[etag];
    if (body === undefined) throw new Error(`the stamp has no body for ETag ${etag}`);
    if (!("embedded" in body)) return body;
    const text = embedded?.()[body.embedded.at];
    if (text === undefined) throw new Error(`the stamp has no embedded body for ETag ${etag}`);
    return body.embedded.base64 === true ? { base64: text } : { text };
  };
  const bodyOf = (etag: string): Uint8Array<ArrayBuffer> => {
    let bytes = decoded.get(etag);
    if (bytes === undefined) {
      const content = contentOf(etag);
      if ("text" in content) {
        bytes = new TextEncoder().encode(content.text);
        texts.set(bytes, content.text);
      } else bytes = fromBase64(content.base64);
      decoded.set(etag, bytes);
    }
    return bytes;
  };
  const variant = (v: VariantStamp): Variant => ({
    get body() {
      return bodyOf(v.etag);
    },
    // Lambda sends text: a body the stamp holds as text is never encoded for it.
    get text() {
      const content = contentOf(v.etag);
      return "text" in content ? content.text : undefined;
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

const OPEN = "/*";
const CLOSE = "*/";

/**
 * The texts of `bodies`, read from its function's source on first call (once): each body its first comment, then each
 * join followed by the next comment. Throws at once when that source is not the one written (its length differs), and
 * on the first call when it does not hold the comments the joins call for.
 */
function embeddedTexts(bodies: EmbeddedBodies): () => readonly string[] {
  const source = Function.prototype.toString.call(bodies.source);
  if (source.length !== bodies.length) throw new Error(STRIPPED);
  let restored: string[] | undefined;
  return () => {
    if (restored !== undefined) return restored;
    const read: string[] = [];
    let at = source.indexOf("{") + 1;
    const comment = (): string => {
      const end = source.indexOf(CLOSE, at + OPEN.length);
      if (!source.startsWith(OPEN, at) || end === -1) throw new Error(STRIPPED);
      const text = source.slice(at + OPEN.length, end);
      at = end + CLOSE.length;
      return text;
    };
    for (const joins of bodies.joins) {
      let text = comment();
      for (const join of joins) text += join + comment();
      read.push(text);
    }
    if (source.slice(at) !== "}") throw new Error(STRIPPED);
    return (restored = read);
  };
}

const STRIPPED = "the answers embedded in this file are not as the build wrote them: it was changed after the build " +
  "(a bundler or minifier drops the comments that hold them); deploy the file the build wrote as it is";

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
