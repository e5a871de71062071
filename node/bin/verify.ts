/**
 * `npm run verify -- <base-url>`: checks a live deployment against the v1 contract and prints a
 * pass / warn / fail table (markdown). Exit 0 when nothing failed, 1 when a check failed, 2 on a
 * usage error.
 */
import { parseBaseUrl } from "../../contract/config.ts";
import { parseProcessArgs } from "../cli/args.ts";
import { REQUEST_TIMEOUT_MS, RUN_DEADLINE_MS, table, verify } from "../verify/verify.ts";

const USAGE = "npm run verify -- <base-url> [--expect-base BASE] [--static]";

const { values, positionals } = parseProcessArgs({
  usage: USAGE,
  help: `
Checks a live deployment against the v1 contract: both addresses, identical bytes, ETags, content
types, CORS, conditional requests, HEAD, the document's shape, the schema it serves, and that
every URL in the document and the Link header starts with the base URL (the likeliest deploy
mistake is a build made for another base URL). The document is validated against verify's own
copy of the version's schema; the served schema must equal that copy.

<base-url>  where to fetch from, with the stage path if any (https://registry.example.org)

Flags:
  --expect-base BASE  the base URL the deployment is built for, when <base-url> is another:
                      verify a local server before you deploy it, e.g.
                      npm run verify -- http://127.0.0.1:8787 --expect-base https://registry.example.org
  --static    the files of dist/static/ served by a static host: a host-made weak ETag and
              "; charset=utf-8" on the content type are warnings, not failures (detected on
              their own too when the answers carry no Content-Location header)
  -h, --help  this text

Limits: each request ${REQUEST_TIMEOUT_MS / 1000} s, headers to last byte; a document body at most 16 MiB (twice the
largest document a build deploys), any other body 1 MiB; no redirect is followed; the whole run
${RUN_DEADLINE_MS / 1000} s. A request that fails (refused, timed out, reset, too large) is a FAIL row naming it.

Exit codes: 0 nothing failed (warnings allowed); 1 a check failed; 2 a bad flag or argument.`,
  options: { static: { type: "boolean" }, "expect-base": { type: "string" } },
  positionals: { min: 1, max: 1 },
});
const usage = (message: string): never => {
  process.stderr.write(`${message} (usage: ${USAGE}; --help for more)\n`);
  process.exit(2);
};
const base = parseBaseUrl(positionals[0] as string);
if ("error" in base) usage(`<base-url>: ${base.error}`);
const expectRaw = values["expect-base"] as string | undefined;
const expect = expectRaw === undefined ? undefined : parseBaseUrl(expectRaw);
if (expect !== undefined && "error" in expect) usage(`--expect-base: ${expect.error}`);
const from = (base as { ok: string }).ok;
const expectBase = (expect as { ok: string } | undefined)?.ok;
const checks = await verify(from, { static: values["static"] === true, ...(expectBase === undefined ? {} : { expectBase }) });
console.log(table(expectBase === undefined ? from : `${from} (built for ${expectBase})`, checks));
process.exitCode = checks.some((c) => c.result === "fail") ? 1 : 0;
