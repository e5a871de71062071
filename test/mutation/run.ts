/**
 * `npm run mutation -- [GROUP ...]`: mutation testing with StrykerJS, one run per group of source
 * files, each against only the test files that exercise that group, stopping at the first failing
 * test (uvu --bail), in incremental mode. A whole-tree run needs hours on two cores; a group fits a
 * session, and the incremental file each run leaves in reports/mutation/ (ignored by git: large, and
 * the state of one machine's runs) makes a re-run there test only the mutants whose code changed
 * (after a change to the tests, --force: the command runner cannot see one). Prints each group's
 * score and every surviving mutant; docs/tests.md records the last scores.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { parseProcessArgs } from "../../node/common/args.ts";

/**
 * A group: the files Stryker mutates, and the test files that can kill them as uvu patterns run in
 * turn, fast and targeted first: most mutants die in the first, so they never wait for the properties.
 */
interface Group {
  readonly mutate: readonly string[];
  readonly tests: readonly string[];
  /** fast-check's runs per property for each command in turn (default: 40, then 15). */
  readonly runs?: readonly number[];
  /** Variables set for every command (`NAME=value ...`). */
  readonly env?: string;
}

/**
 * The groups, each small enough to finish within a session on two cores (a run that is stopped
 * keeps nothing), and the order of a run without names. The tests named are in-process: no server,
 * no child process.
 */
export const GROUPS: Readonly<Record<string, Group>> = {
  registry: {
    mutate: ["registry.ts"],
    tests: ["(registry|json-length|golden)\\.test\\.ts$", "(privacy-laws|properties)\\.test\\.ts$"],
  },
  contract: {
    mutate: [
      "contract/config.ts",
      "contract/document.ts",
      "contract/json-length.ts",
      "contract/limits.ts",
      "contract/messages.ts",
      "contract/schema.ts",
    ],
    tests: [
      "(stated-limits|source|json-length|config|schema|golden)\\.test\\.ts$",
      "(privacy-laws|properties)\\.test\\.ts$",
    ],
  },
  "contract-source": {
    mutate: ["contract/source.ts"],
    tests: ["(source|schema|golden)\\.test\\.ts$", "(privacy-laws|properties)\\.test\\.ts$"],
  },
  http: {
    mutate: ["http/answer.ts", "http/app.ts", "http/responses.ts"],
    tests: ["(http|lambda|golden)\\.test\\.ts$", "(encoding|contract)\\.test\\.ts$"],
  },
  "http-edge": {
    mutate: ["http/encoding.ts", "http/lambda.ts", "http/request-path.ts", "http/restore.ts", "http/table.ts"],
    tests: ["(http|lambda|encoding)\\.test\\.ts$", "(golden|contract)\\.test\\.ts$"],
  },
  "http-policy": {
    mutate: ["contract/version-policy.ts", "assembly/versions.ts", "assembly/openapi.ts", "assembly/prepare.ts"],
    tests: ["(http|contract|golden)\\.test\\.ts$", "(lambda|encoding)\\.test\\.ts$"],
  },
  // Signing: the JWS, the manifest, the build's signing, and the consumer's checks of a manifest
  // (client.ts's checkManifest, filesDigest and fileMatches). The units first, then the laws at few
  // runs; a survivor meets the verify command against signed builds behind local proxies.
  signing: {
    mutate: ["assembly/jws.ts", "assembly/manifest.ts", "node/builder/signing.ts", "client/client.ts:258-416"],
    // The signed builds through the command (signing-build) are left out: 20 to 40 s a mutant here,
    // for what signing-plan asserts in process.
    tests: [
      "^(signing-units|signing-plan)\\.test\\.ts$",
      "^signing-laws\\.test\\.ts$",
      "^signing-verify\\.test\\.ts$",
    ],
    runs: [0, 10, 15],
  },
  // Catch-up: the consumer kit's catchUp and sync, in process first; a survivor meets the kit against
  // real builds served by their own Node servers (on Node alone: the other runtimes run the same code).
  "catch-up": {
    mutate: ["client/client.ts:1-257", "client/client.ts:417-444", "client/bounds.ts"],
    tests: ["^sync\\.test\\.ts$", "^client\\.test\\.ts$"],
    env: "CLIENT_NODE_ONLY=1",
  },
  feed: {
    mutate: ["feed/**/*.ts"],
    tests: [
      "^(feed-units|replay|history)\\.test\\.ts$",
      "^feed-properties\\.test\\.ts$",
      "^feed-build-history\\.test\\.ts$",
    ],
  },
};

/** Where each run leaves its config, its report and its incremental file: ignored by git and by Stryker. */
const OUT = "reports/mutation";

const { values, positionals } = parseProcessArgs({
  usage: "npm run mutation -- [GROUP ...] [--force]",
  help: `
Mutation testing with StrykerJS, one run per group (default: every group, in this order):
${
    Object.entries(GROUPS).map(([name, g]) =>
      `  ${name.padEnd(Math.max(...Object.keys(GROUPS).map((n) => n.length)))} mutates ${g.mutate.join(", ")}; tests ${
        g.tests.join(", then ")
      }`
    ).join("\n")
  }

Each run is incremental: ${OUT}/GROUP.incremental.json (ignored by git) holds
the last results on this machine, and only mutants whose code changed since are tested again:
Stryker's command runner cannot see a change to the tests, so after one, run the group with
--force. Without that file (a fresh clone) every mutant is tested. The full report of each run
is ${OUT}/GROUP.json; record a group's new score in docs/tests.md.`,
  flags: { force: { type: "boolean", help: "test every mutant again, ignoring the incremental file" } },
  notes: `
Exit codes: 0 every run finished (whatever the score); 1 Stryker failed; 2 a bad flag or group.`,
  positionals: { min: 0, max: Object.keys(GROUPS).length },
});

const names = positionals.length === 0 ? Object.keys(GROUPS) : positionals;
for (const name of names) {
  if (!Object.hasOwn(GROUPS, name)) {
    process.stderr.write(`unknown group ${JSON.stringify(name)}: expected one of ${Object.keys(GROUPS).join(", ")}\n`);
    process.exit(2);
  }
}

const base = JSON.parse(readFileSync("stryker.config.json", "utf8")) as Record<string, unknown>;
mkdirSync(OUT, { recursive: true });
for (const name of names) {
  const group = GROUPS[name] as Group;
  const configPath = join(OUT, `${name}.stryker.json`);
  const reportPath = join(OUT, `${name}.json`);
  const config = {
    ...base,
    mutate: group.mutate,
    commandRunner: {
      command: group.tests.map((pattern, i) =>
        `${group.env ?? ""} FC_RUNS=${
          group.runs?.[i] ?? (i === 0 ? 40 : 15)
        } node --import tsx node_modules/uvu/bin.js test "${pattern}" --bail`
      ).join(" && "),
    },
    incremental: true,
    incrementalFile: join(OUT, `${name}.incremental.json`),
    force: values["force"] === true,
    jsonReporter: { fileName: reportPath },
  };
  writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
  process.stdout.write(`mutation: ${name} (${group.mutate.join(", ")})\n`);
  const run = spawnSync("node_modules/.bin/stryker", ["run", configPath], { stdio: "inherit" });
  if (run.status !== 0) {
    process.stderr.write(`mutation: Stryker failed on group ${name} (exit ${run.status})\n`);
    process.exit(1);
  }
  summarize(name, reportPath);
}

/** Prints the score and every survivor (file:line, mutator, replacement) of one report. */
function summarize(name: string, reportPath: string): void {
  interface Mutant {
    mutatorName: string;
    replacement?: string;
    status: string;
    location: { start: { line: number } };
  }
  const report = JSON.parse(readFileSync(reportPath, "utf8")) as { files: Record<string, { mutants: Mutant[] }> };
  let killed = 0;
  let total = 0;
  const survivors: string[] = [];
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const m of mutants) {
      if (m.status === "Ignored" || m.status === "CompileError" || m.status === "RuntimeError") continue;
      total++;
      if (m.status === "Killed" || m.status === "Timeout") killed++;
      else {survivors.push(
          `  ${file}:${m.location.start.line} ${m.mutatorName} -> ${JSON.stringify(m.replacement ?? "")} (${m.status})`,
        );}
    }
  }
  const score = total === 0 ? 100 : (100 * killed) / total;
  process.stdout.write(
    `mutation: ${name}: ${killed} of ${total} killed (${score.toFixed(1)}%); ${survivors.length} survived\n${
      survivors.join("\n")
    }\n`,
  );
}
