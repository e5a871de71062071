/** The fixture cases that goldens pin, and the fixed options they are built with. */
import { readdirSync } from "node:fs";
import { tablePaths } from "../contract/version-policy.ts";
import type { Build } from "../assembly/prepare.ts";
import { VERSIONS } from "../assembly/versions.ts";
import type { Exchange } from "./transcript.ts";
import { LIFECYCLE_DATES, TEST_TABLE } from "./v2.ts";

/** Build options for every golden: fixed, so the bytes depend on the source alone. */
export const GOLDEN_OPTIONS = { baseUrl: "https://registry.example.org", builtAt: "2026-11-21T12:00:00Z" } as const;

export interface Case {
  /** The fixture file, relative to the repository root. */
  readonly fixture: string;
  /** Its golden file, relative to `golden/`. */
  readonly golden: string;
  /** For a valid source, the golden of its warnings on stderr (usually empty), relative to `golden/`. */
  readonly warnings?: string;
}

const jsonFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith(".json")).sort();

/** The embedded default snapshot and every edge-case source: each must build to its golden bytes. */
export const validCases: readonly Case[] = [
  { fixture: "fixtures/registry.json", golden: "registry.json", warnings: "warnings/registry.txt" },
  ...jsonFiles("fixtures/valid").map((f) => ({
    fixture: `fixtures/valid/${f}`,
    golden: `valid/${f}`,
    warnings: `warnings/${f.replace(/\.json$/, ".txt")}`,
  })),
];

/** One invalid source per defect: each must be refused with its golden error output. */
export const invalidCases: readonly Case[] = jsonFiles("fixtures/invalid").map((f) => ({
  fixture: `fixtures/invalid/${f}`,
  golden: `invalid/${f.replace(/\.json$/, ".txt")}`,
}));

/** One build of the history sequence: its source, its fixed built_at, and the goldens of its two feeds. */
export interface HistoryStep {
  readonly name: string;
  readonly fixture: string;
  readonly builtAt: string;
  readonly goldens: { readonly json: string; readonly atom: string };
}

/**
 * The history sequence (`fixtures/history/`, in name order): each source built a day after the one
 * before, with that build as `--previous`. Its feeds' bytes are golden.
 */
export const historySteps: readonly HistoryStep[] = jsonFiles("fixtures/history").map((f, i) => {
  const name = f.replace(/\.json$/, "");
  return {
    name,
    fixture: `fixtures/history/${f}`,
    builtAt: `2026-12-${String(i + 1).padStart(2, "0")}T12:00:00Z`,
    goldens: { json: `history/${name}.changes.json`, atom: `history/${name}.changes.atom` },
  };
});

/** The goldens of every other public byte: each shipped schema, the static `_headers`, the HTTP answers, the lifecycle. */
export const publicGoldens: readonly string[] = [
  ...VERSIONS.flatMap((
    v,
  ) => [
    `registry.v${v.number}.schema.json`,
    `registry.v${v.number}.openapi.json`,
    `registry.v${v.number}.d.ts`,
    `registry.v${v.number}.changes.d.ts`,
    `registry.v${v.number}.d.ts.input`,
    `registry.v${v.number}.changes.d.ts.input`,
  ]),
  "static/_headers",
  "http/answers.txt",
  ...LIFECYCLE_DATES.map((d) => `lifecycle/${d.name}.txt`),
];

/** The requests of golden/http/answers.txt: a fixed matrix over every path of the shipped table, then paths it does not serve. */
export function answerRequests(served: Build): Exchange[] {
  const etagOf = (path: string) => served.routes.get(path)!.identity.etag;
  const requests: Exchange[] = [];
  for (const path of tablePaths(VERSIONS)) {
    requests.push(
      { method: "GET", path },
      { method: "HEAD", path },
      { method: "GET", path, headers: { "accept-encoding": "gzip" } },
      { method: "GET", path, headers: { "accept-encoding": "br" } },
      { method: "GET", path, headers: { "accept-encoding": "gzip, deflate, br, zstd" } },
      { method: "GET", path, headers: { "if-none-match": etagOf(path) } },
      { method: "GET", path, headers: { "if-modified-since": new Date(GOLDEN_OPTIONS.builtAt).toUTCString() } },
      {
        method: "OPTIONS",
        path,
        headers: { origin: "https://consumer.example", "access-control-request-method": "GET" },
      },
      { method: "POST", path },
    );
  }
  requests.push({ method: "GET", path: "/api/registry.v2.json" }, { method: "HEAD", path: "/nope" }, {
    method: "DELETE",
    path: "/nope",
  });
  return requests;
}

/** The requests of each golden/lifecycle/ transcript: a GET on every path the test table can answer. */
export const LIFECYCLE_REQUESTS: readonly Exchange[] = tablePaths(TEST_TABLE).map((path) => ({ method: "GET", path }));

/**
 * The path rule (http/request-path.ts) as request targets and the status every runtime gives them:
 * dot segments resolved, percent-encoding never decoded, case and slashes exact, queries ignored.
 */
export const PATH_RULE: readonly (readonly [string, number])[] = [
  ["/vaults.json", 200],
  ["/vaults.json?token=x", 200],
  ["/api/../vaults.json", 200],
  ["/api/%2e%2e/vaults.json", 200],
  ["/api/./registry.v1.json", 200],
  ["/vaults%2ejson", 404],
  ["/%76aults.json", 404],
  ["/api%2fregistry.v1.json", 404],
  ["/vaults.json/", 404],
  ["/VAULTS.JSON", 404],
  ["//vaults.json", 404],
];
