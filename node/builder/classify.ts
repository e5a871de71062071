import type { ChangeClass } from "../../feed/change.ts";
import { classOf, type Document } from "../common/diff.ts";

/**
 * The worst class of the changes from `before` to `after` (`data` when there are none), by `registry diff`'s own
 * rules: the feed, the pull-request review and `registry diff` give one change one class.
 */
export function classifyChange(before: unknown, after: unknown): ChangeClass {
  return classOf(before as Document, after as Document);
}
