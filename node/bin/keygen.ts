/** Entry point of `registry-endpoint keygen`: see `../build/keygen.ts`. */
import { runAsProcess } from "../common/args.ts";
import { runKeygen } from "../builder/keygen.ts";

await runAsProcess(runKeygen);
