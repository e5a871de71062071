/**
 * The one path rule every runtime answers by (docs/http.md, "Paths"): the path of a request is the
 * pathname the WHATWG URL parser gives its target. Dot segments are resolved (`/api/../vaults.json`
 * is `/vaults.json`), as every fetch runtime does before our code sees the request; percent-encoded
 * bytes are never decoded (`/vaults%2ejson` is not `/vaults.json`); query and fragment are dropped;
 * case and trailing slashes matter. For an absolute-form target (`GET http://user:pw@host/x?t=y`)
 * only the pathname is kept, so neither userinfo, host nor query reaches an answer or a log line.
 * Web standards only.
 */

/** The path `target` names (origin-form, absolute-form or a full URL); `*` or a non-URL gives `null`. */
export function pathOf(target: string): string | null {
  let start = 0;
  if (!target.startsWith("/")) {
    // A full URL, as fetch runtimes hand it over: its path starts at the first / after the authority.
    const scheme = target.indexOf("://");
    if (scheme === -1) return null;
    start = target.indexOf("/", scheme + 3);
    if (start === -1) return parse(target);
  }
  const end = firstOf(target, start);
  const path = target.slice(start, end);
  // Nearly every request: nothing to resolve, so no URL parse.
  if (!path.includes("%") && !path.includes("/.") && !path.includes("\\") && (start === 0 || !path.startsWith("//"))) return path;
  return parse(start === 0 ? `http://path.invalid${target}` : target);
}

function parse(url: string): string | null {
  try {
    return new URL(url).pathname;
  } catch {
    return null;
  }
}

/** The index of the first `?` or `#` at or after `from`, or the length. */
function firstOf(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3f || c === 0x23) return i;
  }
  return text.length;
}
