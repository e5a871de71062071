/** Entry point of `npm run verify`: see `../verify/command.ts`. */
import { runAsProcess } from "../common/args.ts";
import { runVerify } from "../verify/command.ts";

await runAsProcess(runVerify);
