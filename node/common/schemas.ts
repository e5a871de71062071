/**
 * ajv (draft 2020-12) with strictSchema: a schema that grows a keyword or format ajv does not know is refused when
 * compiled, never checked loosely. `failuresOf` quotes no value: it may be a private source given by mistake.
 */
import type Ajv2020 from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { createRequire } from "node:module";

type Schema = Record<string, unknown>;

const FORMATS: Readonly<Record<string, (text: string) => boolean>> = {
  uri: (text) => /^[A-Za-z][A-Za-z0-9+.-]*:/.test(text) && URL.canParse(text),
  date: (text) => /^\d{4}-\d{2}-\d{2}$/.test(text) && validDate(text),
  "date-time": (text) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(text) && validDate(text.slice(0, 10)) &&
    !Number.isNaN(Date.parse(text)),
};

/** Loaded on the first compile: the golden review imports `diff.ts` and runs with nothing installed. */
let ajvModule: typeof Ajv2020 | undefined;

/** Compiled validators by schema text and use. Bounded: `verify` compiles one per base URL it checks. */
const compiled = new Map<string, ValidateFunction>();
const KEPT = 32;

/** The validator of `schema` (with `also`, which it refers to by `$id`): first failure, ajv's messages, no formats. */
export function validatorOf(schema: Schema, also: readonly Schema[] = []): ValidateFunction {
  return compile(schema, also, false);
}

/** A check of `schema` (with `also`, which it refers to by `$id`): null when valid, else its first failures by place. */
export function schemaCheck(schema: Schema, also: readonly Schema[] = []): (value: unknown) => string | null {
  const validate = validatorOf(schema, also);
  return (value) => {
    if (validate(value)) return null;
    // Places and reasons only: Ajv's messages never quote the value checked. Each once: the shapes of a oneOf
    // can fail alike ("must be object" for each).
    const said = (validate.errors ?? []).map((e) => `${e.instancePath || "(top level)"} ${e.message ?? "is invalid"}`);
    return [...new Set(said)].slice(0, 3).join("; ");
  };
}

/**
 * `failures`: every failure kept, formats asserted, no messages. Then ajv appends a called $ref's failures to all
 * before them (quadratic over 100k failing rows): local references are inlined first.
 */
function compile(schema: Schema, also: readonly Schema[], failures: boolean): ValidateFunction {
  const key = JSON.stringify([schema, also, failures]);
  let validate = compiled.get(key);
  if (validate === undefined) {
    ajvModule ??= createRequire(import.meta.url)("ajv/dist/2020.js") as typeof Ajv2020;
    const ajv = new ajvModule.default({
      strict: false,
      strictSchema: true,
      allErrors: failures,
      validateFormats: failures,
      formats: FORMATS,
      messages: !failures,
    });
    for (const other of also) ajv.addSchema(other);
    validate = ajv.compile(failures ? inlineRefs(schema) : schema);
    if (compiled.size >= KEPT) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, validate);
  }
  return validate;
}

/**
 * Why `value` fails `schema`, at most `limit` places, each named by the schema's own keys and indices, never the
 * value; matching none of a `oneOf`'s shapes names the nearest shape's first failure: what a reader fixes first.
 */
export function failuresOf(schema: Schema, value: unknown, limit = 5): string[] {
  const validate = compile(schema, [], true);
  if (validate(value)) return [];
  const errors = validate.errors ?? [];
  const root = validate.schema as Schema;
  const found: string[] = [];
  for (let i = 0; i < errors.length && found.length < limit; i++) {
    if (visibleFrom("#", (errors[i] as ErrorObject).schemaPath)) found.push(describe(errors, i, value, root));
  }
  return found;
}

/** True when the failure at `schemaPath` is not inside a shape of a oneOf or anyOf below `prefix` (those speak through their own failure). */
function visibleFrom(prefix: string, schemaPath: string): boolean {
  return !/\/(?:oneOf|anyOf)\/\d+\//.test(schemaPath.slice(prefix.length));
}

/** The failure `errors[i]` in words; a oneOf's shapes' failures are the ones just before it. */
function describe(errors: readonly ErrorObject[], i: number, value: unknown, root: Schema): string {
  const e = errors[i] as ErrorObject;
  const where = placeOf(e.instancePath, value);
  const params = e.params as Record<string, unknown>;
  const what = ((): string => {
    if (e.keyword === "anyOf") {
      return `matches none of the ${(schemaAt(root, e.schemaPath) as unknown[]).length} allowed shapes`;
    }
    if (e.keyword !== "oneOf") return SAYS.get(e.keyword)?.(params) ?? `fails ${e.keyword}`;
    const shapes = (schemaAt(root, e.schemaPath) as unknown[]).length;
    const passing = params["passingSchemas"];
    if (Array.isArray(passing)) return `matches ${passing.length} of the allowed shapes, not one`;
    return `matches none of the ${shapes} allowed shapes (the nearest fails at ${
      nearestFailure(errors, i, value, root, shapes)
    })`;
  })();
  return `${where}: ${what}`;
}

/** What a failed keyword other than anyOf and oneOf says, from its params. */
const SAYS = new Map<string, (params: Record<string, unknown>) => string>([
  ["false schema", () => "not allowed here"],
  ["type", (p) => `expected ${[p["type"]].flat().join(" or ")}`],
  ["const", () => "not the one allowed value"],
  ["enum", (p) => `not one of the ${(p["allowedValues"] as unknown[]).length} allowed values`],
  ["minLength", (p) => `shorter than ${String(p["limit"])} characters`],
  ["pattern", () => "does not match its pattern"],
  ["format", (p) => `not a ${String(p["format"])}`],
  ["minimum", (p) => `below ${String(p["limit"])}`],
  ["maximum", (p) => `above ${String(p["limit"])}`],
  ["required", (p) => `the required key ${String(p["missingProperty"])} is missing`],
]);

/** The first failure of the oneOf shape `errors[i]` failing in the fewest places (the first of equals). */
function nearestFailure(errors: readonly ErrorObject[], i: number, value: unknown, root: Schema, n: number): string {
  const { schemaPath, instancePath } = errors[i] as ErrorObject;
  const perShape: number[][] = Array.from({ length: n }, () => []);
  // Its shapes' failures stand just before it, at or below its place.
  for (let j = i - 1; j >= 0; j--) {
    const e = errors[j] as ErrorObject;
    if (
      !e.schemaPath.startsWith(`${schemaPath}/`) ||
      !(e.instancePath === instancePath || e.instancePath.startsWith(`${instancePath}/`))
    ) break;
    const shape = Number(e.schemaPath.slice(schemaPath.length + 1).split("/")[0]);
    if (visibleFrom(`${schemaPath}/${shape}`, e.schemaPath)) perShape[shape]?.push(j);
  }
  let nearest: number[] | undefined;
  for (const failures of perShape) if (nearest === undefined || failures.length < nearest.length) nearest = failures;
  // Gathered backwards: a shape's first failure is its last index here.
  const first = nearest?.at(-1);
  return first === undefined ? placeOf(instancePath, value) : describe(errors, first, value, root);
}

/** A JSON pointer into `value` as a diff names places: `vaults[3].tier`, or `the top level`. */
function placeOf(pointer: string, value: unknown): string {
  if (pointer === "") return "the top level";
  let where = "";
  let at = value;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    where += Array.isArray(at) ? `[${key}]` : where === "" ? key : `.${key}`;
    at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[key] : undefined;
  }
  return where;
}

function schemaAt(root: Schema, path: string): unknown {
  let at: unknown = root;
  for (const raw of path.replace(/^#\/?/, "").split("/").filter((s) => s !== "")) {
    at = (at as Record<string, unknown>)[decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  return at;
}

/** `schema` with each bare `{ "$ref": "#/$defs/name" }` replaced by that definition (a recursive one is left a reference). */
function inlineRefs(schema: Schema): Schema {
  const defs = (schema["$defs"] ?? {}) as Record<string, unknown>;
  const inline = (node: unknown, within: ReadonlySet<string>): unknown => {
    if (Array.isArray(node)) return node.map((n) => inline(n, within));
    if (typeof node !== "object" || node === null) return node;
    const ref = (node as Schema)["$ref"];
    const name = typeof ref === "string" && ref.startsWith("#/$defs/") ? ref.slice("#/$defs/".length) : undefined;
    if (name !== undefined && Object.keys(node).length === 1 && Object.hasOwn(defs, name) && !within.has(name)) {
      return inline(defs[name], new Set([...within, name]));
    }
    // A const or enum is a value, whatever it holds.
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => [k, k === "const" || k === "enum" ? v : inline(v, within)]),
    );
  };
  return inline(schema, new Set()) as Schema;
}

function validDate(text: string): boolean {
  const [y, m, d] = text.split("-").map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}
