/**
 * `npm run verify -- <base-url>`: checks a live deployment against the v1 contract and prints a
 * pass / warn / fail table (markdown). Exit 0 when nothing failed, 1 when a check failed, 2 on a
 * usage error.
 */
import { basename } from "node:path";
import { parseBaseUrl } from "../../contract/config.ts";
import { type Command, type CommandSpec, parseOrExit } from "../cli/args.ts";
import { readJsonFile } from "./document-file.ts";
import { FEED_BODY_CAP } from "./feeds.ts";
import { DOCUMENT_BODY_CAP, REQUEST_TIMEOUT_MS, RUN_DEADLINE_MS, table, verify } from "./verify.ts";

const USAGE = "npm run verify -- <base-url> [--expect-base BASE] [--static] [--previous-document FILE]";

const SPEC: CommandSpec = {
  usage: USAGE,
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

Flags:
  --expect-base BASE  the base URL the deployment is built for, when <base-url> is another:
                      verify a local server before you deploy it, e.g.
                      npm run verify -- http://127.0.0.1:8787 --expect-base https://registry.example.org
  --static    the files of dist/static/ served by a static host: a host-made weak ETag and
              "; charset=utf-8" on the content type are warnings, not failures (detected on
              their own too when the answers carry no Content-Location header)
  --previous-document FILE
              an earlier built document of this deployment (its versioned document): the
              feed's items newer than it, replayed onto it, must give the served vaults and edges
  -h, --help  this text

Limits: each request ${REQUEST_TIMEOUT_MS / 1000} s, headers to last byte; a document body at most ${
    DOCUMENT_BODY_CAP / 1048576
  } MiB (twice the
largest document a build deploys), a feed ${FEED_BODY_CAP / 1048576} MiB (twice the largest feed), any other body 1 MiB,
--previous-document ${DOCUMENT_BODY_CAP / 1048576} MiB; no redirect is followed; the whole run ${
    RUN_DEADLINE_MS / 1000
  } s. A request that
fails (refused, timed out, reset, too large) is a FAIL row naming it. Control characters a server
sends are removed before anything is printed.

Exit codes: 0 nothing failed (warnings allowed); 1 a check failed, or --previous-document cannot
be read; 2 a bad flag or argument.`,
  options: { static: { type: "boolean" }, "expect-base": { type: "string" }, "previous-document": { type: "string" } },
  positionals: { min: 1, max: 1 },
};

/** `npm run verify` as a function: checks the deployment, prints the table, returns the exit code. */
export const runVerify: Command = async (argv, _env, io) => {
  const parsed = parseOrExit(SPEC, argv, io);
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const usage = (message: string): 2 => {
    io.stderr(`${message} (usage: ${USAGE}; --help for more)\n`);
    return 2;
  };
  const base = parseBaseUrl(positionals[0] as string);
  if ("error" in base) return usage(`<base-url>: ${base.error}`);
  const expectRaw = values["expect-base"] as string | undefined;
  const expect = expectRaw === undefined ? undefined : parseBaseUrl(expectRaw);
  if (expect !== undefined && "error" in expect) return usage(`--expect-base: ${expect.error}`);
  const from = base.ok;
  const expectBase = expect?.ok;
  const previousPath = values["previous-document"] as string | undefined;
  let previousDocument: { name: string; value: unknown; etag: string } | undefined;
  if (previousPath !== undefined) {
    const read = await readJsonFile(previousPath, DOCUMENT_BODY_CAP, io.cwd);
    if ("error" in read) {
      io.stderr(`--previous-document ${read.error}\n`);
      return 1;
    }
    previousDocument = { name: basename(previousPath), value: read.ok, etag: read.etag };
  }
  const checks = await verify(from, {
    static: values["static"] === true,
    ...(expectBase === undefined ? {} : { expectBase }),
    ...(previousDocument === undefined ? {} : { previousDocument }),
  });
  io.stdout(`${table(expectBase === undefined ? from : `${from} (built for ${expectBase})`, checks)}\n`);
  return checks.some((c) => c.result === "fail") ? 1 : 0;
};
