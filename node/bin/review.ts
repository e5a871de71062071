/** Entry point of `npm run review`: see `../review/review-command.ts`. */
import { runAsProcess } from "../common/args.ts";
import { runReview } from "../review/review-command.ts";

await runAsProcess(runReview);
