/**
 * `npm run bench`: every figure is a ratio against a baseline measured in the same run, A and B
 * alternated (ABBA) over several rounds, median taken, because these machines are shared and noisy.
 * Loopback only, bounded, stops by itself. Prints one markdown table and writes bench/RESULTS.md.
 *
 * Knobs: BENCH_ROUNDS (default 4), BENCH_SECONDS per load run (default 4), BENCH_CONNECTIONS (50).
 */
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { cpus, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { CANONICAL_PATH, type ContractVersion, tablePaths } from "../contract/version-policy.ts";
import { prepareBuild } from "../assembly/prepare.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { AddressRouter } from "../http/app.ts";
import { buildRegistry, serializeRegistry, type Source, validateSource } from "../registry.ts";
import { fetchRaw, type Running, startServer } from "../test/servers.ts";
import { parseProcessArgs } from "../node/common/args.ts";
import { bundleArtifacts } from "../node/builder/bundle.ts";
import { runBuild } from "../node/builder/build.ts";
import { diffDocuments, type Document } from "../node/common/diff.ts";
import { zlibCompress } from "../node/common/compress.ts";
import {
  BASE_RECORDS,
  BASE_VALUE_WEIGHT,
  MAX_DOCUMENT_BYTES,
  MAX_INTERNAL_KEY_LENGTH,
  MAX_NESTING_DEPTH,
  MAX_SOURCE_BYTES,
  MAX_STRING_LENGTH,
  RECORD_BYTES,
  VALUE_WEIGHT_BYTES,
  VALUE_WEIGHT_OF_CONTAINER,
} from "../contract/limits.ts";
import { classifyChange } from "../node/builder/classify.ts";
import { checkPrevious } from "../node/builder/previous.ts";
import { changesPaths } from "../contract/version-policy.ts";
import { strongEtag } from "../http/responses.ts";
import { atomFeed } from "../feed/atom.ts";
import { envelopeOf, feedPlace, nextFeed, serializeFeed } from "../feed/feed.ts";
import { generateSource } from "./generate.ts";
import { measureInstalls } from "./install.ts";
import { GENERATOR, type Load, load as loadWith, rssOf } from "./load.ts";

parseProcessArgs({
  usage: "npm run bench [-- --help]",
  help: `
Runs every benchmark on loopback (about 8 minutes) and writes bench/RESULTS.md. Every figure is a
ratio against a baseline measured in the same run, A and B alternated, median of the rounds.
The load generator is wrk when installed, else autocannon.

Environment: BENCH_ROUNDS (default 4), BENCH_SECONDS per load run (default 4),
BENCH_CONNECTIONS (default 50), BENCH_ONLY (sections to run, comma-separated: serving, encodings,
deno, builds, diffs, cold, memory, routers, hostile, feeds, install, signing; a partial run writes
no RESULTS.md).

Exit codes: 0 measured (a target not met is reported, not an error); 1 a run failed; 2 a bad flag.`,
  flags: {},
  positionals: { min: 0, max: 0 },
});

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 4);
const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 4);
const CONNECTIONS = Number(process.env["BENCH_CONNECTIONS"] ?? 50);
const CONFIG = { baseUrl: "https://registry.example.org", builtAt: "2026-11-21T12:00:00Z" };
const EPOCH = String(Date.parse(CONFIG.builtAt) / 1000);
const work = mkdtempSync(join(tmpdir(), "registry-bench-"));
const env = { ...process.env, HOST: "127.0.0.1", PORT: "0", BASE_URL: CONFIG.baseUrl, SOURCE_DATE_EPOCH: EPOCH };
const TSX = ["--import", "tsx"];

interface Row {
  readonly what: string;
  readonly measured: string;
  readonly target: string;
  readonly met: boolean | null;
}
const rows: Row[] = [];
const row = (what: string, measured: string, target = "", met: boolean | null = null): void => {
  rows.push({ what, measured, target, met });
  console.error(`  ${what}: ${measured}${target ? ` (target ${target}: ${met ? "met" : "NOT met"})` : ""}`);
};

const load = (
  url: string,
  headers: Record<string, string> = {},
  seconds = SECONDS,
  connections = CONNECTIONS,
): Promise<Load> => loadWith(url, headers, seconds, connections);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const fmt = (x: number, digits = 2): string => x.toFixed(digits);

/** Alternates A and B (ABBA) for `rounds` rounds (default ROUNDS); the median ratios of A to B. */
async function compare(
  a: () => Promise<Load>,
  b: () => Promise<Load>,
  rounds = ROUNDS,
): Promise<{ rps: number; p99: number; a: Load; b: Load }> {
  const ratios: number[] = [];
  const p99s: number[] = [];
  let last: [Load, Load] | undefined;
  for (let round = 0; round < rounds; round++) {
    const [ra, rb] = round % 2 === 0
      ? [await a(), await b()]
      : (([y, x]) => [x, y] as [Load, Load])([await b(), await a()]);
    if (ra.errors + rb.errors > 0) throw new Error(`load errors: ${ra.errors} and ${rb.errors}`);
    ratios.push(ra.rps / rb.rps);
    p99s.push(Math.max(ra.p99, 0.5) / Math.max(rb.p99, 0.5));
    last = [ra, rb];
  }
  const [la, lb] = last as [Load, Load];
  return { rps: median(ratios), p99: median(p99s), a: la, b: lb };
}

function validated(source: unknown): Source {
  const result = validateSource(source);
  if (!result.ok) throw new Error(result.problems.slice(0, 5).join("\n"));
  return result.source;
}

/** Writes a source file and the spec (body file and 200 headers) a raw server serves for it: the document, or the answer at `route`. */
async function prepare(
  name: string,
  source: unknown,
  route?: string,
): Promise<{ sourcePath: string; specPath: string; bytes: number }> {
  const sourcePath = join(work, `${name}.source.json`);
  writeFileSync(sourcePath, JSON.stringify(source));
  const build = await prepareBuild(validated(source), CONFIG);
  const document = build.routes.get(route ?? build.meta.canonicalOf)!.identity;
  const bodyPath = join(work, `${name}.body.json`);
  writeFileSync(bodyPath, document.body);
  const specPath = join(work, `${name}.spec.json`);
  writeFileSync(specPath, JSON.stringify({ body: bodyPath, headers: document.ok }));
  return { sourcePath, specPath, bytes: document.body.byteLength };
}

/** The arguments of `node` for `npm run build` of a source into `out`, a new history, unsigned. */
const buildArgs = (sourcePath: string, out: string): string[] => [
  ...TSX,
  "node/bin/build.ts",
  "--source",
  sourcePath,
  "--base-url",
  CONFIG.baseUrl,
  "--out",
  out,
  "--new-history",
  "--unsigned",
];

/** `npm run build` of a source into the scratch folder; returns the output folder. */
const built = new Map<string, string>();
async function artifacts(sourcePath: string): Promise<string> {
  const known = built.get(sourcePath);
  if (known !== undefined) return known;
  const out = join(work, `dist-${built.size}`);
  await timed("node", buildArgs(sourcePath, out));
  built.set(sourcePath, out);
  return out;
}

async function withServers<T>(
  starts: (() => Promise<Running>)[],
  body: (servers: Running[]) => Promise<T>,
): Promise<T> {
  const servers: Running[] = [];
  try {
    for (const start of starts) servers.push(await start());
    return await body(servers);
  } finally {
    for (const s of servers) await s.stop("SIGTERM", 5_000);
  }
}

/** The production Node server: `node dist/node/server.mjs` of a build of the source. */
const ours = (sourcePath: string) => async () =>
  startServer("node", [join(await artifacts(sourcePath), "node", "server.mjs")], env, 120_000);
/** The alternative to the one Node listener: the fetch artifact's Hono app through @hono/node-server. */
const honoNode = (sourcePath: string) => async () =>
  startServer("node", ["bench/servers/hono-node.mjs", join(await artifacts(sourcePath), "fetch", "index.mjs")], env);
const rawNode = (specPath: string) => () => startServer("node", [...TSX, "bench/servers/raw-node.ts", specPath], env);
const fastify = (specPath: string) => () =>
  startServer(
    "node",
    [...TSX, "bench/servers/fastify.ts", specPath, CANONICAL_PATH, ...VERSIONS.map((v) => v.path)],
    env,
  );

async function servingNode(
  label: string,
  prepared: { sourcePath: string; specPath: string; bytes: number },
  targets: boolean,
): Promise<void> {
  const { sourcePath, specPath, bytes } = prepared;
  await withServers([ours(sourcePath), rawNode(specPath), fastify(specPath)], async ([o, r, f]) => {
    const path = (VERSIONS[0] as ContractVersion).path;
    const connections = bytes > 1 << 20 ? 10 : CONNECTIONS; // megabytes per answer: fewer in flight
    const vsRaw = await compare(
      () => load(o!.origin + path, {}, SECONDS, connections),
      () => load(r!.origin + path, {}, SECONDS, connections),
    );
    row(
      `dist/node/server.mjs / raw node:http, ${label} (${(bytes / 1024).toFixed(0)} KB), req/s`,
      `${fmt(vsRaw.rps)}x (${fmt(vsRaw.a.rps, 0)} vs ${fmt(vsRaw.b.rps, 0)} req/s)`,
      targets ? ">= 0.95x" : "",
      targets ? vsRaw.rps >= 0.95 : null,
    );
    row(
      `dist/node/server.mjs / raw node:http, ${label}, p99 latency`,
      `${fmt(vsRaw.p99)}x (${vsRaw.a.p99} vs ${vsRaw.b.p99} ms)`,
      targets ? "<= 1.15x" : "",
      targets ? vsRaw.p99 <= 1.15 : null,
    );
    const vsFastify = await compare(
      () => load(o!.origin + path, {}, SECONDS, connections),
      () => load(f!.origin + path, {}, SECONDS, connections),
    );
    row(
      `dist/node/server.mjs / Fastify, ${label}, req/s`,
      `${fmt(vsFastify.rps)}x (${fmt(vsFastify.a.rps, 0)} vs ${fmt(vsFastify.b.rps, 0)} req/s); p99 ${
        fmt(vsFastify.p99)
      }x`,
      targets ? "> 1.00x" : "",
      targets ? vsFastify.rps > 1 : null,
    );
  });
  if (!targets) return;
  // The server the Node listener could have been: the Hono app through @hono/node-server. It serves as
  // fast; its cold start is in coldStart().
  await withServers([honoNode(sourcePath), rawNode(specPath)], async ([d, r]) => {
    const path = (VERSIONS[0] as ContractVersion).path;
    const vsRaw = await compare(() => load(d!.origin + path), () => load(r!.origin + path));
    row(
      `the Hono app on @hono/node-server (not shipped) / raw node:http, ${label}, req/s`,
      `${fmt(vsRaw.rps)}x (${fmt(vsRaw.a.rps, 0)} vs ${fmt(vsRaw.b.rps, 0)} req/s); p99 ${
        fmt(vsRaw.p99)
      }x (${vsRaw.a.p99} vs ${vsRaw.b.p99} ms)`,
    );
  });
}

async function conditionalAndEncodings(largeSourcePath: string): Promise<void> {
  const { sourcePath } = await prepare("fixture-304", JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
  await withServers([ours(sourcePath)], async ([o]) => {
    const url = `${o!.origin}/vaults.json`;
    const etag = (await fetchRaw(url)).headers["etag"] as string;
    const r = await compare(() => load(url, { "if-none-match": etag }), () => load(url));
    row(
      "304 answers / 200 answers (If-None-Match), fixture, req/s",
      `${fmt(r.rps)}x (${fmt(r.a.rps, 0)} vs ${fmt(r.b.rps, 0)} req/s); p99 ${fmt(r.p99)}x`,
      ">= 1.0x",
      r.rps >= 1.0,
    );
  });
  // The JSON change feed comes from the same precomputed answers as the document: as near raw
  // node:http writing its bytes.
  const feedPath = changesPaths(VERSIONS[0] as ContractVersion).json;
  const feed = await prepare("fixture-feed", JSON.parse(readFileSync("fixtures/registry.json", "utf8")), feedPath);
  await withServers([ours(sourcePath), rawNode(feed.specPath)], async ([o, raw]) => {
    const r = await compare(() => load(o!.origin + feedPath), () => load(raw!.origin + feedPath));
    row(
      `dist/node/server.mjs / raw node:http, the fixture's JSON change feed (${
        (feed.bytes / 1024).toFixed(1)
      } KB), req/s`,
      `${fmt(r.rps)}x (${fmt(r.a.rps, 0)} vs ${fmt(r.b.rps, 0)} req/s); p99 ${fmt(r.p99)}x`,
      ">= 0.95x",
      r.rps >= 0.95,
    );
  });
  await withServers([ours(largeSourcePath)], async ([o]) => {
    const url = `${o!.origin}/vaults.json`;
    for (const [coding, header] of [["gzip", "gzip"], ["brotli", "br"]] as const) {
      const r = await compare(
        () => load(url, { "accept-encoding": header }, SECONDS, 10),
        () => load(url, {}, SECONDS, 10),
      );
      const wire = r.a.bytesPerRequest / r.b.bytesPerRequest;
      const isGzip = coding === "gzip";
      row(
        `${coding} client / identity client, large document, req/s`,
        `${fmt(r.rps)}x (${fmt(r.a.rps, 1)} vs ${fmt(r.b.rps, 1)} req/s); p99 ${fmt(r.p99)}x`,
        isGzip ? ">= 5x" : "",
        isGzip ? r.rps >= 5 : null,
      );
      row(
        `${coding} client / identity client, large document, bytes on the wire`,
        `${fmt(wire * 100, 1)}%`,
        isGzip ? "<= 20%" : "",
        isGzip ? wire <= 0.2 : null,
      );
    }
  });
}

/**
 * Deno: the deploy artifact (`deno serve dist/fetch/index.mjs`, the target) and the development
 * entry (`deno serve handler.ts`, the Hono app), each against a raw Deno.serve of the same bytes
 * and headers.
 */
async function deno(): Promise<void> {
  const { specPath, sourcePath } = await prepare("deno", JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
  const denoBin = "node_modules/.bin/deno";
  const entries = [
    {
      name: "deno serve dist/fetch/index.mjs",
      args: [join(await artifacts(sourcePath), "fetch", "index.mjs")],
      target: true,
    },
    { name: "deno serve handler.ts", args: ["--allow-env=BASE_URL,SOURCE_DATE_EPOCH", "handler.ts"], target: false },
  ];
  for (const entry of entries) {
    await withServers(
      [
        () => startServer(denoBin, ["serve", "--host", "127.0.0.1", "--port", "0", ...entry.args], env),
        () =>
          startServer(
            denoBin,
            ["run", "--allow-read", "--allow-net=127.0.0.1", "bench/servers/raw-deno.ts", specPath],
            env,
          ),
      ],
      async ([ourDeno, raw]) => {
        // On two cores, where the load generator and Deno's threads share them, one round's ratio swings by half
        // either way: the target row takes three times the rounds.
        const r = await compare(
          () => load(`${ourDeno!.origin}/vaults.json`),
          () => load(`${raw!.origin}/vaults.json`),
          entry.target ? 3 * ROUNDS : ROUNDS,
        );
        row(
          `${entry.name} / raw Deno.serve, fixture, req/s`,
          `${fmt(r.rps)}x (${fmt(r.a.rps, 0)} vs ${fmt(r.b.rps, 0)} req/s)`,
          entry.target ? ">= 0.95x" : "",
          entry.target ? r.rps >= 0.95 : null,
        );
        row(`${entry.name} / raw Deno.serve, fixture, p99 latency`, `${fmt(r.p99)}x (${r.a.p99} vs ${r.b.p99} ms)`);
      },
    );
  }
}

/** Wall time of a command, from spawn to exit, in ms; rejects on a non-zero exit. */
function timed(command: string, args: string[], stdoutTo?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stdout.resume();
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`${command} ${args.join(" ")} exited ${code}: ${err}${stdoutTo ?? ""}`));
    });
  });
}

/**
 * `a` and `b` alternated (ABBA) for `rounds` pairs: each one's median, and the median of the pairs' ratios and of their
 * differences (`added`), each pair measured under the same load.
 */
async function alternateTimes(
  a: () => Promise<number>,
  b: () => Promise<number>,
  rounds: number,
): Promise<{ a: number; b: number; ratio: number; added: number }> {
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      as.push(await a());
      bs.push(await b());
    } else {
      bs.push(await b());
      as.push(await a());
    }
  }
  return {
    a: median(as),
    b: median(bs),
    ratio: median(as.map((x, i) => x / (bs[i] as number))),
    added: median(as.map((x, i) => x - (bs[i] as number))),
  };
}

/**
 * The build through the CLI, net of start-up: (CLI on n vaults - CLI on an empty source) over
 * the floor (bench/floor.mjs: plain Node parsing the source and pretty-printing its vaults with two
 * added string fields - node -e 0), all four alternated in one run, five rounds, medians.
 */
async function builds(): Promise<string> {
  const times = new Map<number, number>();
  let largest = "";
  const empty = (await prepare("build-empty", generateSource(0))).sourcePath;
  for (const n of [1_000, 10_000, 20_000, 100_000]) {
    const { sourcePath } = await prepare(`build-${n}`, generateSource(n));
    const cli = (path: string) => () =>
      timed("node", [...TSX, "node/bin/registry.ts", path, "--built-at", CONFIG.builtAt]);
    const samples = { cli: [] as number[], empty: [] as number[], floor: [] as number[], node: [] as number[] };
    for (let round = 0; round < 5; round++) {
      const order: (keyof typeof samples)[] = round % 2 === 0
        ? ["cli", "empty", "floor", "node"]
        : ["node", "floor", "empty", "cli"];
      for (const which of order) {
        const run = which === "cli"
          ? cli(sourcePath)
          : which === "empty"
          ? cli(empty)
          : which === "floor"
          ? () => timed("node", ["bench/floor.mjs", sourcePath])
          : () => timed("node", ["-e", "0"]);
        samples[which].push(await run());
      }
    }
    const net = median(samples.cli) - median(samples.empty);
    const floorNet = median(samples.floor) - median(samples.node);
    const ratio = net / floorNet;
    times.set(n, net);
    const isTarget = n === 100_000;
    row(
      `build of ${n / 1000}k vaults through the CLI / floor (parse + pretty-print the vaults), net of start-up`,
      `${fmt(ratio)}x (${fmt(net, 0)} vs ${fmt(floorNet, 0)} ms)`,
      isTarget ? "<= 2.0x" : "",
      isTarget ? ratio <= 2 : null,
    );
    largest = sourcePath;
  }
  // npm run build of the same 100k vaults: past what the code artifacts embed, so the static export
  // alone, with its .gz and .br siblings; net of the command's start-up (its --help), over the floor
  // that also compresses the document (the bytes this build writes, made once before the rounds)
  // once in each coding.
  const made = join(work, "static-100k-document");
  await timed("node", buildArgs(largest, made));
  const document = join(made, "static", "vaults.json");
  const toStatic = { build: [] as number[], help: [] as number[], floor: [] as number[], node: [] as number[] };
  for (let round = 0; round < 5; round++) {
    const order: (keyof typeof toStatic)[] = round % 2 === 0
      ? ["build", "help", "floor", "node"]
      : ["node", "floor", "help", "build"];
    for (const which of order) {
      const out = join(work, `static-100k-${round}`);
      const args = which === "build"
        ? buildArgs(largest, out)
        : which === "help"
        ? [...TSX, "node/bin/build.ts", "--help"]
        : which === "floor"
        ? ["bench/floor.mjs", largest, "--compressed", document]
        : ["-e", "0"];
      toStatic[which].push(await timed("node", args));
      rmSync(out, { recursive: true, force: true });
    }
  }
  rmSync(made, { recursive: true, force: true });
  const staticNet = median(toStatic.build) - median(toStatic.help);
  const staticFloor = median(toStatic.floor) - median(toStatic.node);
  row(
    "build of 100k vaults to the static export (npm run build, .gz and .br siblings) / floor + gzip 6 + brotli 5, net of start-up",
    `${fmt(staticNet / staticFloor)}x (${fmt(staticNet, 0)} vs ${fmt(staticFloor, 0)} ms)`,
    "<= 1.5x",
    staticNet / staticFloor <= 1.5,
  );
  const [t20, t100] = [times.get(20_000) as number, times.get(100_000) as number];
  row(
    "build time growth, 20k -> 100k vaults (5x the vaults), net of start-up",
    `${fmt(t100 / t20)}x (${fmt(t20, 0)} -> ${fmt(t100, 0)} ms)`,
    "<= 6.5x",
    t100 / t20 <= 6.5,
  );
  return largest;
}

/**
 * `registry diff` in process, growth only: two documents of n vaults (every 100th note changed),
 * and one object of n keys against the same with one key more. Linear growth is 5x and 3x;
 * quadratic would be 25x and 9x. Garbage collection of the larger inputs adds to both and varies
 * from run to run, so each target leaves room above linear and stays well below quadratic.
 */
async function diffs(): Promise<void> {
  const golden = JSON.parse(readFileSync("golden/registry.json", "utf8")) as Document;
  const template = (golden["vaults"] as Document[]).find((r) => !Object.hasOwn(r, "listing")) as Document;
  const documents = (n: number): [Document, Document] => {
    const vaults = Array.from(
      { length: n },
      (_, i) => ({ ...template, vault_slug: `vault-${String(i).padStart(7, "0")}` }),
    );
    const after = vaults.map((r, i) => (i % 100 === 0 ? { ...r, note: `changed ${i}` } : r));
    return [{ ...golden, vaults }, { ...golden, vaults: after }];
  };
  const wide = (n: number): [Document, Document] => {
    const keys = Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    return [{ ...golden, wide: keys }, { ...golden, wide: { ...keys, extra: 1 } }];
  };
  const time = async (pair: [Document, Document]) => {
    const started = performance.now();
    diffDocuments(...pair);
    return performance.now() - started;
  };
  for (
    const [what, make, small, large, target] of [
      ["vaults", documents, 20_000, 100_000, 10],
      ["keys in one object", wide, 50_000, 150_000, 6],
    ] as const
  ) {
    const [a, b] = [make(small), make(large)];
    const t = await alternateTimes(() => time(b), () => time(a), 5);
    row(
      `registry diff growth, ${small / 1000}k -> ${large / 1000}k ${what} (${large / small}x), in process`,
      `${fmt(t.ratio)}x (${fmt(t.b, 0)} -> ${fmt(t.a, 0)} ms)`,
      `<= ${target}x`,
      t.ratio <= target,
    );
  }
}

/**
 * What signing adds to a build: `npm run build` of the embedded snapshot in process with a signing
 * key, and the same without, alternated over nine rounds, medians. The key is made for the run.
 */
async function signing(): Promise<void> {
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]) as CryptoKeyPair;
  const der = Buffer.from(await crypto.subtle.exportKey("pkcs8", pair.privateKey)).toString("base64");
  const pem = `-----BEGIN PRIVATE KEY-----\n${der.match(/.{1,64}/g)?.join("\n")}\n-----END PRIVATE KEY-----\n`;
  const io = { stdout: () => {}, stderr: () => {}, cwd: process.cwd() };
  let round = 0;
  const build = (key: string | undefined) => async () => {
    const out = join(work, `signing-${round++}`);
    const started = performance.now();
    const code = await runBuild(
      [
        "--source",
        "fixtures/registry.json",
        "--base-url",
        CONFIG.baseUrl,
        "--out",
        out,
        "--new-history",
        ...(key === undefined ? ["--unsigned"] : []),
      ],
      { ...(key === undefined ? {} : { REGISTRY_SIGNING_KEY: key }), SOURCE_DATE_EPOCH: "1795262400" },
      io,
    );
    if (code !== 0) throw new Error(`bench: the signing build exited ${code}`);
    const took = performance.now() - started;
    rmSync(out, { recursive: true, force: true });
    return took;
  };
  const t = await alternateTimes(build(pem), build(undefined), 9);
  row(
    "signing: npm run build of the embedded snapshot with a signing key - without, in process",
    `+${fmt(t.added, 0)} ms (${fmt(t.a, 0)} vs ${fmt(t.b, 0)} ms, ${fmt(t.ratio)}x)`,
    "<= +50 ms",
    t.added <= 50,
  );
}

/**
 * The change feeds, in process at 20k and 100k vaults (past what npm run build deploys, so the
 * build's steps are called directly): a build whose previous build is given (its document and feed
 * checked as --previous does, the change classified, the feed carried on) against the same build
 * without one; every 100th vault's note changed between the two builds. And the feed step alone
 * (check the previous document and feed, classify, make and serialize both forms) from 20k to 100k
 * (5x the vaults).
 */
async function feeds(): Promise<void> {
  const v1 = VERSIONS[0] as ContractVersion;
  const paths = changesPaths(v1);
  const later = { baseUrl: CONFIG.baseUrl, builtAt: "2026-11-22T12:00:00Z" };
  const steps = new Map<number, number>();
  for (const n of [20_000, 100_000]) {
    const first = generateSource(n) as { vaults: Record<string, unknown>[] };
    const second = {
      ...first,
      vaults: first.vaults.map((v, i) => (i % 100 === 0 ? { ...v, note: `changed ${i}` } : v)),
    };
    const [before, after] = [validated(first), validated(second)];
    const previous = await prepareBuild(before, CONFIG, {}, VERSIONS, MAX_DOCUMENT_BYTES);
    const documentBytes = previous.routes.get(v1.path)!.identity.body;
    const feedBytes = previous.routes.get(paths.json)!.identity.body;
    const history = async () => {
      const checked = await checkPrevious(v1, later, documentBytes, feedBytes);
      if ("error" in checked) throw new Error(checked.error);
      return {
        previous: new Map([[1, checked.ok.history]]),
        documents: new Map([[1, checked.ok.document]]),
        classify: classifyChange,
      };
    };
    const timedBuild = (withPrevious: boolean) => async () => {
      const started = performance.now();
      await prepareBuild(
        after,
        later,
        { compress: zlibCompress },
        VERSIONS,
        MAX_DOCUMENT_BYTES,
        withPrevious ? await history() : {},
      );
      return performance.now() - started;
    };
    const current = buildRegistry(after, {
      ...later,
      paths: { canonical: CANONICAL_PATH, versioned: v1.path, schema: v1.schemaPath },
    });
    const ref = { built_at: later.builtAt, etag: await strongEtag(serializeRegistry(current, MAX_DOCUMENT_BYTES)) };
    const place = feedPlace(1, later.baseUrl, v1.path, paths);
    const feedStep = async () => {
      const started = performance.now();
      const checked = await checkPrevious(v1, later, documentBytes, feedBytes);
      if ("error" in checked) throw new Error(checked.error);
      const feed = nextFeed(
        place,
        { ref, vaults: current.vaults, edges: current.edges, envelope: envelopeOf(current) },
        checked.ok.history,
        () => classifyChange(checked.ok.document, current),
      );
      serializeFeed(feed);
      atomFeed(place, feed);
      return performance.now() - started;
    };
    if (n === 100_000) {
      const t = await alternateTimes(timedBuild(true), timedBuild(false), 5);
      row(
        "build with --previous / the same build without, 100k vaults (1% of notes changed), in process",
        `${fmt(t.ratio)}x (${fmt(t.a, 0)} vs ${fmt(t.b, 0)} ms)`,
        "<= 1.5x",
        t.ratio <= 1.5,
      );
    }
    const samples: number[] = [];
    for (let round = 0; round < 3; round++) samples.push(await feedStep());
    steps.set(n, median(samples));
  }
  const [s20, s100] = [steps.get(20_000) as number, steps.get(100_000) as number];
  row(
    "feed step growth (check the previous feed, classify, carry on), 20k -> 100k vaults (5x), in process",
    `${fmt(s100 / s20)}x (${fmt(s20, 0)} -> ${fmt(s100, 0)} ms)`,
    "<= 6.5x",
    s100 / s20 <= 6.5,
  );
}

async function coldStart(): Promise<void> {
  const nodeNothing = () => timed("node", ["-e", "0"]);
  const fixture = join(work, "fixture.source.json");
  const out = await artifacts(fixture);
  const serverToFirst200 = (start: () => Promise<Running>) => async (): Promise<number> => {
    const started = performance.now();
    const s = await start();
    const res = await fetchRaw(`${s.origin}/vaults.json`);
    const elapsed = performance.now() - started;
    await s.stop("SIGTERM", 5_000);
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    return elapsed;
  };
  const server = await alternateTimes(
    serverToFirst200(() => startServer("node", [join(out, "node", "server.mjs")], env)),
    nodeNothing,
    11,
  );
  row(
    "cold start: spawn to first 200, node dist/node/server.mjs / node -e 0",
    `${fmt(server.ratio)}x (${fmt(server.a, 0)} vs ${fmt(server.b, 0)} ms)`,
    "<= 1.5x",
    server.ratio <= 1.5,
  );
  const hono = await alternateTimes(serverToFirst200(honoNode(fixture)), nodeNothing, 5);
  row(
    "cold start: spawn to first 200, the Hono app on @hono/node-server (not shipped) / node -e 0",
    `${fmt(hono.ratio)}x (${fmt(hono.a, 0)} vs ${fmt(hono.b, 0)} ms)`,
  );

  // The Lambda bundle as the build makes it, in process, for esbuild's sizes per input: of the
  // fixture, and of a registry of a few hundred vaults with an operator's internal keys.
  const few = (await prepare("lambda-300", generateSource(300))).sourcePath;
  for (const [what, sourcePath] of [["the fixture", fixture], ["300 vaults", few]] as const) {
    await lambdaColdStart(what, sourcePath, nodeNothing);
  }
  // What the Lambda rows include before any of the bundle: Node's ES module loader, which
  // `node -e 0` never starts, importing a module that holds nothing.
  const empty = join(work, "empty.mjs");
  writeFileSync(empty, "export {};\n");
  const script = `await import(${JSON.stringify(empty)});`;
  const floor = await alternateTimes(() => timed("node", ["--input-type=module", "-e", script]), nodeNothing, 11);
  row(
    "cold start: an empty ES module imported as the Lambda rows import theirs, minus node -e 0",
    `+${fmt(floor.added, 1)} ms (${fmt(floor.a, 0)} vs ${fmt(floor.b, 0)} ms)`,
  );
}

/** The Lambda bundle of `sourcePath`: its import and first invocation over a bare node, and its sizes. */
async function lambdaColdStart(what: string, sourcePath: string, nodeNothing: () => Promise<number>): Promise<void> {
  const dir = join(work, `sized-${what.replace(/\W+/g, "-")}`);
  const bundles = await bundleArtifacts(
    await prepareBuild(validated(JSON.parse(readFileSync(sourcePath, "utf8"))), CONFIG, { compress: zlibCompress }),
    dir,
    sourcePath,
  );
  const bundle = join(dir, "lambda", "index.mjs");
  const event = JSON.parse(readFileSync("fixtures/aws-events/apigw-http-v2.json", "utf8"));
  event.rawPath = "/vaults.json";
  event.requestContext.http.path = "/vaults.json";
  const script = `const m = await import(${JSON.stringify(bundle)}); const r = await m.handler(${
    JSON.stringify(event)
  }); if (r.statusCode !== 200) process.exit(1);`;
  const lambda = await alternateTimes(() => timed("node", ["--input-type=module", "-e", script]), nodeNothing, 11);
  const { added } = lambda;
  row(
    `cold start: Lambda bundle of ${what} imported and invoked once, minus node -e 0`,
    `+${fmt(added, 1)} ms (${fmt(lambda.a, 0)} vs ${fmt(lambda.b, 0)} ms)`,
    "<= 10 ms",
    added <= 10,
  );

  const total = statSync(bundle).size;
  const inputs = Object.values(bundles.lambda.outputs)[0]?.inputs ?? {};
  const snapshot = Object.entries(inputs).filter(([file]) => file.includes("stamp.json")).reduce(
    (sum, [, v]) => sum + v.bytesInOutput,
    0,
  );
  const code = total - snapshot;
  row(
    `Lambda bundle of ${what}, minified code without the embedded answers`,
    `${fmt(code / 1024, 1)} KB`,
    "<= 30 KB",
    code <= 30 * 1024,
  );
  row(
    `Lambda bundle of ${what}, whole file minified / gzipped`,
    `${fmt(total / 1024, 1)} KB / ${fmt(gzipSync(readFileSync(bundle)).length / 1024, 1)} KB`,
  );
}

async function memory(sourcePath: string): Promise<void> {
  await withServers([ours(sourcePath)], async ([o]) => {
    const pid = o!.child.pid as number;
    const first = await fetchRaw(`${o!.origin}/vaults.json`, {}, 60_000);
    const docBytes = first.body.length;
    await new Promise((r) => setTimeout(r, 2_000));
    const idle = rssOf(pid);
    await load(`${o!.origin}/vaults.json`, {}, 10, 10);
    await load(`${o!.origin}/vaults.json`, { "accept-encoding": "gzip, br" }, 5, 10);
    const after = rssOf(pid);
    const growth = after - idle;
    row(
      `Node server RSS after load, largest deployable document (${fmt(docBytes / 1048576, 1)} MB)`,
      `idle ${fmt(idle / 1048576, 0)} MB, after ${fmt(after / 1048576, 0)} MB: +${
        fmt(growth / docBytes, 2)
      }x the document`,
      "<= idle + 3x document",
      growth <= 3 * docBytes,
    );
  });
}

/** The operator's installs (bench/install.ts): the light clone and the package, against hono alone. */
function installs(): void {
  const { clone, pkg, hono } = measureInstalls(work);
  const mb = (bytes: number) => `${fmt(bytes / 2 ** 20, 1)} MB`;
  row(
    "operator's install of a clone (npm ci --omit=dev --omit=optional), node_modules",
    mb(clone.bytes),
    "<= 40 MB",
    clone.bytes <= 40 * 2 ** 20,
  );
  row(
    "operator's install of a clone / npm install hono alone, time",
    `${fmt(clone.ms / hono.ms)}x (${fmt(clone.ms / 1000, 1)} vs ${fmt(hono.ms / 1000, 1)} s)`,
  );
  row(
    "the package installed from its tarball into an empty project, node_modules",
    mb(pkg.bytes),
    "<= 40 MB",
    pkg.bytes <= 40 * 2 ** 20,
  );
  row(
    "the package installed from its tarball / npm install hono alone, time",
    `${fmt(pkg.ms / hono.ms)}x (${fmt(pkg.ms / 1000, 1)} vs ${fmt(hono.ms / 1000, 1)} s)`,
  );
}

/**
 * Hostile sources, each at the largest size its limits let through (or just past them), validated
 * as every command reads them, in a process of its own: peak resident memory against 4x the file
 * + 100 MB, and wall time (start-up included) against 30 s. Files are written in chunks, so the
 * bench itself never holds one whole.
 */
async function hostileSources(): Promise<void> {
  const FILL = MAX_SOURCE_BYTES - 64 * 1024;
  const head = `{"registry_schema_version":"1","generated_at":"2026-11-14T08:30:00Z","source_inventory_sha":"${
    "a".repeat(40)
  }","internal_keys":["internal"],"edges":[],`;
  const oneVault = '"vaults":[{"vault_slug":"a","display_name":"A","status":"active"}],';
  /** Writes head, then `item(i)` joined by commas while under `limit` bytes (or `count` items), then tail. */
  const write = (
    name: string,
    prefix: string,
    item: (i: number) => string,
    suffix: string,
    limit = FILL,
    count = Infinity,
  ): string => {
    const path = join(work, `hostile-${name}.json`);
    const fd = openSync(path, "w");
    let size = Buffer.byteLength(prefix) + Buffer.byteLength(suffix);
    let chunk = prefix;
    for (let i = 0; i < count; i++) {
      const next = (i === 0 ? "" : ",") + item(i);
      const bytes = Buffer.byteLength(next);
      if (size + bytes > limit) break;
      size += bytes;
      chunk += next;
      if (chunk.length > 1 << 20) {
        writeSync(fd, chunk);
        chunk = "";
      }
    }
    writeSync(fd, chunk + suffix);
    closeSync(fd);
    return path;
  };
  // A vault of 3 values in 51 bytes (with its comma): as many as the record limit allows, then more.
  const vault = (i: number): string =>
    `{"vault_slug":"v${i.toString(36).padStart(6, "0")}","display_name":"V","status":"a"}`;
  const vaultsAtLimit = Math.floor(BASE_RECORDS / (1 - (vault(0).length + 1) / RECORD_BYTES)) - 100;
  // An edge of 3 values in 44 bytes between one vault and itself, each of another type: the same.
  const edge = (i: number): string => `{"source":"a","target":"a","type":"${i.toString(36).padStart(6, "0")}"}`;
  const edgesAtLimit = Math.floor(BASE_RECORDS / (1 - (edge(0).length + 1) / RECORD_BYTES)) - 100;
  const pattern = "k".repeat(MAX_INTERNAL_KEY_LENGTH - 8);
  const controlLabel = "\\u0001".repeat(MAX_STRING_LENGTH);
  const shapes: [string, () => string, boolean][] = [
    [
      `nesting ${MAX_NESTING_DEPTH - 1} deep, repeated`,
      () =>
        write(
          "deep",
          `${head}${oneVault}"internal":[`,
          () => `${"[".repeat(61)}"${"x".repeat(246 * VALUE_WEIGHT_BYTES)}"${"]".repeat(61)}`,
          "]}",
        ),
      false,
    ],
    [
      `nesting ${MAX_NESTING_DEPTH + 1} deep (refused)`,
      () =>
        write(
          "too-deep",
          `${head}${oneVault}"internal":`,
          () => `${"[".repeat(MAX_NESTING_DEPTH)}${"]".repeat(MAX_NESTING_DEPTH)}`,
          "}",
          FILL,
          1,
        ),
      false,
    ],
    [
      "flat array of small objects",
      () =>
        write(
          "flat",
          `${head}${oneVault}"internal":[`,
          (i) => `{"k":"${String(i).padStart(5 * VALUE_WEIGHT_BYTES - 8, "x")}"}`,
          "]}",
        ),
      false,
    ],
    [
      "flat array of empty objects, to the weight limit",
      () =>
        write(
          "empty",
          `${head}${oneVault}"internal":[`,
          () => "{}",
          "]}",
          FILL,
          Math.floor(BASE_VALUE_WEIGHT / (VALUE_WEIGHT_OF_CONTAINER - 3 / VALUE_WEIGHT_BYTES)) - 100,
        ),
      false,
    ],
    [
      "flat array of empty objects, past the weight limit (refused)",
      () =>
        write(
          "empty-over",
          `${head}${oneVault}"internal":[`,
          () => "{}",
          "]}",
          FILL,
          Math.ceil(BASE_VALUE_WEIGHT / (VALUE_WEIGHT_OF_CONTAINER - 3 / VALUE_WEIGHT_BYTES)) + 1000,
        ),
      false,
    ],
    [
      "flat array of small valid vaults, to the record limit",
      () => write("vaults", `${head}"vaults":[`, vault, "]}", FILL, vaultsAtLimit),
      false,
    ],
    [
      "flat array of small valid vaults, past the record limit (refused)",
      () => write("vaults-records", `${head}"vaults":[`, vault, "]}", FILL, vaultsAtLimit + 1_000),
      false,
    ],
    [
      "flat array of small valid edges, to the record limit",
      () => write("edges", `${head.replace('"edges":[],', "")}${oneVault}"edges":[`, edge, "]}", FILL, edgesAtLimit),
      false,
    ],
    [
      "flat array of small valid vaults, past the weight limit (refused)",
      () => write("vaults-over", `${head}"vaults":[`, vault, "]}"),
      false,
    ],
    [
      `distinct undeclared keys of ${MAX_INTERNAL_KEY_LENGTH} characters (refused)`,
      () =>
        write(
          "keys",
          `${head}"vaults":[{"vault_slug":"a","display_name":"A","status":"active",`,
          (i) => `"${pattern}${String(i).padStart(8, "0")}":1`,
          "}]}",
        ),
      false,
    ],
    [
      `distinct undeclared keys of U+FDFA (refused)`,
      () =>
        write(
          "decomposing",
          `${head}"vaults":[{"vault_slug":"a","display_name":"A","status":"active",`,
          (i) => `"${i.toString(36)}${"\ufdfa".repeat(200)}":0`,
          "}]}",
        ),
      false,
    ],
    [
      "one internal string of 64 MiB",
      () => write("string", `${head}${oneVault}"internal":"`, () => "x".repeat(1 << 20), '"}'),
      false,
    ],
    [
      `a label of ${MAX_STRING_LENGTH} control characters on 2,000 rows (built: the escaped length)`,
      () =>
        write(
          "escaped",
          `${head}"labels":{"class":{"c":"${controlLabel}"}},"vaults":[`,
          (i) => `{"vault_slug":"v${i}","display_name":"V","status":"active","class":"c"}`,
          "]}",
          FILL,
          2_000,
        ),
      true,
    ],
  ];
  const measure = (
    path: string,
    build: boolean,
  ): Promise<{ ms: number; peakMiB: number; outcome: string; wall: number }> =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const child = spawn("node", [...TSX, "bench/validate-source.ts", path, ...(build ? ["--build"] : [])], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString()));
      child.stderr.on("data", (c: Buffer) => (err += c.toString()));
      const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
      child.on("exit", (code) => {
        clearTimeout(timer);
        if (code !== 0) reject(new Error(`validate-source ${path} exited ${code}: ${err.slice(0, 500)}`));
        else {resolve({
            ...(JSON.parse(out) as { ms: number; peakMiB: number; outcome: string }),
            wall: performance.now() - started,
          });}
      });
    });
  const cases: [string, () => string, boolean][] = [...shapes, [
    "/dev/zero, a device of size 0 (refused)",
    () => "/dev/zero",
    false,
  ]];
  for (const [what, make, build] of cases) {
    const path = make();
    const size = path === "/dev/zero" ? MAX_SOURCE_BYTES : statSync(path).size;
    const r = await measure(path, build);
    if (path !== "/dev/zero") rmSync(path);
    const budget = (4 * size) / 1048576 + 100;
    row(
      `validate a hostile source: ${what}, ${fmt(size / 1048576, 1)} MiB`,
      `${fmt(r.peakMiB, 0)} MiB peak, ${fmt(r.wall / 1000, 1)} s (${r.outcome.replace(/\|/g, "/")})`,
      `<= ${fmt(budget, 0)} MiB, <= 30 s`,
      r.peakMiB <= budget && r.wall <= 30_000,
    );
  }
}

async function routers(): Promise<void> {
  // In-process: the cost of Hono's routing alone, on our three static routes, per router (the app uses its own).
  const { HonoBase: Hono } = await import("hono/hono-base");
  const { RegExpRouter } = await import("hono/router/reg-exp-router");
  const { LinearRouter } = await import("hono/router/linear-router");
  const { PatternRouter } = await import("hono/router/pattern-router");
  const { TrieRouter } = await import("hono/router/trie-router");
  const paths = tablePaths(VERSIONS);
  const body = new Uint8Array(64);
  const make = (router: unknown) => {
    const app = new Hono({ router: router as never });
    for (const p of paths) app.get(p, () => new Response(body));
    return app;
  };
  const requests = Array.from({ length: 30 }, (_, i) => new Request(`http://x${paths[i % 3]}`));
  const spin = async (app: ReturnType<typeof make>): Promise<number> => {
    const started = performance.now();
    for (let i = 0; i < 60_000; i++) await app.fetch(requests[i % requests.length] as Request);
    return 60_000 / ((performance.now() - started) / 1000);
  };
  const candidates: [string, unknown][] = [
    ["RegExpRouter", new RegExpRouter()],
    ["AddressRouter (the app's)", new AddressRouter()],
    ["LinearRouter", new LinearRouter()],
    ["PatternRouter", new PatternRouter()],
    ["TrieRouter", new TrieRouter()],
  ];
  const base = make(new RegExpRouter());
  for (const [name, router] of candidates.slice(1)) {
    const app = make(router);
    const r = await alternateTimes(() => spin(app), () => spin(base), 6);
    row(`Hono ${name} / RegExpRouter, app.fetch in process`, `${fmt(r.ratio)}x`);
  }
}

/** BENCH_ONLY=hostile,builds runs only those sections and writes no RESULTS.md (a partial table). */
const ONLY = process.env["BENCH_ONLY"]?.split(",");
const runs = (section: string): boolean => ONLY === undefined || ONLY.includes(section);
const started = Date.now();
try {
  console.error(
    `bench: ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections, ${GENERATOR}, scratch in ${work}`,
  );
  const needsLarge = ONLY === undefined || ONLY.some((o) => ["serving", "encodings", "memory"].includes(o));
  // The cold start builds the fixture's artifacts too.
  const fixturePrepared = needsLarge || runs("cold")
    ? await prepare("fixture", JSON.parse(readFileSync("fixtures/registry.json", "utf8")))
    : undefined;
  // The largest deployable build: npm run build packages at most 8 MiB of document (contract/limits.ts).
  const large = needsLarge ? await prepare("large", generateSource(11_000)) : undefined;
  if (runs("serving")) {
    await servingNode("fixture", fixturePrepared!, true);
    await servingNode("11k vaults", large!, false);
  }
  if (runs("encodings")) await conditionalAndEncodings(large!.sourcePath);
  if (runs("deno")) await deno();
  if (runs("builds")) await builds();
  if (runs("diffs")) await diffs();
  if (runs("feeds")) await feeds();
  if (runs("cold")) await coldStart();
  if (runs("memory")) await memory(large!.sourcePath);
  if (runs("routers")) await routers();
  if (runs("hostile")) await hostileSources();
  if (runs("install")) installs();
  if (runs("signing")) await signing();
} finally {
  rmSync(work, { recursive: true, force: true });
}

const table = [
  "| what | measured (ratio to the baseline of the same run) | target | met |",
  "| --- | --- | --- | --- |",
  ...rows.map((r) => `| ${r.what} | ${r.measured} | ${r.target} | ${r.met === null ? "" : r.met ? "yes" : "**no**"} |`),
].join("\n");
const machine = `${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, ${
  fmt(totalmem() / 2 ** 30, 0)
} GiB, Linux ${release()}, Node ${process.version}`;
const report = [
  "# Benchmark results",
  "",
  `Command: \`npm run bench\` (${ROUNDS} rounds, ${SECONDS} s per load run, ${CONNECTIONS} connections, ${GENERATOR} on loopback).`,
  `Machine: ${machine}. Date: ${new Date().toISOString().slice(0, 10)}. Took ${
    fmt((Date.now() - started) / 1000, 0)
  } s.`,
  "",
  "Every ratio is ours over the baseline, both measured in this run with A and B alternated; the",
  "median over the rounds is shown, with the last round's absolute figures in brackets.",
  "",
  table,
  "",
].join("\n");
if (ONLY === undefined) writeFileSync("bench/RESULTS.md", report);
console.log(table);
