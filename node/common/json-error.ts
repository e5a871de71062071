/**
 * `readJson` is the one way node/ reads JSON text: the value, or one line in our words, never the engine's (they
 * quote the text, which may be private, and differ between versions). `locateJsonError` says where text breaks in
 * the same words on every runtime; it only runs on text `JSON.parse` refused: clarity over speed.
 */
import { MAX_NESTING_DEPTH, maxValueWeight, sizeOf, VALUE_WEIGHT_OF_CONTAINER } from "../../contract/limits.ts";
import { MAX_PROBLEMS } from "../../contract/messages.ts";
import { KNOWN_KEYS, quoted } from "../../contract/source.ts";

/**
 * `text` parsed, or why not in one line (it never throws): `place` if given, what the text is not (`says`, by default
 * "not valid JSON"), then, unless `locate` is false, where the first syntax error is or that the text is empty.
 */
export function readJson(
  text: string,
  { place, says = "not valid JSON", locate = true }: { place?: string; says?: string; locate?: boolean } = {},
): { ok: unknown } | { error: string } {
  try {
    return { ok: JSON.parse(text) };
  } catch {
    const empty = text.trim() === "";
    const where = !locate || empty ? null : locateJsonError(text);
    const error = where !== null
      ? `${says} at line ${where.line}, column ${where.column}: ${where.reason}`
      : locate && empty
      ? `${says}: the file is empty`
      : says;
    return { error: place === undefined ? error : `${place}: ${error}` };
  }
}

/**
 * The first syntax error in `text`, as 1-based line and column (UTF-16 code units), or null; null too when it is
 * nested deeper than the call stack allows: a message then says less rather than fails.
 */
export function locateJsonError(text: string): { line: number; column: number; reason: string } | null {
  let i = 0;
  const fail = (reason: string): never => {
    throw new SyntaxAt(i, reason);
  };
  const skipSpace = (): void => {
    while (i < text.length && " \t\n\r".includes(text[i] as string)) i++;
  };
  const string = (): void => {
    i++; // the opening quote
    for (;;) {
      const c = text[i];
      if (c === undefined) fail("unterminated string");
      else if (c === '"') return void i++;
      else if (c === "\\") {
        if (text[i + 1] === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
        else if (text[i + 1] !== undefined && '"\\/bfnrt'.includes(text[i + 1] as string)) i += 2;
        else fail("invalid escape in string");
      } else if (c < " ") fail("control character in string");
      else i++;
    }
  };
  const members = (close: "}" | "]", member: () => void): void => {
    i++; // the opening bracket
    skipSpace();
    if (text[i] === close) return void i++;
    for (;;) {
      member();
      skipSpace();
      if (text[i] === ",") i++;
      else if (text[i] === close) return void i++;
      else fail(`expected ',' or '${close}', found ${shown(text[i])}`);
    }
  };
  const value = (): void => {
    skipSpace();
    const c = text[i];
    if (c === "{") {
      members("}", () => {
        skipSpace();
        if (text[i] !== '"') fail(`expected a string key, found ${shown(text[i])}`);
        string();
        skipSpace();
        if (text[i] !== ":") fail(`expected ':', found ${shown(text[i])}`);
        i++;
        value();
      });
    } else if (c === "[") members("]", value);
    else if (c === '"') string();
    else {
      const literal = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
      literal.lastIndex = i;
      if (literal.exec(text) === null) fail(`unexpected ${shown(c)}`);
      i = literal.lastIndex;
    }
  };
  try {
    value();
    skipSpace();
    if (i < text.length) fail(`unexpected ${shown(text[i])} after the JSON value`);
    return null;
  } catch (error: unknown) {
    if (!(error instanceof SyntaxAt)) return null;
    const before = text.slice(0, error.offset);
    const line = before.split("\n").length;
    return { line, column: error.offset - before.lastIndexOf("\n"), reason: error.reason };
  }
}

/** Where the text breaks, and why: a plain value, since an Error would capture a stack for nothing. */
class SyntaxAt {
  readonly offset: number;
  readonly reason: string;
  constructor(offset: number, reason: string) {
    this.offset = offset;
    this.reason = reason;
  }
}

function shown(char: string | undefined): string {
  return char === undefined ? "the end of the text" : quoted(char);
}

/** Where an object sits in a source, for naming its keys: a level the source format names, or private content. */
type Place = "top" | "licence" | "labels" | "label table" | "vaults" | "vault" | "edges" | "edge" | "private";

/** The keys the source format names at each level whose key names are public. */
const NAMED: Partial<Record<Place, readonly string[]>> = KNOWN_KEYS;

/** What one pass over a source's text found, before it is parsed. */
export interface TextScan {
  /** A limit the text exceeds (nesting depth, or values for its size), as one line; the scan stops there. */
  readonly limit?: string;
  /** The first MAX_PROBLEMS repeated keys, each with its place, line and column. */
  readonly duplicates: readonly string[];
  readonly duplicateCount: number;
  /** The index of every vault with a repeated key of its own: its detail is never quoted. */
  readonly vaultsWithRepeatedKeys: ReadonlySet<number>;
  /** Whether the top level repeats a key (`vaults`, `internal_keys`): then no vault's detail is quoted. */
  readonly repeatedAtTop: boolean;
  /** The values' weight (contract/limits.ts), as far as the scan went. */
  readonly weight: number;
}

/** An object with more keys than this finds repeats with a Set; a smaller one by looking. */
const FEW_KEYS = 32;

/** One open object or array; frames are reused by depth, so the scan allocates nothing per value. */
interface Frame {
  place: Place;
  isObject: boolean;
  /** The first FEW_KEYS keys seen so far, for an object, and how many keys there are. */
  readonly firstKeys: string[];
  keyCount: number;
  /** Every key, once there are more than FEW_KEYS. */
  manyKeys: Set<string> | undefined;
  key: string;
  /** Commas seen so far: the index of the current element, for an array. */
  index: number;
  /** This value's key in its parent object, or its index in its parent array. */
  name: string;
  position: number;
}

/**
 * One linear pass over JSON text, in memory bounded by the nesting limit: checks the nesting depth and the values'
 * weight (contract/limits.ts) before anything is parsed, and finds every key repeated in its object, with its line
 * and column. `JSON.parse` silently keeps the last one, so a source could say `"suppressed": true` to a reader and
 * `false` to the build. Only keys the format names are named, and paths stop at the last known key: the names
 * inside internal keys, taglines and label tables stay private. On text that is not JSON its answer is moot.
 */
export function scanSourceText(text: string, bytes = text.length): TextScan {
  const duplicates: string[] = [];
  let duplicateCount = 0;
  const vaultsWithRepeatedKeys = new Set<number>();
  let repeatedAtTop = false;
  const stack: Frame[] = [];
  let depth = 0; // frames in use: stack[depth - 1] is the innermost open value
  let weight = 0;
  let line = 1;
  let lineStart = 0;
  const LITERAL = 1;
  let previous = 0; // the last structural character: a string after { or , in an object is a key
  const n = text.length;
  // The first backslash at or after the current string: a key holds an escape only when it comes before the key's end.
  // Found once per backslash, not looked for in each of a source's millions of keys.
  let backslash = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      if (depth >= MAX_NESTING_DEPTH) {
        return {
          limit: `nesting deeper than ${MAX_NESTING_DEPTH} objects and arrays (line ${line}, column ${
            i - lineStart + 1
          }); the limit is ${MAX_NESTING_DEPTH}`,
          duplicates,
          duplicateCount,
          vaultsWithRepeatedKeys,
          repeatedAtTop,
          weight,
        };
      }
      weight += VALUE_WEIGHT_OF_CONTAINER;
      const parent = depth === 0 ? undefined : (stack[depth - 1] as Frame);
      // Every field from the start: one object shape for the hot loop, and no cast.
      const frame = (stack[depth] ??= {
        place: "top",
        isObject: false,
        firstKeys: [],
        keyCount: 0,
        manyKeys: undefined,
        key: "",
        index: 0,
        name: "",
        position: 0,
      });
      frame.place = parent === undefined
        ? "top"
        : parent.isObject
        ? childPlace(parent.place, parent.key)
        : parent.place === "vaults"
        ? "vault"
        : parent.place === "edges"
        ? "edge"
        : "private";
      frame.isObject = c === 0x7b;
      frame.keyCount = 0;
      frame.manyKeys = undefined;
      frame.key = "";
      frame.index = 0;
      frame.name = parent?.key ?? "";
      frame.position = parent?.index ?? 0;
      depth++;
      previous = c;
    } else if (c === 0x7d || c === 0x5d) {
      if (depth > 0) depth--;
      previous = c;
    } else if (c === 0x2c) {
      if (depth > 0) (stack[depth - 1] as Frame).index++;
      previous = c;
    } else if (c === 0x3a) {
      previous = c;
    } else if (c === 0x0a) {
      line++;
      lineStart = i + 1;
    } else if (c === 0x22) {
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) break; // an unterminated string: not JSON, and the parser says where
      const top = depth === 0 ? undefined : (stack[depth - 1] as Frame);
      if (top?.isObject === true && (previous === 0x7b || previous === 0x2c)) {
        if (backslash !== n && backslash <= i) {
          backslash = text.indexOf("\\", i + 1);
          if (backslash === -1) backslash = n;
        }
        const key = backslash < end ? decodeKey(text.slice(i, end + 1)) : text.slice(i + 1, end);
        if (seenBefore(top, key)) {
          duplicateCount++;
          if (top.place === "vault") vaultsWithRepeatedKeys.add(top.position);
          if (depth === 1) repeatedAtTop = true;
          if (duplicates.length < MAX_PROBLEMS) {
            duplicates.push(duplicateMessage(pathOf(stack, depth), top.place, key, line, i - lineStart + 1));
          }
        }
        top.key = key;
      } else {
        weight++;
      }
      previous = 0x22;
      i = end;
    } else if (c !== 0x20 && c !== 0x09 && c !== 0x0d && previous !== LITERAL) {
      weight++; // the first character of a number, true, false or null
      previous = LITERAL;
    }
  }
  const allowed = maxValueWeight(bytes);
  if (weight > allowed) {
    const limit =
      `too many values for the file's size: they weigh ${weight} (an object or array ${VALUE_WEIGHT_OF_CONTAINER}, any other value 1); the limit for ${
        sizeOf(bytes)
      } is ${allowed}`;
    return { limit, duplicates, duplicateCount, vaultsWithRepeatedKeys, repeatedAtTop, weight };
  }
  return { duplicates, duplicateCount, vaultsWithRepeatedKeys, repeatedAtTop, weight };
}

/** The first repeated keys of valid JSON text (see `scanSourceText`). */
export function findDuplicateKeys(text: string): string[] {
  return [...scanSourceText(text, Number.MAX_SAFE_INTEGER).duplicates];
}

/** Records `key` in `frame`; true when the object already had it. */
function seenBefore(frame: Frame, key: string): boolean {
  const count = frame.keyCount++;
  if (count < FEW_KEYS) {
    for (let k = 0; k < count; k++) if (frame.firstKeys[k] === key) return true;
    frame.firstKeys[count] = key;
    return false;
  }
  const all = (frame.manyKeys ??= new Set(frame.firstKeys));
  if (all.has(key)) return true;
  all.add(key);
  return false;
}

/** A key with escapes, decoded; text that is not a JSON string (the scan ran on broken JSON) stays as is. */
function decodeKey(quoted: string): string {
  const read = readJson(quoted, { locate: false });
  return "ok" in read ? (read.ok as string) : quoted;
}

/** The path of the innermost of `depth` open values, as validation writes it, up to the last place that is not private. */
function pathOf(stack: readonly Frame[], depth: number): string {
  let path = "$";
  for (let k = 1; k < depth; k++) {
    const frame = stack[k] as Frame;
    if (frame.place === "private") break;
    path = (stack[k - 1] as Frame).isObject
      ? (path === "$" ? frame.name : `${path}.${frame.name}`)
      : `${path}[${frame.position}]`;
  }
  return path;
}

/** The places the format names below each place, by key; every other value is private content. */
const CHILDREN: Partial<Record<Place, Readonly<Record<string, Place>>>> = {
  top: { licence: "licence", labels: "labels", vaults: "vaults", edges: "edges" },
  labels: { class: "label table", status: "label table" },
};

function childPlace(place: Place, key: string): Place {
  const children = CHILDREN[place];
  return children !== undefined && Object.hasOwn(children, key) ? (children[key] as Place) : "private";
}

function duplicateMessage(path: string, place: Place, key: string, line: number, column: number): string {
  const at = `line ${line}, column ${column}`;
  if (NAMED[place]?.includes(key)) {
    return `${path}: duplicate key ${JSON.stringify(key)} (${at}); JSON keeps only the last one`;
  }
  const what = place === "label table"
    ? "a raw value"
    : place === "private"
    ? "a key inside an internal value"
    : "a key the format does not name";
  return `${path}: ${what} is repeated (${at}; its name is not printed); JSON keeps only the last one`;
}

/** True when the quote at `at` is escaped by an odd run of backslashes before it. */
function isEscaped(text: string, at: number): boolean {
  let k = at - 1;
  while (text.charCodeAt(k) === 0x5c) k--;
  return (at - 1 - k) % 2 === 1;
}
