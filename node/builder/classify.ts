/**
 * The class of a change between two builds' documents, for the change feed: `registry diff`'s own
 * rules (`node/common/diff.ts`), so the feed, the pull-request review and `registry diff` give one
 * change one class.
 */
import type { ChangeClass } from "../../feed/change.ts";
import { classOf, type Document } from "../common/diff.ts";

/** The worst class of the changes from `before` to `after` (`data` when there are none). */
export function classifyChange(before: unknown, after: unknown): ChangeClass {
  return classOf(before as Document, after as Document);
}
