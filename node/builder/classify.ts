import type { ChangeClass } from "../../feed/change.ts";
import { classOf, type Document } from "../common/diff.ts";

/** The worst class of the changes (`data`: none), by `registry diff`'s rules, so feed, review and diff agree. */
export function classifyChange(before: unknown, after: unknown): ChangeClass {
  return classOf(before as Document, after as Document);
}
