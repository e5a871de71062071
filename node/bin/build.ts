/** Entry point of `npm run build`: see `../builder/build.ts`. */
import { runAsProcess } from "../common/args.ts";
import { runBuild } from "../builder/build.ts";

await runAsProcess(runBuild);
