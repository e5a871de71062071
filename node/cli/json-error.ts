/**
 * Says where JSON text breaks and why, in the same words on every runtime (the engines' own
 * messages differ between versions, and some give no position at all). Only called on text that
 * `JSON.parse` has already refused, so it favours clarity over speed.
 */
import { KNOWN_KEYS } from "../../contract/source.ts";

/** The first syntax error in `text`, as 1-based line and column (UTF-16 code units), or null. */
export function locateJsonError(text: string): { line: number; column: number; reason: string } | null {
  let i = 0;
  const fail = (reason: string): never => {
    throw new SyntaxAt(i, reason);
  };
  const skipSpace = (): void => {
    while (i < text.length && " \t\n\r".includes(text[i] as string)) i++;
  };
  const expect = (char: string, what: string): void => {
    skipSpace();
    if (text[i] !== char) fail(`expected ${what}, found ${shown(text[i])}`);
    i++;
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
        expect(":", "':'");
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
    if (!(error instanceof SyntaxAt)) throw error;
    const before = text.slice(0, error.offset);
    const line = before.split("\n").length;
    return { line, column: error.offset - before.lastIndexOf("\n"), reason: error.reason };
  }
}

class SyntaxAt {
  readonly offset: number;
  readonly reason: string;
  constructor(offset: number, reason: string) {
    this.offset = offset;
    this.reason = reason;
  }
}

function shown(char: string | undefined): string {
  return char === undefined ? "the end of the text" : JSON.stringify(char);
}

/** Where an object sits in a source, for naming its keys: a level D1 knows, or private content. */
type Place = "top" | "licence" | "labels" | "label table" | "vaults" | "vault" | "edges" | "edge" | "private";

/** The keys D1 knows at each level whose key names are public. */
const NAMED: Partial<Record<Place, readonly string[]>> = {
  top: KNOWN_KEYS.top,
  licence: KNOWN_KEYS.licence,
  labels: KNOWN_KEYS.labels,
  vault: KNOWN_KEYS.vault,
  edge: KNOWN_KEYS.edge,
};

/**
 * Every object key that appears twice in the same object of valid JSON text, with its line and
 * column. `JSON.parse` silently keeps the last one, so a source could say `"suppressed": true` to a
 * reader and `false` to the build. Only keys D1 knows are named, and paths stop at the last known
 * key: the names inside internal keys, taglines and label tables stay private.
 * Iterative and linear: strings are skipped with indexOf, nesting depth costs no stack.
 */
export function findDuplicateKeys(text: string): string[] {
  interface Frame {
    /** The path of this value as validation writes it, up to the last place that is not private. */
    readonly path: string;
    readonly place: Place;
    readonly keys: Set<string> | null; // null for an array
    key: string;
    index: number;
  }
  const problems: string[] = [];
  const stack: Frame[] = [];
  let line = 1;
  let lineStart = 0;
  /** The place and path of the value about to start, from the frame holding it. */
  const next = (): { path: string; place: Place } => {
    const top = stack[stack.length - 1];
    if (top === undefined) return { path: "$", place: "top" };
    if (top.keys === null) {
      const place = top.place === "vaults" ? "vault" : top.place === "edges" ? "edge" : "private";
      return { path: place === "private" ? top.path : `${top.path}[${top.index}]`, place };
    }
    const place = childPlace(top.place, top.key);
    return { path: place === "private" ? top.path : top.path === "$" ? top.key : `${top.path}.${top.key}`, place };
  };
  let previous = 0; // the last structural character: a string after { or , in an object is a key
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      stack.push({ ...next(), keys: c === 0x7b ? new Set() : null, key: "", index: 0 });
      previous = c;
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      previous = c;
    } else if (c === 0x2c) {
      const top = stack[stack.length - 1];
      if (top !== undefined) top.index++;
      previous = c;
    } else if (c === 0x3a) {
      previous = c;
    } else if (c === 0x0a) {
      line++;
      lineStart = i + 1;
    } else if (c === 0x22) {
      let end = text.indexOf('"', i + 1);
      while (isEscaped(text, end)) end = text.indexOf('"', end + 1);
      const top = stack[stack.length - 1];
      if (top?.keys && (previous === 0x7b || previous === 0x2c)) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes("\\") ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (top.keys.has(key)) problems.push(duplicateMessage(top.path, top.place, key, line, i - lineStart + 1));
        top.keys.add(key);
        top.key = key;
      }
      previous = 0x22;
      i = end;
    }
  }
  return problems;
}

/** The places D1 knows below each place, by key; every other value is private content. */
const CHILDREN: Partial<Record<Place, Readonly<Record<string, Place>>>> = {
  top: { licence: "licence", labels: "labels", vaults: "vaults", edges: "edges" },
  labels: { class: "label table", status: "label table" },
};

/** The place of the value of `key` in an object at `place`. */
function childPlace(place: Place, key: string): Place {
  const children = CHILDREN[place];
  return children !== undefined && Object.hasOwn(children, key) ? (children[key] as Place) : "private";
}

function duplicateMessage(path: string, place: Place, key: string, line: number, column: number): string {
  const at = `line ${line}, column ${column}`;
  if (NAMED[place]?.includes(key)) return `${path}: duplicate key ${JSON.stringify(key)} (${at}); JSON keeps only the last one`;
  const what = place === "label table" ? "a raw value" : place === "private" ? "a key inside an internal value" : "an unknown key";
  return `${path}: ${what} is repeated (${at}; its name is not printed); JSON keeps only the last one`;
}

/** True when the quote at `at` is escaped by an odd run of backslashes before it. */
function isEscaped(text: string, at: number): boolean {
  let k = at - 1;
  while (text.charCodeAt(k) === 0x5c) k--;
  return (at - 1 - k) % 2 === 1;
}
