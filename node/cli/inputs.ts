/**
 * What every Node entry point needs before it can build: the configuration and a validated source,
 * or every problem with both, so that the CLI, the server and the build refuse alike.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { resolveConfig, shownPath, type Config, type Env } from "../../contract/config.ts";
import type { Source } from "../../contract/source.ts";
import { readSourceFile } from "./source-file.ts";

/** The embedded default snapshot, read from disk like any other source. */
export const SNAPSHOT = join(resolve(dirname(fileURLToPath(import.meta.url)), "../.."), "fixtures", "registry.json");

/**
 * Resolves the configuration from `env` (and explicit flags) and reads `path`; returns both (with
 * the source's warnings, which never stop a build), or every problem of either, configuration first.
 * Messages about the source name it `name` (default: `path` as given, or as `shownPath` shows a URL).
 */
export async function loadInputs(
  path: string,
  env: Env,
  explicit: Parameters<typeof resolveConfig>[1] = {},
  name = shownPath(path),
): Promise<{ ok: { source: Source; config: Config; warnings: string[] } } | { problems: string[] }> {
  const config = resolveConfig(env, explicit);
  const source = await readSourceFile(path, name);
  if ("ok" in config && "ok" in source) return { ok: { source: source.ok, config: config.ok, warnings: source.warnings } };
  return { problems: [...("problems" in config ? config.problems : []), ...("problems" in source ? source.problems : [])] };
}
