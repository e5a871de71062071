/**
 * `npm run lambda-ric`: builds the native client of aws-lambda-ric in deploy/tools/ by running the
 * package's own install scripts, which `npm ci` skips (allowScripts: false) because they need
 * build tools a fresh machine lacks. Once built, `npm test` also runs the Lambda package under it.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseProcessArgs } from "../node/common/args.ts";

parseProcessArgs({
  usage: "npm run lambda-ric [-- --help]",
  help: `
Builds the native client of aws-lambda-ric (deploy/tools/node_modules/aws-lambda-ric) with its
own preinstall and postinstall scripts: curl and aws-lambda-cpp from the package's archives,
then the addon with node-gyp. Needs autoconf, automake, libtool, cmake, make and a C++ compiler
(on Debian: apt-get install autoconf automake libtool cmake g++). Afterwards npm test runs the
packaged Lambda function under the real runtime interface client (test/recipes.test.ts).

Flags:
  -h, --help  this text

Exit codes: 0 built; 1 the package is not installed or a build step failed; 2 a bad flag.`,
  options: {},
  positionals: { min: 0, max: 0 },
});

const pkg = join(resolve(dirname(fileURLToPath(import.meta.url))), "tools", "node_modules", "aws-lambda-ric");
if (!existsSync(join(pkg, "package.json"))) {
  console.error("lambda-ric: deploy/tools/node_modules/aws-lambda-ric is not installed (run npm ci first)");
  process.exit(1);
}
for (const script of ["preinstall.sh", "postinstall.sh"]) {
  const done = spawnSync("sh", [join(pkg, "scripts", script)], { stdio: "inherit" });
  if (done.status !== 0) {
    console.error(`lambda-ric: ${script} failed (exit ${done.status ?? done.signal}); see its output above`);
    process.exit(1);
  }
}
console.log("lambda-ric: built; npm test now runs the Lambda package under it");
