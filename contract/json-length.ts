/**
 * `JSON.stringify(value).length`, exactly, for a JSON value, counted without making the text (a document far over its
 * limit would not fit in one string). Indented text is longer, so this is a lower bound, in characters and in bytes.
 */
export function jsonTextLength(value: unknown): number {
  return lengthOf(value, new Map());
}

/** `jsonTextLength`, each key measured once: 100k rows repeat the same few keys. */
function lengthOf(value: unknown, keys: Map<string, number>): number {
  if (typeof value === "string") return escapedLength(value);
  if (typeof value === "number") return String(value).length;
  if (value === true || value === null) return 4;
  if (value === false) return 5;
  let n = 1; // the closing bracket; each member or element adds its opening bracket or comma
  if (Array.isArray(value)) { for (const item of value) n += 1 + lengthOf(item, keys); }
  else {
    for (const key in value as object) {
      let keyLength = keys.get(key);
      // Stryker disable next-line ConditionalExpression: the memo saves work only; a length counted again is the same
      if (keyLength === undefined) keys.set(key, keyLength = escapedLength(key));
      n += 1 + keyLength + 1 + lengthOf((value as Record<string, unknown>)[key], keys);
    }
  }
  return n === 1 ? 2 : n;
}

/** Does a string hold anything JSON.stringify escapes: `"`, `\`, a control character or a surrogate? */
// deno-lint-ignore no-control-regex -- control characters are what is counted
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;
/** Each escape: a two-character one (group-less), or a six-character `\uXXXX` (a control character, a lone surrogate). */
const ESCAPES =
  // deno-lint-ignore no-control-regex -- as above
  /["\\\b\f\n\r\t]|([\u0000-\u001f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff])/g;

/**
 * The length of a string as JSON text, quotes included: `\n` is 2 characters, another control
 * character or a lone surrogate 6. A string with nothing to escape is scanned once.
 */
function escapedLength(text: string): number {
  let n = text.length + 2;
  // Stryker disable next-line ConditionalExpression: the fast path; matching finds no escape in such a string either
  if (!ESCAPED.test(text)) return n;
  for (const m of text.matchAll(ESCAPES)) n += m[1] === undefined ? 1 : 5;
  return n;
}
