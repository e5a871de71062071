import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Config, type Env, resolveConfig, shownPath } from "../../contract/config.ts";
import { checkInternalKeys, type Source } from "../../contract/source.ts";
import type { Flag } from "./args.ts";
import { readSourceFile } from "./source-file.ts";

/** The embedded default snapshot, read from disk like any other source. */
export const SNAPSHOT = join(resolve(dirname(fileURLToPath(import.meta.url)), "../.."), "fixtures", "registry.json");

/** `--internal-keys`, as the build and the preview take it. */
export const INTERNAL_KEYS_FLAG: Flag = {
  type: "string",
  value: "NAMES",
  help:
    "internal key names beside the source's own internal_keys, comma-separated (and INTERNAL_KEYS: both are joined); spaces around each name are dropped",
};

/**
 * The configuration from `env` (and explicit flags) and the source at `path` (named `name`) with its warnings, or
 * every problem of either, configuration first, so that the CLI, the server and the build refuse alike. Internal key
 * names come from `internalKeys` (`--internal-keys`) and `INTERNAL_KEYS`, joined with the source's own list.
 */
export async function loadInputs(
  path: string,
  env: Env,
  explicit: Parameters<typeof resolveConfig>[1] = {},
  name = shownPath(path),
  internalKeys?: string,
): Promise<{ ok: { source: Source; config: Config; warnings: string[] } } | { problems: string[] }> {
  const config = resolveConfig(env, explicit);
  const declared = declaredOutside(internalKeys, env);
  const source = await readSourceFile(path, name, declared);
  const problems = [
    ...("problems" in config ? config.problems : []),
    ...declared.problems,
    ...("problems" in source ? source.problems : []),
  ];
  if ("ok" in config && "ok" in source && problems.length === 0) {
    return { ok: { source: source.ok, config: config.ok, warnings: source.warnings } };
  }
  return { problems };
}

/** The internal key names of `--internal-keys` and `INTERNAL_KEYS` joined, and their problems (without the source). */
function declaredOutside(flag: string | undefined, env: Env): { names: string[]; place: string; problems: string[] } {
  const lists = [["--internal-keys", flag], ["INTERNAL_KEYS", env["INTERNAL_KEYS"]]] as const;
  const names: string[] = [];
  const problems: string[] = [];
  const given = lists.filter(([, text]) => text !== undefined && text.replace(/ /g, "") !== "");
  const problem = (at: string, message: string) => problems.push(`${at}: ${message}`);
  for (const [place, text] of given) {
    // Only ASCII spaces around a name are dropped: any other character may be part of it.
    const list = (text as string).split(",").map((n) => n.replace(/^ +| +$/g, ""));
    names.push(...checkInternalKeys(list, place, problem, () => undefined, new Set(names)));
  }
  const place = given.length === 1 ? (given[0] as readonly [string, string])[0] : "--internal-keys and INTERNAL_KEYS";
  return { names: [...new Set(names)], place, problems };
}
