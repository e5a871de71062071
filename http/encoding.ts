/** Content coding negotiation (RFC 9110 §12.5.3), memoized: the answer depends on the `Accept-Encoding` text alone. */

/** The content codings a build may precompute, in the server's order of preference. */
export const ENCODINGS = ["br", "gzip"] as const;
export type Encoding = (typeof ENCODINGS)[number];
export type Coding = Encoding | "identity";

/** Compresses bytes with one coding; supplied by the runtime (zlib on Node, CompressionStream elsewhere). */
export type Compress = (bytes: Uint8Array<ArrayBuffer>, encoding: Encoding) => Promise<Uint8Array<ArrayBuffer>>;

const MEMO_LIMIT = 256;

/**
 * Makes a negotiator for the codings on offer. It picks the coding with the highest q-value the client allows,
 * preferring `br`, then `gzip`, then `identity` on ties. `*` covers codings not named; `q=0` refuses. When the client
 * allows nothing on offer (or refuses identity too), identity is sent anyway: RFC 9110 allows this rather than a 406.
 */
export function negotiator(offered: readonly Encoding[]): (acceptEncoding: string | null) => Coding {
  const order: Coding[] = [...ENCODINGS.filter((e) => offered.includes(e)), "identity"];
  const memo = new Map<string, Coding>();
  return (header) => {
    // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut; choose() answers identity for these too
    if (header === null || header === "" || order.length === 1) return "identity";
    const known = memo.get(header);
    // Stryker disable next-line ConditionalExpression: the memo saves work; choose() gives the same answer
    if (known !== undefined) return known;
    const chosen = choose(header, order);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: bounds memory only; answers are the same
    if (memo.size >= MEMO_LIMIT) memo.clear(); // bounded: arbitrary client headers cannot grow it
    memo.set(header, chosen);
    return chosen;
  };
}

function choose(header: string, order: readonly Coding[]): Coding {
  const weights = new Map<string, number>();
  // A coding named twice keeps its highest weight.
  for (const { name, q } of parseAcceptEncoding(header)) weights.set(name, Math.max(q, weights.get(name) ?? -1));
  // x-gzip is an alias of gzip (RFC 9110 §8.4.1.3).
  const gzip = Math.max(weights.get("gzip") ?? -1, weights.get("x-gzip") ?? -1);
  if (gzip >= 0) weights.set("gzip", gzip);
  const star = weights.get("*");
  // A coding the client does not name takes the weight of *, else 0. Identity needs no default: when nothing on offer
  // has a positive weight, identity is the answer anyway.
  const weightOf = (coding: Coding): number => weights.get(coding) ?? star ?? 0;
  let best: Coding = "identity";
  let bestQ = 0;
  for (const coding of order) {
    const q = weightOf(coding);
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}

/**
 * The coding Cloudflare's front layer keeps of a Worker's answer, given the client's own `Accept-Encoding`
 * (`request.cf.clientAcceptEncoding`), as miniflare models that layer: of the client's codings in order of q (ties in
 * the client's order), the first that is `gzip` or `br`, or `identity` if that comes first or none does. The layer
 * re-encodes any other answer under the Worker's ETag, so the Worker answers with this coding and its own bytes and
 * ETag for it.
 */
export function edgeKeeps(clientAcceptEncoding: string): Coding {
  // A stable sort: ties keep the client's order.
  const entries = parseAcceptEncoding(clientAcceptEncoding).sort((a, b) => b.q - a.q);
  for (const { name, q } of entries) {
    if (q === 0) continue;
    if (name === "br") return "br";
    if (name === "gzip" || name === "x-gzip") return "gzip";
    if (name === "identity") return "identity";
  }
  return "identity";
}

/** An `Accept-Encoding` value as its codings in the client's order: lower-case names, each with its q (1 unless given). */
function parseAcceptEncoding(header: string): { name: string; q: number }[] {
  const entries: { name: string; q: number }[] = [];
  for (const part of header.split(",")) {
    const [rawName, ...params] = part.split(";");
    // Stryker disable next-line StringLiteral: split() always yields a first element
    const name = (rawName ?? "").trim().toLowerCase();
    // Stryker disable next-line ConditionalExpression,StringLiteral: a nameless entry weighs nothing on offer
    if (name === "") continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split("=").map((s) => s.trim().toLowerCase());
      if (key === "q") q = parseQ(value);
    }
    entries.push({ name, q });
  }
  return entries;
}

/** A qvalue: 0 to 1 with at most three decimals; anything else counts as 0 (refused). */
function parseQ(text: string | undefined): number {
  // Stryker disable next-line ConditionalExpression: test(undefined) tests "undefined", which fails too
  if (text === undefined || !/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(text)) return 0;
  return Number(text);
}

/** How a build precompresses: the runtime's compressor and the codings to offer (default all). */
export interface Compression {
  readonly compress?: Compress | undefined;
  readonly encodings?: readonly Encoding[];
}
