/**
 * ajv (draft 2020-12) with strictSchema: a schema that grows a keyword or format ajv does not know is refused when
 * compiled, never checked loosely. `failuresOf` quotes no value: it may be a private source given by mistake.
 */
import type Ajv2020 from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { createRequire } from "node:module";

type Schema = Record<string, unknown>;

/** The formats the registry's schemas use. */
const FORMATS: Readonly<Record<string, (text: string) => boolean>> = {
  uri: (text) => /^[A-Za-z][A-Za-z0-9+.-]*:/.test(text) && URL.canParse(text),
  date: (text) => /^\d{4}-\d{2}-\d{2}$/.test(text) && validDate(text),
  "date-time": (text) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(text) && validDate(text.slice(0, 10)) &&
    !Number.isNaN(Date.parse(text)),
};

/**
 * ajv, loaded on the first compile rather than on import: the golden review imports `diff.ts` and
 * runs with nothing installed (.github/workflows/review.yml), and it checks no schema.
 */
let ajvModule: typeof Ajv2020 | undefined;

/** Compiled validators by schema text and use. Bounded: `verify` compiles one per base URL it checks. */
const compiled = new Map<string, ValidateFunction>();
const KEPT = 32;

/**
 * The validator of `schema` (with `also`, schemas it refers to by `$id`), compiled on first use and
 * kept: it stops at the first failure, with ajv's messages, and does not check formats.
 */
export function validatorOf(schema: Schema, also: readonly Schema[] = []): ValidateFunction {
  return compile(schema, also, false);
}

/**
 * `failures`: every failure kept, formats asserted, no messages (`failuresOf` words them). Every
 * failure kept, ajv appends a called $ref's failures to all before them (quadratic over 100k failing
 * rows): local references are inlined first, so failures are pushed one by one.
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
 * Why `value` fails `schema`, at most `limit` places in the schema's order, or none. Each names
 * where (the schema's own property names and array indices, `the top level` at the root) and what
 * was expected, never the value; a value matching none of a `oneOf`'s shapes names the nearest
 * shape's first failure (the shape failing in the fewest places): what a reader fixes first.
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
    switch (e.keyword) {
      case "false schema":
        return "not allowed here";
      case "type":
        return `expected ${[params["type"]].flat().join(" or ")}`;
      case "const":
        return "not the one allowed value";
      case "enum":
        return `not one of the ${(params["allowedValues"] as unknown[]).length} allowed values`;
      case "minLength":
        return `shorter than ${String(params["limit"])} characters`;
      case "pattern":
        return "does not match its pattern";
      case "format":
        return `not a ${String(params["format"])}`;
      case "minimum":
        return `below ${String(params["limit"])}`;
      case "maximum":
        return `above ${String(params["limit"])}`;
      case "required":
        return `the required key ${String(params["missingProperty"])} is missing`;
      case "anyOf":
        return `matches none of the ${(schemaAt(root, e.schemaPath) as unknown[]).length} allowed shapes`;
      case "oneOf": {
        const shapes = (schemaAt(root, e.schemaPath) as unknown[]).length;
        const passing = params["passingSchemas"];
        if (Array.isArray(passing)) return `matches ${passing.length} of the allowed shapes, not one`;
        return `matches none of the ${shapes} allowed shapes (the nearest fails at ${
          nearestFailure(errors, i, value, root, shapes)
        })`;
      }
      default:
        return `fails ${e.keyword}`;
    }
  })();
  return `${where}: ${what}`;
}

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

/** The part of `root` at a schema path (`#/properties/vaults/items/oneOf`). */
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
