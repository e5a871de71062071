import { appendFileSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Command, type CommandSpec, parseOrExit } from "../common/args.ts";
import type { Platform } from "./starter.ts";
import { ALIASES, PLATFORMS, recipeHead, RECIPES, SOURCE_FILE, STARTER_BASE_URL, STARTER_SOURCE } from "./starter.ts";
import type { CiPlatform } from "./workflow.ts";
import { CI_PLATFORMS, ciSteps, githubWorkflow, KEYS_FILE, SIGNING_KEY_FILE, WORKFLOW_FILE } from "./workflow.ts";

const NAMES = [...PLATFORMS, ...Object.keys(ALIASES)];
const USAGE = `registry-endpoint init [--platform ${NAMES.join("|")}] [--ci github]`;

/** What `.gitignore` names unless a line already does: source, output, each platform tool's folder, the signing key. */
const IGNORED = [`/${SOURCE_FILE}`, "dist/", ".netlify", ".wrangler", ".serverless", `/${SIGNING_KEY_FILE}`];
/** The package root: the recipe templates ship under deploy/. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const SPEC: CommandSpec = {
  usage: USAGE,
  help: `
Writes into the current folder:
  ${SOURCE_FILE}   a starter source: one full vault, one withheld (suppressed) vault, an edge
  the recipe file  of the platform, with the build line (netlify.toml, wrangler.toml,
                   serverless.yml, start.sh for node, deno.json, build.sh for static)
  ${WORKFLOW_FILE}
                   with --ci github: a GitHub Actions workflow that downloads the source (never
                   committed), builds it reading the live deployment, deploys with the platform's
                   pinned tool and verifies it with ${KEYS_FILE}; daily it re-signs, and on a
                   pull request it diffs the live document against what the branch would publish
  .gitignore       entries for the source, dist/, the platform tools' folders (.netlify, .wrangler,
                   .serverless) and ${SIGNING_KEY_FILE} (appended; created if absent)

It never overwrites a file: if the source, the recipe file or the workflow exists (a link to
nothing too), it names them and exits 1.
`,
  flags: {
    platform: {
      type: "string",
      value: "P",
      help: `one of ${PLATFORMS.join(", ")} (default node; ${
        Object.entries(ALIASES).map(([alias, platform]) => `${alias}: the same as ${platform}`).join("; ")
      })`,
    },
    ci: {
      type: "string",
      value: "github",
      help: `also write the workflow; for ${
        CI_PLATFORMS.join(", ")
      }, whose recipes deploy with a pinned tool (node, deno and static deploy by means of your own)`,
    },
  },
  notes: `
Exit codes: 0 written; 1 a file it would write exists, or the folder refuses the writes (nothing
written); 2 a bad flag.`,
  positionals: { min: 0, max: 0 },
};

/** `registry-endpoint init` as a function: writes the starter into `io.cwd`. */
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
  const ci = values["ci"] as string | undefined;
  if (ci !== undefined && ci !== "github") {
    io.stderr(`--ci: expected github, got ${JSON.stringify(ci)} (usage: ${USAGE}; --help for more)\n`);
    return 2;
  }
  if (ci !== undefined && !(CI_PLATFORMS as readonly string[]).includes(platform)) {
    io.stderr(
      `--ci github: the workflow deploys with a platform's pinned tool: give --platform ${
        CI_PLATFORMS.join(", ")
      }, not ${platform} (usage: ${USAGE}; --help for more)\n`,
    );
    return 2;
  }
  const workflow = ci === undefined ? undefined : githubWorkflow(platform as CiPlatform);
  const recipe = RECIPES[platform as Platform];
  const { cwd } = io;
  const gitignore = join(cwd, ".gitignore");
  // A link to nothing counts as taken (existsSync follows links, and writing would create its target elsewhere).
  const taken = [SOURCE_FILE, recipe.file, ...(workflow === undefined ? [] : [WORKFLOW_FILE])].flatMap((
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
  let missing: string[] = [];
  try {
    const lines = existsSync(gitignore) ? readFileSync(gitignore, "utf8").split("\n").map((line) => line.trim()) : [];
    missing = IGNORED.filter((entry) => !lines.includes(entry));
    writeFileSync(join(cwd, SOURCE_FILE), STARTER_SOURCE, { flag: "wx" });
    written.push(join(cwd, SOURCE_FILE));
    writeFileSync(
      join(cwd, recipe.file),
      recipe.comment === undefined ? template : recipeHead(recipe.comment, recipe.deploy) + template,
      { flag: "wx" },
    );
    written.push(join(cwd, recipe.file));
    if (workflow !== undefined) {
      // The first folder it creates, if any, goes with the file on a failure.
      const made = mkdirSync(dirname(join(cwd, WORKFLOW_FILE)), { recursive: true });
      if (made !== undefined) written.push(made);
      writeFileSync(join(cwd, WORKFLOW_FILE), workflow, { flag: "wx" });
      written.push(join(cwd, WORKFLOW_FILE));
    }
    if (missing.length > 0) {
      appendFileSync(
        gitignore,
        `${
          existsSync(gitignore) && !readFileSync(gitignore, "utf8").endsWith("\n") ? "\n" : ""
        }# Written by registry-endpoint init: the registry's source (never committed, never deployed;\n# only the build reads it), the build's output, the platform tools' folders, the signing key.\n${
          missing.join("\n")
        }\n`,
      );
    }
  } catch (error: unknown) {
    // Something appeared meanwhile, or the folder refuses writes: take back only the files this run made.
    for (const file of written.reverse()) rmSync(file, { force: true, recursive: true });
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    io.stderr(`init: not written: cannot write in ${cwd} (${code}); nothing of it is left\n`);
    return 1;
  }

  io.stdout(
    `Wrote ${[SOURCE_FILE, recipe.file, ...(workflow === undefined ? [] : [WORKFLOW_FILE])].join(", ")}${
      missing.length === 0 ? "" : ` and .gitignore entries for ${missing.join(", ")}`
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
${workflow === undefined ? "" : ciSteps(platform as CiPlatform)}`,
  );
  return 0;
};

/** True when `path` names anything, a link to nothing included. */
function present(path: string): boolean {
  return entryAt(path) !== undefined;
}

function danglingLink(path: string): boolean {
  return entryAt(path)?.isSymbolicLink() === true && !existsSync(path);
}

/** What `path` names, undefined for nothing, or for a path through a file (ENOTDIR: the write then says so). */
function entryAt(path: string): import("node:fs").Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (error: unknown) {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
    throw error;
  }
}
