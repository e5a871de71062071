/**
 * `npm run verify -- <base-url>`: checks a live deployment against the v1 contract and prints a
 * pass / warn / fail table (markdown). Exit 0 when nothing failed, 1 when a check failed, 2 on a
 * usage error.
 */
import { parseBaseUrl } from "../../contract/config.ts";
import { parseProcessArgs } from "../args.ts";
import { table, verify } from "../verify.ts";

const { values, positionals } = parseProcessArgs({
  usage: "npm run verify -- <base-url> [--static]",
  help: `
Checks a live deployment against the v1 contract: both addresses, identical bytes, ETags, content
types, CORS, conditional requests, HEAD, the schema, the document's shape, and that every URL in
the document and the Link header starts with <base-url> (the likeliest deploy mistake is a build
made for another base URL).

<base-url>  what consumers use, with the stage path if any (https://registry.example.org)

Flags:
  --static    the files of dist/static/ served by a static host: a host-made weak ETag and
              "; charset=utf-8" on the content type are warnings, not failures (detected on
              their own too when the answers carry no Content-Location header)
  -h, --help  this text

Exit codes: 0 nothing failed (warnings allowed); 1 a check failed; 2 a bad flag or argument.`,
  options: { static: { type: "boolean" } },
  positionals: { min: 1, max: 1 },
});
const base = parseBaseUrl(positionals[0] as string);
if ("error" in base) {
  process.stderr.write(`<base-url>: ${base.error} (usage: npm run verify -- <base-url> [--static]; --help for more)\n`);
  process.exit(2);
}
const checks = await verify(base.ok, { static: values["static"] === true });
console.log(table(base.ok, checks));
process.exitCode = checks.some((c) => c.result === "fail") ? 1 : 0;
