/** Entry point of `npm start`: see `../serve/server.ts`. */
import { runAsProcess } from "../cli/args.ts";
import { runServe } from "../serve/server.ts";

await runAsProcess(runServe);
