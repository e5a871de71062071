/**
 * Canaries: a source's every private place filled with SECRET while its published bytes stay the
 * same, and the search for them in what the project prints, logs, serves and packages.
 */
import { SECRET } from "./arbitraries.ts";

type JsonObject = Record<string, unknown>;

/** Private detail: an internal key's name and value, nested, so nothing of it may be published. */
const internal = (where: string): JsonObject => ({
  [`${SECRET}_${where}_key`]: { [`${SECRET}_${where}_nested`]: `${SECRET} ${where} value` },
});

/**
 * `raw` (a valid source) with canaries in every place the document never shows: a declared
 * internal key at the top, on each vault and edge; an unused label in each label table; every
 * vault's tagline (withheld in v1); each
 * suppressed vault's note; an edge of a private type from each suppressed vault. The document
 * built from it is byte for byte the one built from `raw`.
 */
export function plantCanaries(raw: JsonObject): JsonObject {
  const vaults = (raw["vaults"] as JsonObject[]).map((v): JsonObject => ({
    ...internal("vault"),
    ...v,
    tagline: `${SECRET} tagline`,
    ...(v["suppressed"] === true ? { note: `${SECRET} withheld note` } : {}),
  }));
  const withheld = vaults.filter((v) => v["suppressed"] === true);
  const target = vaults[0]?.["vault_slug"];
  const edges = [
    ...(raw["edges"] as JsonObject[] | undefined ?? []).map((e) => ({ ...internal("edge"), ...e })),
    ...withheld.map((v) => ({ source: v["vault_slug"], target, type: `${SECRET} private edge` })),
  ];
  // A label for a raw value no vault declares is valid and never shown.
  const labels = Object.fromEntries(
    Object.entries((raw["labels"] as JsonObject | undefined) ?? {}).map((
      [name, table],
    ) => [name, { [`${SECRET}_unused_${name}`]: `${SECRET} unused label`, ...(table as JsonObject) }]),
  );
  // The planted names are declared, as an operator declares its internal keys.
  const declared = [
    ...((raw["internal_keys"] as string[] | undefined) ?? []),
    ...["top", "vault", "edge"].map((where) => `${SECRET}_${where}_key`),
  ];
  return {
    ...internal("top"),
    ...raw,
    internal_keys: declared,
    vaults,
    edges,
    ...(raw["labels"] === undefined ? {} : { labels }),
  };
}

/** The first of `forbidden` that `text` holds, or undefined. */
export function leakIn(text: string, forbidden: readonly string[]): string | undefined {
  return forbidden.find((word) => text.includes(word));
}
