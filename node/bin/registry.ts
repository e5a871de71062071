/** Entry point of `npm run registry`: see `../review/registry-command.ts`. */
import { runCli } from "../review/registry-command.ts";

const result = await runCli(process.argv.slice(2), process.env);
process.stderr.write(result.stderr);
process.stdout.write(result.stdout);
process.exitCode = result.code;
