/** Entry point of `registry-endpoint keygen`: see `../builder/keygen.ts`. */
import { runAsProcess } from "../common/args.ts";
import { runKeygen } from "../builder/keygen.ts";

await runAsProcess(runKeygen);
