/** Builds as tests run them: a first build says so, as D11 asks of every build. */
import { runBuild } from "../node/builder/build.ts";
import { type Finished, runCommand } from "./process.ts";

/**
 * A build's arguments as given when they name where its history comes from (`--previous` or
 * `--new-history`); else those of a first build: `--new-history`, and `--unsigned` too when `env`
 * holds no signing key and the arguments do not give it.
 */
export function firstBuild(args: readonly string[], env: NodeJS.ProcessEnv = {}): string[] {
  if (args.includes("--previous") || args.includes("--new-history")) return [...args];
  const unsigned = !args.includes("--unsigned") && (env["REGISTRY_SIGNING_KEY"] ?? "") === "";
  return [...args, "--new-history", ...(unsigned ? ["--unsigned"] : [])];
}

/** `runBuild` in this process with `firstBuild`'s arguments, shaped like `runCommand`'s result. */
export function buildFirst(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<Finished> {
  return runCommand(runBuild, firstBuild(args, options.env ?? process.env), options);
}
