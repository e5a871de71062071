import { basename, resolve } from "node:path";
import { LimitError } from "../../contract/limits.ts";
import { prepareBuild, VersionPolicyError } from "../../assembly/prepare.ts";
import type { Env } from "../../contract/config.ts";
import { type CommandSpec, type Io, parseOrExit } from "../common/args.ts";
import { zlibCompress } from "../common/compress.ts";
import { INTERNAL_KEYS_FLAG, loadInputs, SNAPSHOT } from "../common/inputs.ts";
import { answerListener } from "./answer-server.ts";
import { runServer, serverEnv } from "./shutdown.ts";

const SPEC: CommandSpec = {
  usage: "npm start -- [--source FILE] [--base-url URL] [--internal-keys NAMES]",
  help: `
Serves the registry from source on a plain Node server (development; production runs the
bundled dist/node/server.mjs that \`npm run build\` writes). The document is built once at start.
`,
  flags: {
    source: {
      type: "string",
      value: "FILE",
      help: "the source file (or REGISTRY_SOURCE; default: the embedded snapshot, fixtures/registry.json)",
    },
    "base-url": {
      type: "string",
      value: "URL",
      help: "the public base of every URL in the document (or BASE_URL; default http://localhost:8787)",
    },
    "internal-keys": INTERNAL_KEYS_FLAG,
  },
  notes: `
--source wins over REGISTRY_SOURCE, --base-url over BASE_URL.

Environment:
  REGISTRY_SOURCE    the source file (default: the embedded snapshot, fixtures/registry.json)
  INTERNAL_KEYS      internal key names beside the source's own internal_keys, comma-separated
  BASE_URL           the public base of every URL in the document (default http://localhost:8787)
  SOURCE_DATE_EPOCH  built_at, in whole seconds since 1970 (default: the clock at start)
  HOST               the interface to listen on (default 127.0.0.1)
  PORT               the port (default 8787; 0 picks a free one)
  LOG_REQUESTS       1: one JSON line per request on stdout (method, path, status, bytes, ms)

SIGTERM or SIGINT: stop accepting connections, let requests under way finish (at most 10 s),
exit 0. Signal the node process itself (its pid is on the start line): \`npm start\` runs it
with exec, so the process npm started is node. \`npx registry-endpoint serve\` runs node under a
shell that a SIGTERM to npx ends without passing it on: node stops the same way within a
second of that shell's end.

Exit codes: 0 stopped by a signal; 1 a bad source or setting, or the port is taken; 2 a bad flag.`,
  positionals: { min: 0, max: 0 },
};

/** `npm start` as a function: serves until SIGTERM, SIGINT or `until` aborts, and returns the exit code. */
export async function runServe(argv: readonly string[], env: Env, io: Io, until?: AbortSignal): Promise<number> {
  const parsed = parseOrExit(SPEC, argv, io);
  if (typeof parsed === "number") return parsed;
  const { values } = parsed;
  const sourcePath = (values["source"] as string | undefined) ?? (env["REGISTRY_SOURCE"] || SNAPSHOT);
  const listen = serverEnv(env);
  // Every line a server prints may end in a platform's logs: it names the source by its base name.
  const name = basename(sourcePath);
  const { "base-url": baseUrl, "internal-keys": internalKeys } = values as Record<string, string | undefined>;
  const inputs = await loadInputs(resolve(io.cwd, sourcePath), env, { baseUrl }, name, internalKeys);
  if ("problems" in listen || "problems" in inputs) {
    const problems = [listen, inputs].flatMap((result) => ("problems" in result ? result.problems : []));
    io.stderr(problems.map((p) => `${p}\n`).join(""));
    return 1;
  }
  io.stderr(inputs.ok.warnings.map((w) => `${w}\n`).join(""));
  let build;
  try {
    build = await prepareBuild(inputs.ok.source, inputs.ok.config, { compress: zlibCompress });
  } catch (error: unknown) {
    if (!(error instanceof LimitError || error instanceof VersionPolicyError)) throw error;
    io.stderr(`${name}: ${error.message.split("\n").join(`\n${name}: `)}\n`);
    return 1;
  }
  return await runServer(answerListener(build), { ...listen.ok, sourceName: name, meta: build.meta }, io, until);
}
