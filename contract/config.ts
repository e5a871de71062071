import { isUtcTimestamp, NOT_A_TIMESTAMP } from "./source.ts";

const DEFAULT_BASE_URL = "http://localhost:8787";

/** The configuration a build needs. */
export interface Config {
  readonly baseUrl: string;
  readonly builtAt: string;
}

/** The environment variables read, by name; a missing or empty one counts as unset. */
export type Env = Readonly<Record<string, string | undefined>>;

/** Each setting from its flag, else its variable, else `now` (to the second) or the default; or every problem. */
export function resolveConfig(
  env: Env,
  explicit: { baseUrl?: string | undefined; builtAt?: string | undefined } = {},
  now: () => Date = () => new Date(),
): { ok: Config } | { problems: string[] } {
  const problems: string[] = [];
  let baseUrl = DEFAULT_BASE_URL;
  const rawBase = explicit.baseUrl ?? nonEmpty(env["BASE_URL"]);
  if (rawBase !== undefined) {
    const parsed = parseBaseUrl(rawBase);
    if ("error" in parsed) {
      problems.push(`${explicit.baseUrl !== undefined ? "--base-url" : "BASE_URL"}: ${parsed.error}`);
    } else baseUrl = parsed.ok;
  }
  // Stryker disable next-line StringLiteral: always assigned unless a problem is reported
  let builtAt = "";
  const epoch = nonEmpty(env["SOURCE_DATE_EPOCH"]);
  if (explicit.builtAt !== undefined) {
    if (isUtcTimestamp(explicit.builtAt)) builtAt = explicit.builtAt;
    else problems.push(`--built-at: ${NOT_A_TIMESTAMP}, got ${JSON.stringify(explicit.builtAt)}`);
  } else if (epoch !== undefined) {
    const parsed = builtAtFromEpoch(epoch);
    if ("error" in parsed) problems.push(`SOURCE_DATE_EPOCH: ${parsed.error}`);
    else builtAt = parsed.ok;
  } else {
    builtAt = formatTimestamp(now());
  }
  return problems.length > 0 ? { problems } : { ok: { baseUrl, builtAt } };
}

/** A base URL normalized (trailing slashes dropped), or what is wrong; a URL with `user:password@` is never echoed. */
export function parseBaseUrl(raw: string): { ok: string } | { error: string } {
  const notHttp = {
    error: `expected an absolute http or https URL without query, fragment or credentials, got ${shownUrl(raw)}`,
  };
  if (!URL.canParse(raw)) return notHttp;
  const url = new URL(raw);
  if (url.username !== "" || url.password !== "") {
    return {
      error:
        "a base URL must not hold a user name or password (user:password@ before the host); the value is not printed",
    };
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || raw.includes("?") || raw.includes("#")) return notHttp;
  const path = url.pathname.replace(/\/+$/, "");
  const badPath = (rule: string) => ({ error: `a base URL's path may ${rule}, got ${shownUrl(raw)}` });
  // Static hosts decode `%` and read `:` and `*` in `_headers` as placeholders: only characters every host takes as is.
  if (!path.split("/").slice(1).every((segment) => BASE_PATH_SEGMENT.test(segment))) {
    return badPath(
      "hold only letters, digits and - . _ ~ between single slashes (the static export names its folders after it)",
    );
  }
  if (path.startsWith("/_")) {
    return badPath("not start with _ (static hosts read _headers, _redirects and the like at the root)");
  }
  return { ok: `${url.origin}${path}` };
}

/**
 * Unreserved characters (RFC 3986), not `@`: `https://deploy:8443/s3cr3t@registry.example` parses as a host, a port and
 * a path, where the operator may have meant a password, and the path is published in every URL.
 */
const BASE_PATH_SEGMENT = /^[A-Za-z0-9._~-]+$/;

/**
 * A URL from the operator as a message may show it: quoted up to its query or fragment (which may hold a token); not at
 * all with an `@` anywhere, in any width, or a `:` in its host part before no port (either may be a user name and
 * password: `http://deploy:s3cr3t/x` lacks only the `@host`).
 */
export function shownUrl(raw: string): string {
  // NFKC, with `%40`, `%3F`, `%23` read as what they encode: a fullwidth `？` or an encoded `@` hides a token as well.
  // Then as the URL parser reads it: without the C0 controls and spaces around it, nor tabs and newlines within.
  const text = raw.normalize("NFKC");
  if (/@|%40/i.test(text)) return "a value with an @, not printed (it may hold a user name or password)";
  const parsed = text.replace(/^[\0-\x20]+|[\0-\x20]+$/g, "").replace(/[\t\n\r]/g, "");
  // The host part: after the scheme and its slashes (`\` is one to the URL parser), else from the start (`host:port`),
  // up to the path, query or fragment; a bracketed IPv6 literal at its start is no password's colon.
  const start = /^(?:[a-z][a-z0-9+.-]*:)?[/\\]+/i.exec(parsed)?.[0].length ?? 0;
  // Stryker disable next-line StringLiteral: the bracketed literal only has to go; any text without a colon in its place gives the same verdict
  const host = (parsed.slice(start).split(/[/\\?#]/, 1)[0] as string).replace(/^\[[^\]]*\]/, "");
  if (/:(?!\d{0,5}$)/.test(host)) {
    return "a value with a : in its host part that is not before a port, not printed (it may hold a user name and password)";
  }
  const end = text.search(/[?#]|%3f|%23/i);
  return end < 0 ? JSON.stringify(raw) : `${JSON.stringify(text.slice(0, end))} and a query or fragment, not printed`;
}

/**
 * A URL a server sent (a redirect's `Location`, a link), resolved against `base`, as a message may name it: its host
 * (when not `base`'s) and path only, never a user name, password, query or fragment it holds.
 */
export function sentUrl(raw: string | null, base: string): string {
  if (raw === null) return "nowhere";
  try {
    const url = new URL(raw, base);
    const shown = url.origin === new URL(base).origin ? url.pathname : `${url.host}${url.pathname}`;
    // The parser finds no user name in some spellings that hold one (`foo:user:pass@host`).
    return /@|%40/i.test(shown) ? "an address holding an @, not printed (it may hold a user name or password)" : shown;
  } catch {
    return "an address that is not a URL";
  }
}

/**
 * A command-line value as a message may show it, quoted: as `shownUrl` shows it when it has a `:` or an `@` (it may be
 * a URL with a user name or password, say a `--base-url` given without its flag), else as it is.
 */
export function shownArgument(raw: string): string {
  return /[:@\uff1a\uff20\ufe55\ufe6b]|%40/i.test(raw) ? shownUrl(raw) : JSON.stringify(raw);
}

/**
 * A file or folder named on the command line as a message may name it: as it is, unless it starts
 * like a URL (a scheme of two letters or more, then a colon: not `C:`), then as `shownUrl` shows it.
 */
export function shownPath(raw: string): string {
  if (!/^[\0-\x20]*[a-z][a-z0-9+.-]+:/i.test(raw.normalize("NFKC"))) return raw;
  const shown = shownUrl(raw);
  return shown === JSON.stringify(raw) ? raw : shown;
}

/** The latest instant that RFC 3339 can write with a four-digit year. */
const LAST_EPOCH_SECOND = 253402300799;

/** `built_at` from `SOURCE_DATE_EPOCH` (whole seconds since 1970), or what is wrong with it. */
function builtAtFromEpoch(raw: string): { ok: string } | { error: string } {
  if (!/^\d{1,12}$/.test(raw) || Number(raw) > LAST_EPOCH_SECOND) {
    return {
      error: `expected whole seconds since 1970-01-01 (at most ${LAST_EPOCH_SECOND}), got ${JSON.stringify(raw)}`,
    };
  }
  return { ok: formatTimestamp(new Date(Number(raw) * 1000)) };
}

/** An instant as RFC 3339 UTC with whole seconds (`2026-11-14T08:30:00Z`). */
function formatTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === "" ? undefined : value;
}
