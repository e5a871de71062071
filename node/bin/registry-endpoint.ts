import { closest, processIo, type RenameUsage, runAsProcess, shownCapped } from "../common/args.ts";

// What each does, in words that hold from a clone and from the installed package alike.
const COMMANDS = {
  build: "every deploy artifact from a source",
  preview: "the exact bytes of the document on stdout",
  diff: "a classified diff of two built documents",
  verify: "checks a live deployment",
  serve: "the development server, built from the source at start",
  init: "writes a starter source and one platform's recipe into the current folder",
  keygen: "writes a new signing key (PKCS#8 PEM, mode 0600) and prints its public JWK Set",
} as const;

const HELP = `usage: registry-endpoint <command> [flags]   (registry-endpoint <command> --help for each)

A read-only JSON registry endpoint: one source file in, the same exact bytes out on every runtime.

Commands:
${Object.entries(COMMANDS).map(([name, what]) => `  ${name.padEnd(8)}${what}`).join("\n")}

Exit codes: 0 done; 1 a bad source, setting or deployment; 2 a bad command, flag or argument.
`;

/** The npm scripts' forms in the usage lines of the modules, and this command's names for them. */
const SCRIPT_FORMS: readonly [RegExp, string][] = [
  [/^npm run --silent registry -- diff\b/, "registry-endpoint diff"],
  [/^npm run --silent registry --/, "registry-endpoint preview"],
  [/^npm run build --/, "registry-endpoint build"],
  [/^npm run verify --/, "registry-endpoint verify"],
  [/^npm start --/, "registry-endpoint serve"],
];
const renameUsage: RenameUsage = (usage) =>
  SCRIPT_FORMS.reduce((named, [form, name]) => named.replace(form, name), usage);

const [command, ...rest] = process.argv.slice(2);
if ((command === "--help" || command === "-h") && rest.length === 0) {
  // Through processIo: a stdout that fails ends the run in one line, as every command's own --help does.
  processIo().stdout(HELP);
} else if (command === "--help" || command === "-h") {
  processIo().stderr(`unexpected argument ${shownCapped(rest[0] as string)} (usage: registry-endpoint --help)\n`);
  process.exitCode = 2;
} else if (command === undefined || !Object.hasOwn(COMMANDS, command)) {
  const near = command === undefined ? undefined : closest(command, Object.keys(COMMANDS));
  const what = command === undefined
    ? "missing command"
    : `unknown command ${shownCapped(command)}${near === undefined ? "" : `; did you mean ${near}?`}`;
  processIo().stderr(
    `${what} (usage: registry-endpoint <${Object.keys(COMMANDS).join("|")}> [flags]; --help for more)\n`,
  );
  process.exitCode = 2;
} else if (command === "serve") {
  stopWithParent();
  const { runServe } = await import("../serve/server.ts");
  const stop = (await import("../serve/shutdown.ts")).processStopSignal();
  // As npm start: ended at once when the server has stopped (see ./serve.ts).
  process.exit(await runServe(rest, process.env, { ...processIo(), renameUsage }, stop));
} else {
  const commands = {
    preview: async () => (await import("../review/registry-command.ts")).runRegistry,
    diff: async () => (await import("../review/registry-command.ts")).runRegistry,
    build: async () => (await import("../builder/build.ts")).runBuild,
    verify: async () => (await import("../verify/command.ts")).runVerify,
    keygen: async () => (await import("../builder/keygen.ts")).runKeygen,
    init: async () => (await import("../init/init.ts")).runInit,
  };
  const run = await commands[command as keyof typeof commands]();
  await runAsProcess(run, command === "diff" ? ["diff", ...rest] : rest, renameUsage);
}

// npx runs the command through `sh -c`: a SIGTERM to npx reaches npm and that shell, which dies without passing it
// on. So `serve` takes the loss of the process that started it as a SIGTERM to itself: the same stop, exit 0.
function stopWithParent(): void {
  const parent = process.ppid;
  // Started by init, or as a container's first process: there is no shell in between to lose.
  if (parent <= 1) return;
  const check = setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch (error: unknown) {
      // EPERM: the process is there, only not ours to signal.
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") return;
      clearInterval(check);
      console.log(`registry: the process that started it (pid ${parent}) is gone: stopping as on SIGTERM`);
      process.kill(process.pid, "SIGTERM");
    }
  }, 500);
  check.unref();
}
