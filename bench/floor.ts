/**
 * The build's floor: what any build must do at least, in the same runtime. Reads and parses the
 * source, then pretty-prints JSON of the document's size. Args: <source.json> <document-bytes>.
 */
import { readFileSync } from "node:fs";

const parsed: unknown = JSON.parse(readFileSync(process.argv[2] as string, "utf8"));
const target = Number(process.argv[3]);
const once = JSON.stringify(parsed, null, 2).length;
const copies = Array.from({ length: Math.max(1, Math.round(target / once)) }, () => parsed);
process.stdout.write(`${JSON.stringify(copies, null, 2)}\n`);
