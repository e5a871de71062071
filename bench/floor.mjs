// The build's floor: what any build must do at least, in the same Node and without a loader.
// Reads and parses the source, then pretty-prints JSON of its vaults (their public keys, as the
// source has them) each with two added string fields, as a row adds url and markdown_url; the
// internal keys are left out, as the document leaves them out. Args: <source.json> [--compressed
// <document.json>]: the static export's floor, which also compresses the document the build writes of
// that source (every public field of every row, so twice the text above) once with gzip 6 and once with
// brotli 5, one after the other (the settings the build uses for a body that large). Plain JavaScript
// on purpose: a TypeScript loader's start-up would inflate the floor.
import { readFileSync } from "node:fs";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const [sourcePath, flag, documentPath] = process.argv.slice(2);
if (sourcePath === undefined || (flag !== undefined && (flag !== "--compressed" || documentPath === undefined))) {
  process.stderr.write("usage: node bench/floor.mjs SOURCE.json [--compressed DOCUMENT.json]\n");
  process.exit(2);
}
const source = JSON.parse(readFileSync(sourcePath, "utf8"));
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
const text = Buffer.from(`${JSON.stringify(vaults, null, 2)}\n`);
if (documentPath !== undefined) {
  const document = readFileSync(documentPath);
  const gz = gzipSync(document, { level: 6 });
  const br = brotliCompressSync(document, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
  });
  process.stdout.write(`${document.length} ${gz.length} ${br.length}\n`);
} else process.stdout.write(text);
