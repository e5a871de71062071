/**
 * A small JSON Schema (draft 2020-12) validator for the subset the registry's schemas use, so that
 * `registry diff` can tell a built document positively without a dev dependency (ajv is one):
 * boolean schemas, `$ref` to `#/$defs/...`, `type`, `const`, `enum`, `required`, `properties`,
 * `items`, `oneOf`, `anyOf`, `allOf`, `pattern`, `minLength`, `minimum`, `maximum` and the
 * formats `uri`, `date` and `date-time`, asserted. A schema using any other keyword is refused
 * when the checker is made, so a schema that grows a keyword cannot be checked loosely.
 *
 * A failure names where (a JSON path of the schema's own property names and array indices) and
 * what was expected, never the value: the input may be a private source. The walk goes only where
 * the schema has something to say, so its depth is the schema's, and it stops after `limit`
 * failures.
 */
import { jsonEqual } from "./json-deep.ts";

type Schema = boolean | { readonly [keyword: string]: unknown };

/** Keywords that only describe: nothing to check. */
const ANNOTATIONS = new Set(["$schema", "$id", "$defs", "title", "description"]);
const CHECKED = new Set(["$ref", "type", "const", "enum", "required", "properties", "items", "oneOf", "anyOf", "allOf", "pattern", "minLength", "minimum", "maximum", "format"]);
const FORMATS: Readonly<Record<string, (text: string) => boolean>> = {
  uri: (text) => /^[A-Za-z][A-Za-z0-9+.-]*:/.test(text) && URL.canParse(text),
  date: (text) => /^\d{4}-\d{2}-\d{2}$/.test(text) && validDate(text),
  "date-time": (text) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(text) && validDate(text.slice(0, 10)) && !Number.isNaN(Date.parse(text)),
};

/** Checks values against one schema: the failures, at most `limit`, or none. */
export type SchemaCheck = (value: unknown, limit?: number) => string[];

/** A checker for `root`; throws when the schema uses a keyword or format this checker lacks. */
export function schemaCheck(root: Record<string, unknown>): SchemaCheck {
  const patterns = new Map<string, RegExp>();
  const vet = (schema: unknown, where: string): void => {
    if (typeof schema === "boolean") return;
    if (typeof schema !== "object" || schema === null) throw new Error(`${where}: not a schema`);
    for (const [keyword, arg] of Object.entries(schema)) {
      if (ANNOTATIONS.has(keyword)) continue;
      if (!CHECKED.has(keyword)) throw new Error(`${where}: the keyword ${keyword} is not supported`);
      if (keyword === "format" && FORMATS[arg as string] === undefined) throw new Error(`${where}: the format ${String(arg)} is not supported`);
      if (keyword === "pattern") patterns.set(arg as string, new RegExp(arg as string, "u"));
      if (keyword === "$ref" && !/^#\/\$defs\/[^/]+$/.test(arg as string)) throw new Error(`${where}: only #/$defs/ references are supported`);
      if (keyword === "properties") for (const [name, sub] of Object.entries(arg as object)) vet(sub, `${where}.properties.${name}`);
      if (keyword === "items") vet(arg, `${where}.items`);
      if (keyword === "oneOf" || keyword === "anyOf" || keyword === "allOf") (arg as unknown[]).forEach((sub, i) => vet(sub, `${where}.${keyword}[${i}]`));
    }
  };
  vet(root, "#");
  const defs = (root["$defs"] ?? {}) as Record<string, Schema>;
  for (const [name, sub] of Object.entries(defs)) vet(sub, `#/$defs/${name}`);

  /** True when `v` passes `schema`; each failure goes to `record` (which returns false). No closure is made per call: this runs once per value. */
  const check = (schema: Schema, v: unknown, where: string, record: Recorder, stop: () => boolean): boolean => {
    if (schema === true) return true;
    if (schema === false) return record(where, "not allowed here");
    let ok = true;
    const ref = schema["$ref"] as string | undefined;
    if (ref !== undefined && !check(defs[ref.slice("#/$defs/".length)] ?? false, v, where, record, stop)) ok = false;
    const type = schema["type"] as string | string[] | undefined;
    if (type !== undefined) {
      const types = typeof type === "string" ? [type] : type;
      let typed = false;
      for (const t of types) if (hasType(v, t)) typed = true;
      if (!typed) return record(where, `expected ${types.join(" or ")}`);
    }
    if ("const" in schema && !jsonEqual(v, schema["const"])) ok = record(where, "not the one allowed value");
    const options = schema["enum"] as unknown[] | undefined;
    if (options !== undefined) {
      let found = false;
      for (const o of options) if (jsonEqual(v, o)) found = true;
      if (!found) ok = record(where, `not one of the ${options.length} allowed values`);
    }
    if (typeof v === "string") {
      const min = schema["minLength"] as number | undefined;
      if (min !== undefined && codePoints(v, min) < min) ok = record(where, `shorter than ${min} characters`);
      const pattern = schema["pattern"] as string | undefined;
      if (pattern !== undefined && !(patterns.get(pattern) as RegExp).test(v)) ok = record(where, "does not match its pattern");
      const format = schema["format"] as string | undefined;
      if (format !== undefined && !(FORMATS[format] as (t: string) => boolean)(v)) ok = record(where, `not a ${format}`);
    }
    if (typeof v === "number") {
      if (typeof schema["minimum"] === "number" && v < schema["minimum"]) ok = record(where, `below ${schema["minimum"]}`);
      if (typeof schema["maximum"] === "number" && v > schema["maximum"]) ok = record(where, `above ${schema["maximum"]}`);
    }
    if (isObject(v)) {
      for (const key of (schema["required"] as string[] | undefined) ?? []) if (!Object.hasOwn(v, key)) ok = record(where, `the required key ${key} is missing`);
      const properties = schema["properties"] as Readonly<Record<string, Schema>> | undefined;
      if (properties !== undefined) {
        for (const key in properties) {
          if (stop()) return false;
          if (Object.hasOwn(v, key) && !check(properties[key] as Schema, v[key], where === "" ? key : `${where}.${key}`, record, stop)) ok = false;
        }
      }
    }
    if (Array.isArray(v) && schema["items"] !== undefined) {
      for (let i = 0; i < v.length && !stop(); i++) if (!check(schema["items"] as Schema, v[i], `${where}[${i}]`, record, stop)) ok = false;
    }
    for (const sub of (schema["allOf"] as Schema[] | undefined) ?? []) if (!check(sub, v, where, record, stop)) ok = false;
    const anyOf = schema["anyOf"] as Schema[] | undefined;
    if (anyOf !== undefined) {
      let any = false;
      for (const sub of anyOf) if (!any && check(sub, v, where, quiet, never)) any = true;
      if (!any) ok = record(where, `matches none of the ${anyOf.length} allowed shapes`);
    }
    const oneOf = schema["oneOf"] as Schema[] | undefined;
    if (oneOf !== undefined) {
      let passing = 0;
      for (const sub of oneOf) if (check(sub, v, where, quiet, never)) passing++;
      if (passing === 0) {
        // Name the nearest shape's first failure: what a reader fixes first.
        let nearest: string[] | undefined;
        for (const sub of oneOf) {
          const found: string[] = [];
          check(sub, v, where, (w, what) => (found.push(`${w || "the top level"}: ${what}`), false), never);
          if (nearest === undefined || found.length < nearest.length) nearest = found;
        }
        ok = record(where, `matches none of the ${oneOf.length} allowed shapes (the nearest fails at ${nearest?.[0] ?? where})`);
      } else if (passing > 1) ok = record(where, `matches ${passing} of the allowed shapes, not one`);
    }
    return ok;
  };

  return (value, limit = 5) => {
    const failures: string[] = [];
    check(root, value, "", (where, what) => (failures.push(`${where || "the top level"}: ${what}`), false), () => failures.length >= limit);
    return failures.slice(0, limit);
  };
}

/** Where a failure goes: always returns false, so `ok = record(...)` both records and fails. */
type Recorder = (where: string, what: string) => false;

function quiet(): false {
  return false;
}

function never(): boolean {
  return false;
}

/** The code points of `text`, counted up to `enough` (a length limit never needs more). */
function codePoints(text: string, enough: number): number {
  if (text.length >= enough * 2) return enough;
  let n = 0;
  for (const _ of text) if (++n >= enough) break;
  return n;
}

function hasType(v: unknown, type: string): boolean {
  switch (type) {
    case "object":
      return isObject(v);
    case "array":
      return Array.isArray(v);
    case "integer":
      return Number.isInteger(v);
    case "number":
      return typeof v === "number";
    case "null":
      return v === null;
    default:
      return typeof v === type;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function validDate(text: string): boolean {
  const [y, m, d] = text.split("-").map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}
