/** Entry point of `npm run registry`: see `../review/registry-command.ts`. */
import { runAsProcess } from "../common/args.ts";
import { runRegistry } from "../review/registry-command.ts";

await runAsProcess(runRegistry);
