// The build's floor: what any build must do at least, in the same Node and without a loader.
// Reads and parses the source, then pretty-prints JSON of its vaults (their public keys, as the
// source has them) each with two added string fields, as a row adds url and markdown_url; the
// internal keys are left out, as the document leaves them out. Args: <source.json>. Plain
// JavaScript on purpose: a TypeScript loader's start-up would inflate the floor.
import { readFileSync } from "node:fs";

const source = JSON.parse(readFileSync(process.argv[2], "utf8"));
const base = "https://registry.example.org";
const vaults = source.vaults.map((v) => ({
  vault_slug: v.vault_slug,
  display_name: v.display_name,
  class: v.class,
  status: v.status,
  persona: v.persona ?? null,
  note: v.note ?? null,
  url: `${base}/vaults/${v.vault_slug}/`,
  markdown_url: `${base}/vaults/${v.vault_slug}.md`,
  last_synced: v.last_synced ?? null,
}));
process.stdout.write(`${JSON.stringify(vaults, null, 2)}\n`);
