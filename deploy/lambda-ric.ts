/**
 * `npm run lambda-ric`: builds the native client of aws-lambda-ric in deploy/tools/ (see
 * ric-build.mjs). Once built, `npm test` runs the Lambda package under the real client. Already
 * built, it says so and does nothing.
 */
import { existsSync } from "node:fs";
import { parseProcessArgs } from "../node/common/args.ts";
import { buildRic, RIC_ADDON } from "./ric-build.mjs";

parseProcessArgs({
  usage: "npm run lambda-ric [-- --help]",
  help: `
Builds the native client of aws-lambda-ric (deploy/tools/node_modules/aws-lambda-ric) with its
own preinstall and postinstall scripts: curl and aws-lambda-cpp from the package's archives,
then the addon with node-gyp. Needs cmake, make, g++, python3 and xz (on Debian: apt-get install
cmake make g++ python3 xz-utils); no autotools, since the archive's configure is current. It
takes under a minute to 5 minutes on 2 cores, most of it curl's configure and make. When the
client is already built (rapid-client.node is there) it does nothing. In CI (CI set) npm ci's
postinstall runs the same build; afterwards npm test runs the packaged Lambda function under the
real runtime interface client (test/recipes.test.ts). With RIC_STAGE set to a folder where
\`node deploy/ric-build.mjs --stage DIR\` built curl and aws-lambda-cpp (.ci/run does so beside npm
ci), it builds only the addon, from those.

Exit codes: 0 built or already built; 1 the package is not installed, a build tool is missing or
a build step failed; 2 a bad flag.`,
  flags: {},
  positionals: { min: 0, max: 0 },
});

if (existsSync(RIC_ADDON)) {
  console.log("lambda-ric: already built (deploy/tools/node_modules/aws-lambda-ric/rapid-client.node)");
  process.exit(0);
}
const stage = process.env["RIC_STAGE"] ?? "";
const failed = buildRic(stage === "" ? undefined : stage);
if (failed !== undefined) {
  console.error(`lambda-ric: ${failed}`);
  process.exit(1);
}
console.log("lambda-ric: built; npm test now runs the Lambda package under it");
