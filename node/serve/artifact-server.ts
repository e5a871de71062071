import { parseBaseUrl, shownUrl } from "../../contract/config.ts";
import { type BundledStamp, restoreBuild } from "../../http/restore.ts";
// @ts-expect-error: a virtual module, resolved by the bundler
import stampData from "registry:stamp";
import { answerListener } from "./answer-server.ts";
import { type CommandSpec, type Io, parseOrExit } from "../common/args.ts";
import type { Env } from "../../contract/config.ts";
import { runServer, serverEnv } from "./shutdown.ts";

const stamp = stampData as BundledStamp & { readonly sourceName: string };

const SPEC: CommandSpec = {
  usage: "node dist/node/server.mjs [--help]",
  help: `
Serves one build of the registry, made by \`npm run build\`: the bytes, ETags and headers were
stamped in then (built_at ${stamp.meta.builtAt}, base URL ${stamp.meta.baseUrl}), so every
instance serves the same bytes. Needs only node (20 or later).

Environment:
  HOST           the interface to listen on (default 127.0.0.1; 0.0.0.0 for every interface)
  PORT           the port (default 8787; 0 picks a free one)
  LOG_REQUESTS   1: one JSON line per request on stdout (method, path, status, bytes, ms)
  BASE_URL       not read: the base URL is fixed at build. If set to another one, the server
                 refuses to start, because it would serve URLs the operator did not mean.

SIGTERM or SIGINT: stop accepting connections, let requests under way finish (at most 10 s),
exit 0.

Exit codes: 0 stopped by a signal; 1 a bad setting or the port is taken; 2 a bad flag.`,
  flags: {},
  positionals: { min: 0, max: 0 },
};

/** The bundled server (`node dist/node/server.mjs`) as a function: serves this build until `until` aborts; its exit code. */
export async function runArtifactServer(
  argv: readonly string[],
  env: Env,
  io: Io,
  until: AbortSignal,
): Promise<number> {
  // No arguments (how it is run) parse as none: node:util's argument parser is not loaded at start then.
  if (argv.length > 0) {
    const parsed = parseOrExit(SPEC, argv, io);
    if (typeof parsed === "number") return parsed;
  }
  const listen = serverEnv(env);
  const problems = "problems" in listen ? [...listen.problems] : [];
  const runtimeBase = env["BASE_URL"];
  if (runtimeBase !== undefined && runtimeBase !== "") {
    const parsed = parseBaseUrl(runtimeBase);
    if (!("ok" in parsed) || parsed.ok !== stamp.meta.baseUrl) {
      problems.push(
        `BASE_URL: this build serves ${stamp.meta.baseUrl}, not ${
          shownUrl(runtimeBase)
        }: set BASE_URL when building (registry-endpoint build --base-url URL), or unset it here`,
      );
    }
  }
  if (problems.length > 0 || !("ok" in listen)) {
    io.stderr(problems.map((p) => `${p}\n`).join(""));
    return 1;
  }
  let build;
  try {
    build = restoreBuild(stamp, { eager: true });
  } catch (error: unknown) {
    io.stderr(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const options = { ...listen.ok, sourceName: stamp.sourceName, meta: build.meta };
  return await runServer(answerListener(build), options, io, until);
}
