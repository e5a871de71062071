/** Entry point of `registry-endpoint keygen`: see `../build/keygen.ts`. */
import { runAsProcess } from "../cli/args.ts";
import { runKeygen } from "../build/keygen.ts";

await runAsProcess(runKeygen);
