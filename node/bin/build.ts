/** Entry point of `npm run build`: see `../build/build.ts`. */
import { runAsProcess } from "../cli/args.ts";
import { runBuild } from "../build/build.ts";

await runAsProcess(runBuild);
