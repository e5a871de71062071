/**
 * Says where JSON text breaks and why, in the same words on every runtime (the engines' own
 * messages differ between versions, and some give no position at all). Only called on text that
 * `JSON.parse` has already refused, so it favours clarity over speed.
 */

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
