/**
 * `JSON.stringify` overflows the call stack on a value nested some thousands deep, which `JSON.parse` reads without
 * complaint: these walk with a stack of their own, so whatever parsed also prints.
 */
/** A value `JSON.parse` makes. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Past this depth, indented text turns compact, so that its size stays linear in the value's. */
const INDENT_DEPTH = 64;

/**
 * The text `JSON.stringify(value, null, indent)` gives (the same bytes, up to `INDENT_DEPTH` levels). With `max`,
 * stops once the text passes `max` characters (the caller cuts it): a preview of a huge value costs its beginning.
 */
export function jsonText(value: unknown, indent = 0, max = Infinity): string {
  // A scalar is its own JSON text: a diff asks for hundreds of thousands (each edge's ends and type).
  if (value === undefined) return "";
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  const parts: string[] = [];
  let length = 0;
  const push = (text: string) => {
    parts.push(text);
    length += text.length;
  };
  const newline = (depth: number) => (indent > 0 && depth <= INDENT_DEPTH ? `\n${" ".repeat(indent * depth)}` : "");
  const stack: { readonly value: Json[] | Record<string, Json>; readonly keys: string[] | null; next: number }[] = [];
  let pending: Json | undefined = value as Json;
  for (;;) {
    if (length > max) break;
    if (pending !== undefined) {
      const v: Json = pending;
      pending = undefined;
      if (typeof v === "object" && v !== null) {
        // Members whose value is undefined are left out, as JSON.stringify leaves them.
        const keys = Array.isArray(v)
          ? null
          : Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined);
        const count = keys === null ? (v as Json[]).length : keys.length;
        if (count === 0) push(keys === null ? "[]" : "{}");
        else {
          push(keys === null ? "[" : "{");
          stack.push({ value: v, keys, next: 0 });
        }
      } else push(JSON.stringify(v) ?? "null");
    }
    const top = stack.at(-1);
    if (top === undefined) break;
    const count = top.keys === null ? (top.value as Json[]).length : top.keys.length;
    if (top.next === count) {
      stack.pop();
      push(`${newline(stack.length)}${top.keys === null ? "]" : "}"}`);
      continue;
    }
    push(`${top.next > 0 ? "," : ""}${newline(stack.length)}`);
    if (top.keys === null) pending = (top.value as Json[])[top.next] as Json;
    else {
      const key = top.keys[top.next] as string;
      push(`${JSON.stringify(key)}${indent > 0 ? ": " : ":"}`);
      pending = (top.value as Record<string, Json>)[key] as Json;
    }
    top.next++;
  }
  return parts.join("");
}

/** True when two parsed JSON values print the same compact text (key order counts). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return a === b;
  return jsonText(a) === jsonText(b);
}

/** The compact text of `value`, cut to at most `max` characters with an ellipsis. */
export function jsonPreview(value: unknown, max: number): string {
  const text = typeof value === "string" ? value : jsonText(value, 0, max);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `value` when it is an array (its elements taken as `T`s), else an empty one. */
export function arrayOf<T = Json>(value: unknown): T[] {
  return Array.isArray(value) ? value : [];
}
