/** Entry point of `npm start`: see `../serve/server.ts`. */
import { processIo } from "../common/args.ts";
import { runServe } from "../serve/server.ts";
import { processStopSignal } from "../serve/shutdown.ts";

const stop = processStopSignal();
// Ended at once when the server has stopped: a natural end would first drop the signal listeners,
// and a second SIGTERM meanwhile would end the process by that signal instead of 0.
process.exit(await runServe(process.argv.slice(2), process.env, processIo(), stop));
