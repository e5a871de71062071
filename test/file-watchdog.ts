/**
 * Loaded into every test file that `npm test` runs (test/run-all.ts), which starts each in a
 * process group of its own with a pipe on stdin that it never writes: when `npm test` goes away,
 * however it ends (SIGKILL, a hang-up), the pipe closes, and the file's group goes with it.
 */
const stdin = process.stdin as NodeJS.ReadStream & { unref?: () => void };
stdin.on("end", () => process.kill(-process.pid, "SIGKILL"));
stdin.resume();
// Waiting on the pipe never keeps a file running once its tests are done.
stdin.unref?.();
