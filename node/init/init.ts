/**
 * `registry-endpoint init [--platform P]`: writes into the current folder a starter source, the
 * platform's recipe file naming the build line, and a `.gitignore` entry for the source, then
 * prints what to do next. It never overwrites a file: if one it would write exists, it names every
 * such file and exits 1, writing nothing.
 */
import { appendFileSync, existsSync, lstatSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Command, type CommandSpec, parseOrExit } from "../common/args.ts";
import {
  ALIASES,
  type Platform,
  PLATFORMS,
  recipeHead,
  RECIPES,
  SOURCE_FILE,
  STARTER_BASE_URL,
  STARTER_SOURCE,
} from "./starter.ts";

const NAMES = [...PLATFORMS, ...Object.keys(ALIASES)];
const USAGE = `registry-endpoint init [--platform ${NAMES.join("|")}]`;
/** The package root: the recipe templates ship under deploy/. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const SPEC: CommandSpec = {
  usage: USAGE,
  help: `
Writes into the current folder:
  ${SOURCE_FILE}   a starter source: one full vault, one withheld (suppressed) vault, an edge
  the recipe file  of the platform, with the build line (netlify.toml, wrangler.toml,
                   serverless.yml, start.sh for node, deno.json, build.sh for static)
  .gitignore       an entry for the source (appended; created if absent), so it is never committed

It never overwrites a file: if the source or the recipe file exists (a link to nothing too), it
names them and exits 1.

Flags:
  --platform P  one of ${PLATFORMS.join(", ")} (default node; ${
    Object.entries(ALIASES).map(([alias, platform]) => `${alias}: the same as ${platform}`).join("; ")
  })
  -h, --help    this text

Exit codes: 0 written; 1 a file it would write exists, or the folder refuses the writes (nothing
written); 2 a bad flag.`,
  options: { platform: { type: "string" } },
  positionals: { min: 0, max: 0 },
};

/**
 * `registry-endpoint init` as a function: writes the starter into `io.cwd` and returns the exit code.
 */
export const runInit: Command = async (argv, _env, io) => {
  const parsed = parseOrExit(SPEC, argv, io);
  if (typeof parsed === "number") return parsed;
  const { values } = parsed;
  const named = (values["platform"] as string | undefined) ?? "node";
  const platform = Object.hasOwn(ALIASES, named) ? ALIASES[named] as Platform : named;
  if (!(PLATFORMS as readonly string[]).includes(platform)) {
    io.stderr(
      `--platform: expected one of ${NAMES.join(", ")}, got ${
        JSON.stringify(named)
      } (usage: ${USAGE}; --help for more)\n`,
    );
    return 2;
  }
  const recipe = RECIPES[platform as Platform];
  const { cwd } = io;
  const gitignore = join(cwd, ".gitignore");
  // A link to nothing counts as taken (existsSync follows links, and writing would create its target elsewhere).
  const taken = [SOURCE_FILE, recipe.file].flatMap((
    file,
  ) => (present(join(cwd, file)) ? [danglingLink(join(cwd, file)) ? `${file} (a link to nothing)` : file] : []));
  if (danglingLink(gitignore)) taken.push(".gitignore (a link to nothing)");
  if (taken.length > 0) {
    io.stderr(
      `init: not written: ${taken.join(", ")} already exist${
        taken.length === 1 ? "s" : ""
      } in ${cwd} (init never overwrites a file)\n`,
    );
    return 1;
  }
  const template = recipe.template === undefined
    ? (recipe.body as string)
    : readFileSync(join(ROOT, recipe.template), "utf8");
  const written: string[] = [];
  let ignored = false;
  try {
    ignored = existsSync(gitignore) &&
      readFileSync(gitignore, "utf8").split("\n").some((line) => line.trim() === `/${SOURCE_FILE}`);
    writeFileSync(join(cwd, SOURCE_FILE), STARTER_SOURCE, { flag: "wx" });
    written.push(join(cwd, SOURCE_FILE));
    writeFileSync(
      join(cwd, recipe.file),
      recipe.comment === undefined ? template : recipeHead(recipe.comment, recipe.deploy) + template,
      { flag: "wx" },
    );
    written.push(join(cwd, recipe.file));
    if (!ignored) {
      appendFileSync(
        gitignore,
        `${
          existsSync(gitignore) && !readFileSync(gitignore, "utf8").endsWith("\n") ? "\n" : ""
        }# The registry's source: never committed, never deployed; only the build reads it.\n/${SOURCE_FILE}\n`,
      );
    }
  } catch (error: unknown) {
    // Something appeared meanwhile, or the folder refuses writes: take back only the files this run made.
    for (const file of written) rmSync(file, { force: true });
    io.stderr(
      `init: not written: cannot write in ${cwd} (${
        (error as NodeJS.ErrnoException).code ?? "error"
      }); nothing of it is left\n`,
    );
    return 1;
  }

  io.stdout(
    `Wrote ${SOURCE_FILE}, ${recipe.file}${
      ignored ? "" : " and a .gitignore entry for the source"
    } (platform: ${platform}).

${SOURCE_FILE} is your registry's source. It holds one full vault, published with its note,
and one withheld vault ("suppressed": true): the document shows it as a minimal row, and its
note and its edge are never published. Its internal key "owner" is declared in internal_keys,
so it is never published; every key the format does not name must be declared there (or with
--internal-keys NAME,NAME on the build line, or INTERNAL_KEYS), or the build refuses it. Edit it,
keep it out of version control (.gitignore names it), and preview the exact bytes it publishes:
  npx registry-endpoint preview ${SOURCE_FILE} --base-url ${STARTER_BASE_URL}

Replace ${STARTER_BASE_URL} with the address consumers will use, in ${recipe.file} and below. Then:
${[...(recipe.deploy ?? []), ...recipe.steps].map((step) => `  ${step}`).join("\n")}

One build makes every artifact (dist/node, dist/fetch, dist/lambda, dist/static), stamped once:
deploy that one build everywhere. Set SOURCE_DATE_EPOCH and two builds of the same source are
byte-identical. Every command has --help.
`,
  );
  return 0;
};

/** True when `path` names anything, a link to nothing included. */
function present(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

/** True when `path` is a symbolic link whose target does not exist. */
function danglingLink(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true && !existsSync(path);
}
