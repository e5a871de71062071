/**
 * The one path rule (docs/http.md, "Paths"): the WHATWG URL parser's pathname. Percent-encoded bytes are never decoded;
 * for an absolute-form target neither userinfo, host nor query reaches an answer or a log line.
 */

/**
 * An authority the URL parser surely takes as it is: a host name whose last label starts with a letter (one ending in a
 * number is read as an IPv4 address, and may be refused), or a dotted-quad IPv4 address; and a port of digits. Anything
 * else is left to the parser.
 */
const PLAIN_AUTHORITY =
  /^(?:(?:[a-z0-9]+(?:-[a-z0-9]+)*\.)*[a-z][a-z0-9]*(?:-[a-z0-9]+)*|(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d))(?::(\d{1,5}))?$/;

/**
 * The path `target` names: origin-form (`/x?q`), or an absolute `http://` or `https://` URL (an absolute-form target,
 * or the full URL a fetch runtime hands over). Anything else (`*`, another scheme, a URL the parser refuses, such as
 * one with port 99999) gives `null`.
 */
export function pathOf(target: string): string | null {
  // A request's target is read twice on Node (the request guard, then the answer) and clients repeat theirs.
  // Only a string is kept: a runtime's broken request may hand anything, which must fail as it always did.
  // Stryker disable next-line ConditionalExpression,LogicalOperator: the memo saves work only; a path read again is the same
  if (target === lastTarget && typeof target === "string") return lastPath;
  const path = pathOfTarget(target);
  if (typeof target === "string" && keepable(target)) [lastTarget, lastPath] = [target, path];
  return path;
}

/** A target with no query, fragment or userinfo (`?`, `#`, `@`): kept, it holds nothing a request's sender may hide. */
function keepable(target: string): boolean {
  return !target.includes("?") && !target.includes("#") && !target.includes("@");
}

/** The last target `pathOf` read that `keepable` lets it keep, and its path. */
let lastTarget: string | undefined;
let lastPath: string | null = null;

function pathOfTarget(target: string): string | null {
  const plain = plainPathOf(target);
  if (plain !== undefined) return plain;
  if (target.startsWith("/")) return parse(`http://path.invalid${target}`);
  return target.startsWith("http://") || target.startsWith("https://") ? parse(target) : null;
}

/**
 * The path of a plain target without the URL parser, as the parser would give it, or undefined where the parser must
 * decide: nearly every request is plain (no `%`, dot segment or backslash in its path, and, absolute, a plain authority
 * followed by `/`: `http://h?/vaults.json` has the path `/`, and `http://h:99999/` is no URL).
 */
function plainPathOf(target: string): string | undefined {
  let start = 0;
  if (!target.startsWith("/")) {
    const authority = target.startsWith("http://") ? 7 : target.startsWith("https://") ? 8 : -1;
    if (authority === -1) return undefined;
    // Up to the first `/`: a `?`, `#` or `\` before it makes no plain authority.
    start = target.indexOf("/", authority);
    if (start === -1 || !plainAuthority(target.slice(authority, start))) return undefined;
  }
  const path = target.slice(start, firstOf(target, start));
  return !path.includes("%") && !path.includes("/.") && !path.includes("\\") && (start === 0 || !path.startsWith("//"))
    ? path
    : undefined;
}

function parse(url: string): string | null {
  try {
    return new URL(url).pathname;
  } catch {
    return null;
  }
}

/**
 * True when the URL parser surely reads `authority` (`host` or `host:port`, lower case) back as it is: a plain host
 * name or dotted-quad address and a port up to 65535. False means "ask the parser".
 */
export function plainAuthority(authority: string): boolean {
  const match = PLAIN_AUTHORITY.exec(authority);
  return match !== null && (match[1] === undefined || Number(match[1]) <= 65535);
}

/** The index of the first `?` or `#` at or after `from`, or the length. */
function firstOf(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3f || c === 0x23) return i;
  }
  return text.length;
}
