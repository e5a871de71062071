/** Entry point of the bundled `dist/node/server.mjs`: see `../serve/artifact-server.ts`. */
import { processIo } from "../common/args.ts";
import { runArtifactServer } from "../serve/artifact-server.ts";
import { processStopSignal } from "../serve/shutdown.ts";

const stop = processStopSignal();
// Ended at once when the server has stopped: a natural end would first drop the signal listeners,
// and a second SIGTERM meanwhile would end the process by that signal instead of 0.
process.exit(await runArtifactServer(process.argv.slice(2), process.env, processIo(), stop));
