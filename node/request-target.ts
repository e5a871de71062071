/**
 * The path of an HTTP request target, the one part of a request the Node servers answer by and
 * log: origin-form up to `?`; for an absolute-form target (`GET http://user:pw@host/x?token=y`),
 * its pathname alone, so that neither userinfo, host nor query reaches an answer or a log line.
 */

/** The path of `target`; `*` (or anything that is not a URL) gives `null`. */
export function pathOf(target: string): string | null {
  if (!target.startsWith("/")) {
    try {
      return new URL(target).pathname;
    } catch {
      return null;
    }
  }
  const query = target.indexOf("?");
  return query === -1 ? target : target.slice(0, query);
}
