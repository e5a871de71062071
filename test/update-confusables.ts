/**
 * `node --import tsx test/update-confusables.ts`: rewrites contract/confusables.ts from the vendored
 * test/unicode/confusables.txt (replace that file with a newer Unicode release first).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { CONFUSABLES_MODULE, CONFUSABLES_TXT, confusablesModule } from "./confusables-table.ts";

if (process.argv.length > 2) {
  const help = process.argv[2] === "--help" || process.argv[2] === "-h";
  (help ? process.stdout : process.stderr).write(
    help
      ? `usage: node --import tsx test/update-confusables.ts\n\nRewrites ${CONFUSABLES_MODULE} from ${CONFUSABLES_TXT}.\n`
      : `update-confusables: unknown argument ${JSON.stringify(process.argv[2])} (--help for more)\n`,
  );
  process.exit(help ? 0 : 2);
}
writeFileSync(CONFUSABLES_MODULE, confusablesModule(readFileSync(CONFUSABLES_TXT, "utf8")));
process.stdout.write(`wrote ${CONFUSABLES_MODULE}\n`);
