/**
 * What the generated consumer types allow and forbid, checked by tsc (test/openapi.test.ts): each
 * line marked @ts-expect-error must be rejected, and is, once the mark is taken away.
 */
import type { FullRow, MinimalRow, RegistryDocumentV1, Row } from "../../golden/registry.v1.d.ts";

declare const document: RegistryDocumentV1;
const row: Row = document.vaults[0] as Row;

// A minimal row's detail is withheld: no note to read until the row is known to be full.
// @ts-expect-error
const unchecked: string | null = row.note;
if (row.listing === "minimal") {
  const withheld: MinimalRow = row;
  const why: string = withheld.listing_note;
  // @ts-expect-error
  const none: string | null = row.note;
  void why, none;
} else {
  const full: FullRow = row;
  const note: string | null = full.note;
  const synced: string | null = full.last_synced;
  void note, synced;
}

// tier is a union of its three values: a comparison with any other is an error.
if (row.listing !== "minimal") {
  const tier: "in_use" | "chartered" | "planned" = row.tier;
  // @ts-expect-error
  if (row.tier === "retired") void tier;
}

// Nullable fields are T | null, never optional: null must be handled, undefined never comes.
if (row.listing !== "minimal") {
  // @ts-expect-error
  const persona: string = row.persona;
  const known: string | null = row.persona;
  void persona, known;
}

// Unknown keys may appear: reading one is allowed, and its type is unknown until checked.
const added: unknown = document["added_in_a_later_minor"];
const count: number = document.vault_count;
void unchecked, added, count;
