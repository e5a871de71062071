/**
 * `npm run verify -- <base-url>`: checks a live deployment against the v1 contract and prints a
 * pass/fail table (markdown). Exits 1 if any check fails, 2 on a usage error.
 */
import { parseBaseUrl } from "../../contract/config.ts";
import { table, verify } from "../verify.ts";

const args = process.argv.slice(2);
const base = args.length === 1 ? parseBaseUrl(args[0] as string) : { error: "expected exactly one argument" };
if ("error" in base) {
  process.stderr.write(`usage: npm run verify -- <base-url>\n<base-url>: ${base.error}\n`);
  process.exit(2);
}
const checks = await verify(base.ok);
console.log(table(base.ok, checks));
process.exitCode = checks.every((c) => c.pass) ? 0 : 1;
