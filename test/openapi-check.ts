/**
 * Checks an HTTP answer against an OpenAPI 3.1 description, with third-party tools doing the work:
 * Redocly CLI dereferences the description as a static host serves it (the schema beside it, by
 * relative `$ref`), and Ajv (draft 2020-12) validates every header value and body against the
 * schema the description declares for it. What is ours is only the lookup: the operation by path
 * and method, the response by status, each header by name (case-insensitive, as HTTP is).
 */
import Ajv2020 from "ajv/dist/2020.js";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { run } from "./process.ts";

type Json = Record<string, any>;

/** An answer as a runtime sent it. */
export interface SentAnswer {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array | null;
}

/** The description with every `$ref` replaced by what it names, by `redocly bundle --dereferenced`. */
export async function dereference(
  files: Readonly<Record<string, Uint8Array | string>>,
  entry: string,
  env: NodeJS.ProcessEnv,
): Promise<Json> {
  const dir = mkdtempSync(join(tmpdir(), "registry-openapi-"));
  try {
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
    const out = join(dir, "dereferenced.json");
    const done = await run("node_modules/.bin/redocly", [
      "bundle",
      join(dir, entry),
      "--dereferenced",
      "--ext",
      "json",
      "-o",
      out,
    ], { env, timeoutMs: 60_000 });
    if (done.code !== 0) throw new Error(`redocly bundle: ${done.stderr}`);
    return JSON.parse(readFileSync(out, "utf8")) as Json;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every way `answer` breaks `description` (dereferenced); empty when it conforms. */
export function conformanceProblems(description: Json, answer: SentAnswer): string[] {
  const at = `${answer.method} ${answer.path} ${answer.status}`;
  const operation = description["paths"]?.[answer.path]?.[answer.method.toLowerCase()];
  if (operation === undefined) return [`${at}: no ${answer.method} operation on ${answer.path}`];
  const response = operation.responses?.[String(answer.status)];
  if (response === undefined) return [`${at}: status ${answer.status} is not declared`];
  const problems: string[] = [];
  const declared = new Map(
    Object.entries((response.headers ?? {}) as Json).map(([name, h]) => [name.toLowerCase(), h as Json]),
  );
  for (const [name, value] of Object.entries(answer.headers)) {
    if (name === "content-type") {
      if (answer.body !== null && answer.body.length > 0 && !(value in (response.content ?? {}))) {
        problems.push(`${at}: content type ${value} is not declared`);
      }
      continue;
    }
    const header = declared.get(name);
    if (header === undefined) {
      problems.push(`${at}: header ${name} is not declared`);
      continue;
    }
    const check = validator(header["schema"] ?? {});
    if (!check(value)) problems.push(`${at}: header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(check.errors)}`);
  }
  for (const [name, header] of declared) {
    if (header["required"] === true && !(name in answer.headers)) {
      problems.push(`${at}: required header ${name} is missing`);
    }
  }
  if (answer.body !== null && answer.body.length > 0) {
    const type = answer.headers["content-type"] ?? "";
    const schema = response.content?.[type]?.schema;
    if (schema !== undefined) {
      const coding = answer.headers["content-encoding"];
      const bytes = coding === "gzip"
        ? gunzipSync(answer.body)
        : coding === "br"
        ? brotliDecompressSync(answer.body)
        : Buffer.from(answer.body);
      const check = validator(schema);
      // A JSON media type (`application/json`, `…+json`) is parsed; anything else (Atom's XML) is checked as text.
      const text = bytes.toString("utf8");
      if (!check(/[/+]json(;|$)/.test(type) ? JSON.parse(text) : text)) {
        problems.push(`${at}: body: ${ajv.errorsText(check.errors)}`);
      }
    }
  }
  return problems;
}

// Formats are annotations in draft 2020-12 (as in OpenAPI 3.1): not asserted.
const ajv = new Ajv2020.default({ strict: false, validateFormats: false, addUsedSchema: false });
const compiled = new WeakMap<object, ReturnType<typeof ajv.compile>>();

function validator(schema: Json): ReturnType<typeof ajv.compile> {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = ajv.compile(schema);
    compiled.set(schema, check);
  }
  return check;
}
