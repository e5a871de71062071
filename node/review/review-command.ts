import { appendFileSync } from "node:fs";
import { resolve } from "node:path";
import { reviewGoldens, ReviewInputError } from "./review.ts";
import { type Command, type CommandSpec, parseOrExit } from "../common/args.ts";

const SPEC: CommandSpec = {
  usage: "npm run --silent review -- --base REF [--head REF] [--summary FILE] [--repo DIR]",
  help: `
Reviews the golden files a change moves, from the base commit to the head commit: each changed
golden document through registry diff (classes and rule ids as in docs/goldens.md), every other
golden as its line diff. Writes Markdown to stdout, or appends it to --summary (GitHub's
$GITHUB_STEP_SUMMARY). Fails when a golden document of a shipped versioned path (a row of the
version table) has a breaking change.
`,
  flags: {
    base: { type: "string", value: "REF", help: "the commit the change starts from (a pull request's base); required" },
    head: { type: "string", value: "REF", help: "the commit it ends at (default HEAD)" },
    summary: { type: "string", value: "FILE", help: "append the Markdown to FILE instead of writing it to stdout" },
    repo: { type: "string", value: "DIR", help: "the git repository (default .)" },
  },
  notes: `
Exit codes: 0 passes; 1 a breaking change to a shipped versioned path; 2 a bad flag, or git
cannot read the repository or a commit.`,
  positionals: { min: 0, max: 0 },
};

/** `npm run review` as a function: the golden review (its exit codes: the notes of `--help`). */
export const runReview: Command = async (argv, env, io) => {
  const parsed = parseOrExit(SPEC, argv, io);
  if (typeof parsed === "number") return parsed;
  const { values } = parsed;
  const base = values["base"] as string | undefined;
  if (base === undefined || base === "") {
    io.stderr(`--base: required: the commit the change starts from (usage: ${SPEC.usage}; --help for more)\n`);
    return 2;
  }
  try {
    const repo = resolve(io.cwd, (values["repo"] as string | undefined) ?? ".");
    const review = reviewGoldens(repo, base, (values["head"] as string | undefined) ?? "HEAD", env);
    const summary = values["summary"] as string | undefined;
    if (summary === undefined) io.stdout(review.markdown);
    else appendFileSync(resolve(io.cwd, summary), review.markdown);
    return review.fails ? 1 : 0;
  } catch (error: unknown) {
    if (!(error instanceof ReviewInputError)) throw error;
    io.stderr(`review: ${error.message}\n`);
    return 2;
  }
};
