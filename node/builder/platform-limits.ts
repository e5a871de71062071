import { MAX_DEPLOY_DOCUMENT_BYTES, sizeOf } from "../../contract/limits.ts";
import type { Build } from "../../http/table.ts";
import { lambdaHandlerFor } from "../../http/lambda.ts";
import { restoreBuild } from "../../http/restore.ts";
import { stampBuild } from "./stamp.ts";

/** One limit: who sets it and what it bounds (as a line names them), in bytes. */
interface PlatformLimit {
  readonly platform: string;
  readonly what: string;
  readonly bytes: number;
  /** The figure with response streaming, checked for an artifact that streams (`STREAMS`). */
  readonly streamedBytes?: number;
}

/** 6 MB as AWS counts it: 6 × 1024 × 1024 bytes. */
const SIX_MB = 6 * 1024 * 1024;

/** Every limit a code artifact is checked against (docs/deploying.md, "Platform limits", cites each figure). */
const PLATFORM_LIMITS = {
  /** The project's own: every code artifact embeds every answer (contract/limits.ts). */
  embed: { platform: "the code artifacts", what: "document they embed", bytes: MAX_DEPLOY_DOCUMENT_BYTES },
  /** Measured as the serialized response: the result object as JSON, a binary body in base64. */
  lambda: {
    platform: "AWS Lambda",
    what: "buffered response payload",
    bytes: SIX_MB,
    streamedBytes: 200 * 1000 * 1000,
  },
  /** Netlify Functions run on Lambda: measured the same way, every coding the fetch artifact offers. */
  netlify: { platform: "Netlify Functions", what: "buffered response payload", bytes: SIX_MB },
} as const satisfies Record<string, PlatformLimit>;

type LimitName = keyof typeof PLATFORM_LIMITS;

/** The code artifacts, each with the limits it must fit, in the order they are checked (Workers limit no response body). */
const ARTIFACT_LIMITS = {
  "node/server.mjs": ["embed"],
  "fetch/index.mjs": ["embed", "netlify"],
  "lambda/index.mjs": ["embed", "lambda"],
} as const satisfies Record<string, readonly LimitName[]>;

export type CodeArtifact = keyof typeof ARTIFACT_LIMITS;

/** The artifacts that stream: checked against the streamed figure, and past the buffered one named in a line. */
const STREAMS: Readonly<Partial<Record<CodeArtifact, { readonly limit: LimitName; readonly serves: string }>>> = {
  "lambda/index.mjs": {
    limit: "lambda",
    serves:
      "its streamHandler serves it, on a Function URL with invoke mode RESPONSE_STREAM; its handler (buffered: API Gateway, ALB) cannot",
  },
};

/** The largest answer an artifact may give under one limit's measure. */
interface Largest {
  readonly bytes: number;
  /** The answer, as a line names it: `GET /vaults.json (identity)`. */
  readonly answer: string;
}

/** What the rule decided: the artifacts to write, and one line per limit that left some out. */
export interface ArtifactPlan {
  readonly write: ReadonlySet<CodeArtifact>;
  readonly lines: readonly string[];
}

/** The largest answer `build` gives under `limit`'s measure, as the artifacts embedding it answer. */
async function largestAnswer(limit: LimitName, build: Build): Promise<Largest> {
  switch (limit) {
    case "embed":
      return largestDocument(build);
    case "lambda":
      return await largestLambdaAnswer(build);
    case "netlify":
      return largestBufferedAnswer(build);
  }
}

function largestDocument(build: Build): Largest {
  let largest: Largest = { bytes: 0, answer: "" };
  for (const [path, resource] of build.routes) {
    const bytes = resource.identity.body.byteLength;
    if (bytes > largest.bytes) largest = { bytes, answer: `GET ${path} (identity)` };
  }
  return largest;
}

/** Whether the static export alone serves `build`: past the limit every code artifact embeds, so none is written. */
export function staticAlone(build: Build): boolean {
  return largestDocument(build).bytes > PLATFORM_LIMITS.embed.bytes;
}

/** The event shapes the Lambda artifact answers, each a GET of `path`. */
const LAMBDA_EVENTS: readonly ((path: string) => unknown)[] = [
  // API Gateway REST API (payload 1.0), single- and multi-value headers.
  (path) => ({ httpMethod: "GET", path, headers: {}, requestContext: {} }),
  (path) => ({ httpMethod: "GET", path, headers: {}, multiValueHeaders: {}, requestContext: {} }),
  // HTTP API (payload 2.0) and Function URL.
  (path) => ({ version: "2.0", rawPath: path, headers: {}, requestContext: { http: { method: "GET" } } }),
  // Application Load Balancer, multi-value headers on (the largest shape).
  (path) => ({ httpMethod: "GET", path, headers: {}, multiValueHeaders: {}, requestContext: { elb: {} } }),
];

/** Bytes of a Lambda result as Lambda carries it: its JSON text in UTF-8. */
function lambdaPayloadBytes(result: unknown): number {
  return new TextEncoder().encode(JSON.stringify(result)).byteLength;
}

async function largestLambdaAnswer(build: Build): Promise<Largest> {
  // The build the Lambda artifact embeds: identity only, as bundle.ts stamps it.
  const handler = lambdaHandlerFor(restoreBuild(stampBuild(build, [])), () => {});
  // A body is escaped once, however many paths and event shapes send it: its JSON text's bytes
  // stand in for those of the empty body ("", 2 bytes) in the rest of the result's.
  const escaped = new Map<string, number>();
  let largest: Largest = { bytes: 0, answer: "" };
  for (const path of [...build.routes.keys(), ...build.gone.keys()]) {
    for (const event of LAMBDA_EVENTS) {
      const result = await handler(event(path));
      const body = escaped.get(result.body) ?? lambdaPayloadBytes(result.body);
      escaped.set(result.body, body);
      const bytes = lambdaPayloadBytes({ ...result, body: "" }) - 2 + body;
      if (bytes > largest.bytes) largest = { bytes, answer: `GET ${path} (identity)` };
    }
  }
  return largest;
}

function largestBufferedAnswer(build: Build): Largest {
  // The build the fetch artifact embeds: identity, gzip and br, as bundle.ts stamps it.
  const stamp = stampBuild(build, ["br", "gzip"]);
  const escaped = new Map<string, number>();
  let largest: Largest = { bytes: 0, answer: "" };
  for (const [path, route] of Object.entries(stamp.routes)) {
    const variants = [["identity", route.identity], ...Object.entries(route.encoded)] as const;
    for (const [coding, variant] of variants) {
      if (variant === undefined) continue;
      const body = stamp.bodies[variant.etag];
      if (body === undefined) continue;
      const binary = "base64" in body;
      const text = escaped.get(variant.etag) ?? lambdaPayloadBytes(binary ? body.base64 : body.text);
      escaped.set(variant.etag, text);
      const head = lambdaPayloadBytes({ statusCode: 200, headers: variant.ok, body: "", isBase64Encoded: binary });
      const bytes = head - 2 + text;
      if (bytes > largest.bytes) largest = { bytes, answer: `GET ${path} (${coding})` };
    }
  }
  for (const [path, problem] of Object.entries(stamp.gone)) {
    const result = { statusCode: problem.status, headers: problem.headers, body: problem.text, isBase64Encoded: false };
    const bytes = lambdaPayloadBytes(result);
    if (bytes > largest.bytes) largest = { bytes, answer: `GET ${path} (identity)` };
  }
  return largest;
}

/** The rule: the first limit an artifact does not fit leaves it out; each limit is measured once, only if needed. */
export async function planArtifacts(build: Build): Promise<ArtifactPlan> {
  const measured = new Map<LimitName, Largest>();
  const measure = async (limit: LimitName) => {
    if (!measured.has(limit)) measured.set(limit, await largestAnswer(limit, build));
    return measured.get(limit)!;
  };
  const write = new Set<CodeArtifact>();
  const leftOut = new Map<LimitName, CodeArtifact[]>();
  const streamed: string[] = [];
  for (const [artifact, limits] of Object.entries(ARTIFACT_LIMITS) as [CodeArtifact, readonly LimitName[]][]) {
    let over: LimitName | undefined;
    const streams = STREAMS[artifact];
    let streamLine: string | undefined;
    for (const limit of limits) {
      const largest = await measure(limit);
      if (largest.bytes <= PLATFORM_LIMITS[limit].bytes) continue;
      const { streamedBytes } = PLATFORM_LIMITS[limit] as PlatformLimit;
      if (streams?.limit === limit && streamedBytes !== undefined && largest.bytes <= streamedBytes) {
        streamLine = `${artifact} streams: ${
          overLine(limit, largest)
        }; ${streams.serves} (docs/deploying.md, "Platform limits")`;
        continue;
      }
      over = limit;
      break;
    }
    if (over === undefined) {
      write.add(artifact);
      if (streamLine !== undefined) streamed.push(streamLine);
    } else leftOut.set(over, [...(leftOut.get(over) ?? []), artifact]);
  }
  const lines = [...leftOut].map(([limit, artifacts]) => leaveOutLine(limit, artifacts, measured.get(limit)!, write));
  return { write, lines: [...lines, ...streamed] };
}

/** A list as a sentence names it: `a`, `a and b`, `a, b and c`. */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** `n` bytes exactly, and as a person reads them where that differs: `8,290,143 bytes (7.9 MiB)`. */
function bytesOf(n: number): string {
  const exact = `${n.toLocaleString("en-US")} bytes`;
  const read = sizeOf(n);
  return read.endsWith("bytes") ? exact : `${exact} (${read})`;
}

function leaveOutLine(
  limit: LimitName,
  artifacts: readonly CodeArtifact[],
  largest: Largest,
  written: ReadonlySet<CodeArtifact>,
): string {
  const left = `left out ${listed(artifacts)}`;
  if (limit === "embed") {
    // Every code artifact: the static export alone serves the document, with its siblings.
    return `${left}: a document of ${sizeOf(largest.bytes)} is over the ${
      sizeOf(PLATFORM_LIMITS.embed.bytes)
    } they embed; static/ serves it, with .gz and .br siblings (docs/deploying.md, "Large registries")`;
  }
  const instead = [...[...written].sort(), "static/"];
  return `${left}: ${overLine(limit, largest)}; ${
    listed(instead)
  } serve the document instead (docs/deploying.md, "Platform limits")`;
}

/** `its answer to GET /vaults.json (identity) is N bytes serialized, over <platform>'s <what> limit of N bytes`. */
function overLine(limit: LimitName, largest: Largest): string {
  const { platform, what, bytes } = PLATFORM_LIMITS[limit];
  const whose = platform.endsWith("s") ? `${platform}'` : `${platform}'s`;
  return `its answer to ${largest.answer} is ${bytesOf(largest.bytes)} serialized, over ${whose} ${what} limit of ${
    bytesOf(bytes)
  }`;
}
