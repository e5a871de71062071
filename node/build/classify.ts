/**
 * The class of a change between two builds' documents, for the change feed: `registry diff`'s own
 * diff (`node/review/diff.ts`), so the feed, the pull-request review and `registry diff` give one
 * change one class and the same rule ids.
 */
import type { Classification } from "../../feed/feed.ts";
import { diffDocuments, type Document, worstClass } from "../review/diff.ts";

/** The worst class of the changes from `before` to `after`, and each rule id with how often it applied, in the diff's order. */
export function classifyChange(before: unknown, after: unknown): Classification {
  const changes = diffDocuments(before as Document, after as Document);
  const counts = new Map<string, number>();
  for (const change of changes) counts.set(change.rule, (counts.get(change.rule) ?? 0) + 1);
  return { class: worstClass(changes) ?? "data", rules: [...counts] };
}
