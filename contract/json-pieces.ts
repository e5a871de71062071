/**
 * `JSON.stringify(value, null, 2)` of an object, made in pieces: a caller that counts bytes as they come can stop at
 * its limit having made at most one piece past it, and a document of 100k rows is made as short one-byte strings
 * rather than one long two-byte one (any non-ASCII name makes the whole text two bytes a character).
 */

/**
 * Items of a top-level array in one piece: a few hundred KB of text for ordinary rows. Rows that each repeat the longest
 * labels (64K characters, each escaped to six) make a piece of up to about 100 MB: serializeRegistry measures the
 * compact text before it makes any piece, so that such a document over its limit is refused first.
 */
export const PIECE_ITEMS = 128;

/**
 * The pieces whose concatenation is `JSON.stringify(value, null, 2)` exactly: one per top-level member, and a long
 * top-level array's items `items` at a time. `value` is a plain object of JSON values (no `toJSON`, no replacer).
 *
 * @example
 * ```ts
 * const text = [...prettyJsonPieces({ rows: [1, 2, 3], n: 3 }, 2)].join("");
 * // text === JSON.stringify({ rows: [1, 2, 3], n: 3 }, null, 2)
 * ```
 */
export function* prettyJsonPieces(value: object, items = PIECE_ITEMS): Generator<string> {
  const members = value as Readonly<Record<string, unknown>>;
  // A member JSON leaves out (undefined, a function, a symbol) is left out here too.
  const keys = Object.keys(members).filter((key) => {
    const member = members[key];
    return member !== undefined && typeof member !== "function" && typeof member !== "symbol";
  });
  if (keys.length === 0) {
    yield "{}";
    return;
  }
  yield "{\n";
  for (const [i, key] of keys.entries()) {
    const member = members[key];
    const after = i === keys.length - 1 ? "\n}" : ",\n";
    if (!Array.isArray(member) || member.length <= items) {
      // {\n  "key": value\n}: the member as it stands at this depth, its own lines indented alike.
      const text = JSON.stringify({ [key]: member }, null, 2);
      yield `${text.slice(2, -2)}${after}`;
      continue;
    }
    const name = JSON.stringify(key);
    yield `  ${name}: [\n`;
    // {\n  "key": [\n ...items... \n  ]\n}: the items alone, indented as they are in the whole.
    const head = 2 + 2 + name.length + 2 + 2;
    for (let start = 0; start < member.length; start += items) {
      const text = JSON.stringify({ [key]: member.slice(start, start + items) }, null, 2);
      yield `${text.slice(head, -6)}${start + items < member.length ? ",\n" : "\n"}`;
    }
    yield `  ]${after}`;
  }
}
