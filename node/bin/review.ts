/** Entry point of `npm run review`: see `../cli/review-command.ts`. */
import { runAsProcess } from "../cli/args.ts";
import { runReview } from "../cli/review-command.ts";

await runAsProcess(runReview);
