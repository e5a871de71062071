/**
 * `npm run --silent review -- --base REF [--head REF] [--summary FILE] [--repo DIR]`: the golden
 * review of a pull request (see `../review.ts`).
 */
import { appendFileSync } from "node:fs";
import { parseProcessArgs } from "../cli/args.ts";
import { reviewGoldens, ReviewInputError } from "../review/review.ts";

const { values } = parseProcessArgs({
  usage: "npm run --silent review -- --base REF [--head REF] [--summary FILE] [--repo DIR]",
  help: `
Reviews the golden files a change moves, from the base commit to the head commit: each changed
golden document through registry diff (classes and rule ids as in docs/goldens.md), every other
golden as its line diff. Writes Markdown to stdout, or appends it to --summary (GitHub's
$GITHUB_STEP_SUMMARY). Fails when a golden document of a shipped versioned path (a row of the
version table) has a breaking change.

Flags:
  --base REF      the commit the change starts from (a pull request's base); required
  --head REF      the commit it ends at (default HEAD)
  --summary FILE  append the Markdown to FILE instead of writing it to stdout
  --repo DIR      the git repository (default .)
  -h, --help      this text

Exit codes: 0 passes; 1 a breaking change to a shipped versioned path; 2 a bad flag, or git
cannot read the repository or a commit.`,
  options: {
    base: { type: "string" },
    head: { type: "string" },
    summary: { type: "string" },
    repo: { type: "string" },
  },
  positionals: { min: 0, max: 0 },
});

const base = values["base"] as string | undefined;
if (base === undefined || base === "") {
  process.stderr.write(
    "--base: required: the commit the change starts from (usage: npm run --silent review -- --base REF [--head REF]; --help for more)\n",
  );
  process.exit(2);
}
try {
  const review = reviewGoldens(
    (values["repo"] as string | undefined) ?? ".",
    base,
    (values["head"] as string | undefined) ?? "HEAD",
  );
  const summary = values["summary"] as string | undefined;
  if (summary === undefined) process.stdout.write(review.markdown);
  else appendFileSync(summary, review.markdown);
  process.exitCode = review.fails ? 1 : 0;
} catch (error: unknown) {
  if (!(error instanceof ReviewInputError)) throw error;
  process.stderr.write(`review: ${error.message}\n`);
  process.exitCode = 2;
}
