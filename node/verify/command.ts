import { rename, rm, writeFile } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { parseBaseUrl, sentUrl, shownUrl } from "../../contract/config.ts";
import { isObject } from "../../contract/json.ts";
import { type Command, type CommandSpec, parseOrExit, usageLine } from "../common/args.ts";
import { readJsonFile } from "./document-file.ts";
import { FEED_BODY_CAP } from "./feeds.ts";
import { DOCUMENT_BODY_CAP, type ManifestState, table, verify } from "./verify.ts";
import { readJson } from "../common/json-error.ts";
import { oneLine } from "../common/printable.ts";
import { isRemote, request, REQUEST_TIMEOUT_MS, RUN_DEADLINE_MS, timeout } from "../common/request.ts";

const SPEC: CommandSpec = {
  usage:
    "npm run verify -- <base-url> [--expect-base BASE] [--static] [--previous-document FILE] [--keys FILE|URL] [--state FILE]",
  help: `
Checks a live deployment against the v1 contract: both addresses, identical bytes, ETags, content
types, CORS, conditional requests, HEAD, the document's shape, the schema it serves, and that
every URL in the document and the Link header starts with the base URL (the likeliest deploy
mistake is a build made for another base URL). The document is validated against verify's own
copy of the version's schema; the served schema must equal that copy.

The change feeds (/api/registry.v1.changes.json and .atom), when the document links them: read by
a third-party parser (feedsmith), RFC 4287's required elements, unique ids, the same items in both,
no detail of a withheld or unlisted vault, and the items replayed by the catch-up rule landing on
the served document's vaults and edges. A build that links no feed and serves none (one from
before the feeds) is a warning; a linked feed that is not served fails.

<base-url>  where to fetch from, with the stage path if any (https://registry.example.org)
`,
  flags: {
    "expect-base": {
      type: "string",
      value: "BASE",
      help:
        "the base URL the deployment is built for, when <base-url> is another: verify a local server before you deploy it, e.g.",
      example: "npm run verify -- http://127.0.0.1:8787 --expect-base https://registry.example.org",
    },
    static: {
      type: "boolean",
      help:
        'the files of dist/static/ served by a static host: a host-made weak ETag and "; charset=utf-8" on the content type are warnings, not failures (detected on their own too when the answers carry no Content-Location header)',
    },
    "previous-document": {
      type: "string",
      value: "FILE",
      help:
        "an earlier built document of this deployment (its versioned document): the feed's items newer than it, replayed onto it, must give the served vaults and edges",
    },
    keys: {
      type: "string",
      value: "FILE|URL",
      help:
        "the public JWK Set you pinned (registry-endpoint keygen prints it; the build serves it at /api/registry.keys.json, but a key read from the deployment it checks proves nothing: a warning says so). The manifest of the version /vaults.json serves must be served and verify: a signature by a pinned key (signature), its iss and version (issuer), exp not past (expired: a frozen deployment), and every file read must match its SHA-256 (digest: on a mismatch the manifest is fetched again from the same URL with Cache-Control: no-cache, and every file read checked against it, each that differs fetched again the same way, before it fails). A URL is named by its host and path only; one with a user name or password is refused",
    },
    state: {
      type: "string",
      value: "FILE",
      help:
        "with --keys: what was last accepted per (iss, version), read and then written back when every check passes: a lower seq (rollback), or the same seq with other files (equivocation) or an older iat (rollback), fails",
    },
  },
  notes: `
Limits: each request ${REQUEST_TIMEOUT_MS / 1000} s, headers to last byte; a document body at most ${
    DOCUMENT_BODY_CAP / 1048576
  } MiB (the
largest document a build makes), a feed ${FEED_BODY_CAP / 1048576} MiB (twice the largest feed), any other body 1 MiB,
--previous-document ${DOCUMENT_BODY_CAP / 1048576} MiB; no redirect is followed; the whole run ${
    RUN_DEADLINE_MS / 1000
  } s. A request that
fails (refused, timed out, reset, too large) is a FAIL row naming it. Control characters a server
sends are removed before anything is printed.

Exit codes: 0 nothing failed (warnings allowed); 1 a check failed, or --previous-document cannot
be read; 2 a bad flag or argument.`,
  positionals: { min: 1, max: 1 },
};

/** `npm run verify` as a function: checks the deployment and prints the table. */
export const runVerify: Command = async (argv, _env, io) => {
  const parsed = parseOrExit(SPEC, argv, io);
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const usage = (message: string): 2 => {
    io.stderr(`${oneLine(message)} (usage: ${usageLine(SPEC, io)}; --help for more)\n`);
    return 2;
  };
  // One line each: a path given (--state, --keys, --previous-document) may hold a newline.
  const fail = (message: string): 1 => {
    io.stderr(`${oneLine(message)}\n`);
    return 1;
  };
  const base = parseBaseUrl(positionals[0] as string);
  if ("error" in base) return usage(`<base-url>: ${base.error}`);
  const expectRaw = values["expect-base"] as string | undefined;
  const expect = expectRaw === undefined ? undefined : parseBaseUrl(expectRaw);
  if (expect !== undefined && "error" in expect) return usage(`--expect-base: ${expect.error}`);
  const [from, expectBase] = [base.ok, expect?.ok];
  const previousPath = values["previous-document"] as string | undefined;
  let previousDocument: { name: string; value: unknown; etag: string } | undefined;
  if (previousPath !== undefined) {
    const read = await readJsonFile(previousPath, DOCUMENT_BODY_CAP, io.cwd);
    if ("error" in read) return fail(`--previous-document ${read.error}`);
    previousDocument = { name: basename(previousPath), value: read.ok, etag: read.etag };
  }
  const keysLocation = values["keys"] as string | undefined;
  const statePath = values["state"] as string | undefined;
  if (statePath !== undefined && keysLocation === undefined) return usage("--state: only with --keys");
  let keys: unknown;
  const notes: string[] = [];
  if (keysLocation !== undefined) {
    // Named as verify names the deployment's paths: by path on its origin, else by host and path.
    const shown = sentUrl(keysLocation, from);
    let keysUrl: URL | undefined;
    if (isRemote(keysLocation)) {
      keysUrl = URL.canParse(keysLocation) ? new URL(keysLocation) : undefined;
      if (keysUrl === undefined) return usage(`--keys: not a URL: ${shownUrl(keysLocation)}`);
      if (keysUrl.username !== "" || keysUrl.password !== "") {
        return usage(`--keys ${shown}: a URL with a user name or password is not fetched`);
      }
    }
    const read = keysUrl === undefined
      ? await readJsonFile(keysLocation, 1024 * 1024, io.cwd)
      : await fetchKeys(keysUrl, shown);
    if ("error" in read) return fail(`--keys ${read.error}`);
    keys = read.ok;
    if (
      keysUrl !== undefined && [from, expectBase].some((b) => b !== undefined && new URL(b).origin === keysUrl.origin)
    ) {
      notes.push(
        `warning: --keys ${shown} is on the deployment's own origin: whoever can change the deployment can change these keys; pin keys obtained out of band`,
      );
    }
  }
  const stateKey = (iss: string, version: number) => `${iss} v${version}`;
  let stored: Record<string, ManifestState> = {};
  if (statePath !== undefined) {
    const read = await readJsonFile(statePath, 1024 * 1024, io.cwd);
    if ("error" in read && !read.error.includes("ENOENT")) return fail(`--state ${read.error}`);
    if ("ok" in read) {
      if (!isObject(read.ok)) return fail(`--state ${statePath}: not a state file`);
      const whole = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
      const hex = (v: unknown) => typeof v === "string" && /^[0-9a-f]{64}$/.test(v);
      // filesSha256 is absent from a state written before verify kept it.
      const bad = Object.entries(read.ok).find(([, v]) =>
        !isObject(v) || !whole(v["seq"]) || !whole(v["iat"]) || !hex(v["sha256"]) ||
        (v["filesSha256"] !== undefined && !hex(v["filesSha256"]))
      );
      // A damaged entry would switch the rollback check off: refused, never rewritten.
      if (bad !== undefined) {
        return fail(
          `--state ${statePath}: an entry that is not { seq, iat, sha256, filesSha256 } as verify writes it; restore it or remove it`,
        );
      }
      stored = read.ok as Record<string, ManifestState>;
    }
  }
  let accepted: (ManifestState & { iss: string; version: number }) | undefined;
  const checks = await verify(from, {
    ...(keys === undefined ? {} : { keys, onAccepted: (s) => void (accepted = s) }),
    // Looked up by the version /vaults.json turns out to serve, as it is written below.
    state: (version) => stored[stateKey(expectBase ?? from, version)],
    static: values["static"] === true,
    ...(expectBase === undefined ? {} : { expectBase }),
    ...(previousDocument === undefined ? {} : { previousDocument }),
  });
  for (const note of notes) checks.push({ name: "pinned keys", result: "warn", detail: note });
  io.stdout(`${table(expectBase === undefined ? from : `${from} (built for ${expectBase})`, checks)}\n`);
  const failed = checks.some((c) => c.result === "fail");
  if (!failed && statePath !== undefined && accepted !== undefined) {
    const { iss, version, ...kept } = accepted;
    const file = resolve(io.cwd, statePath);
    // A name of its own, created here ("wx"): no link planted beside the state file is followed.
    const staged = `${file}.${crypto.randomUUID()}.tmp`;
    try {
      await writeFile(staged, `${JSON.stringify({ ...stored, [stateKey(iss, version)]: kept }, null, 2)}\n`, {
        flag: "wx",
      });
      await rename(staged, file);
    } catch (error: unknown) {
      await rm(staged, { force: true }).catch(() => {});
      return fail(`--state ${statePath}: cannot write it (${(error as NodeJS.ErrnoException).code ?? "error"})`);
    }
  }
  return failed ? 1 : 0;
};

/** The pinned key set at `url`, named as `shown`: never with the query or fragment it may hold (a token). */
async function fetchKeys(url: URL, shown: string): Promise<{ ok: unknown } | { error: string }> {
  const deadline = timeout(RUN_DEADLINE_MS);
  try {
    const res = await request(url.href, {
      method: "GET",
      headers: {},
      cap: 1024 * 1024,
      timeoutMs: REQUEST_TIMEOUT_MS,
      deadline: deadline.signal,
      deadlineMs: RUN_DEADLINE_MS,
      reader: "--keys",
      shownAs: shown,
    });
    if (res.status !== 200) return { error: `${shown}: answered ${res.status}` };
    return readJson(res.body.toString("utf8"), { place: shown, says: "not JSON", locate: false });
  } catch (error: unknown) {
    return { error: String((error as Error).message) };
  } finally {
    deadline.clear();
  }
}
