import { homedir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseBaseUrl, shownPath } from "../../contract/config.ts";
import { MAX_DOCUMENT_BYTES } from "../../contract/limits.ts";
import { type FeedHistory, prepareBuild } from "../../assembly/prepare.ts";
import { sameRef } from "../../feed/change.ts";
import { planAt } from "../../contract/version-policy.ts";
import { VERSIONS } from "../../assembly/versions.ts";
import { type Command, type CommandSpec, parseOrExit, usageLine } from "../common/args.ts";
import { bundleSome } from "./bundle.ts";
import { type ArtifactPlan, planArtifacts, staticAlone } from "./platform-limits.ts";
import { zlibCompress } from "../common/compress.ts";
import { INTERNAL_KEYS_FLAG, loadInputs } from "../common/inputs.ts";
import { classifyChange } from "./classify.ts";
import { outputProblems, replaceOutput } from "./output-folder.ts";
import { heldBuild, type PreviousFiles, readPrevious } from "./previous.ts";
import { isRemote } from "../common/request.ts";
import { printable } from "../common/printable.ts";
import { writeStatic } from "./static.ts";
import { prepareSigning, signedSummary, SIGNING_FLAGS, signStaged } from "./signing.ts";

/** The repository this build runs from: neither it nor a folder holding it may be the output. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const SPEC: CommandSpec = {
  usage:
    "npm run build -- --source FILE --base-url URL [--out DIR] [--previous DIR|URL | --new-history] [--internal-keys NAMES] [--signature-lifetime DURATION] [--unsigned]",
  help: `
Builds every deploy artifact from one source, stamped with one built_at:
  DIR/node/server.mjs    the Node server (node DIR/node/server.mjs; no node_modules needed)
  DIR/fetch/index.mjs    Netlify Functions v2, Cloudflare Workers, Deno (Deploy), Bun
  DIR/lambda/index.mjs   AWS Lambda (handler index.handler)
  DIR/static/            the files and a _headers file, for any static host or CDN
An artifact whose answers would pass its platform's limit (what the code artifacts embed: 8 MiB;
a Lambda or Netlify Functions answer: 6 MB) is left out, in one line naming the limit; a document
over 8 MiB (up to 128 MiB) gets the static export alone, each file with .gz and .br siblings.
Each served version has a change feed (/api/registry.vN.changes.json and .changes.atom), a chain
of this deployment's builds: --previous carries the previous build's history on. A rebuild that
changes nothing keeps the previous built_at (unless SOURCE_DATE_EPOCH sets one), so it publishes
nothing new.
`,
  flags: {
    source: { type: "string", value: "FILE", help: "the source (or REGISTRY_SOURCE); required" },
    "base-url": {
      type: "string",
      value: "URL",
      help:
        "the public base of every URL (or BASE_URL); required: a build is a deploy artifact, and http://localhost:8787 serves development only",
    },
    out: {
      type: "string",
      value: "DIR",
      help:
        "the output folder (default dist). It must be absent, empty, or a previous build's output; anything else is refused and left untouched, and so is a file-system root, the home folder, and the repository or a folder holding it",
    },
    previous: {
      type: "string",
      value: "LOC",
      help:
        "where this deployment's history comes from: this build's own base URL (the live deployment, read past caches, with verify's time and size limits; a redirect is refused; 404 for every document and feed: nothing published yet, a new history starts; a host that cannot be reached is refused), or the last build's --out folder. Its documents and feeds must be of the same base URL and versions, built earlier, and its feed a chain ending at its document that replays onto it unchanged; anything else is refused, nothing written",
    },
    "new-history": {
      type: "boolean",
      help:
        "start a new history on purpose: a first build, or a deployment built before feeds were chains. One of --previous and --new-history is required: a history is never restarted silently, and a CI runner's empty --out is no history",
    },
    "internal-keys": INTERNAL_KEYS_FLAG,
    ...SIGNING_FLAGS,
  },
  notes: `
Environment: REGISTRY_SOURCE, BASE_URL, INTERNAL_KEYS, SOURCE_DATE_EPOCH (built_at in whole seconds
since 1970; set it and two builds are byte-identical; unset, the clock once), REGISTRY_SIGNING_KEY
(one or more PKCS#8 PEM blocks of Ed25519 keys, or a private JWK or JWK Set: each signs a manifest
per version, /api/registry.vN.manifest.json, and /api/registry.keys.json lists their public keys;
never printed).

Exit codes: 0 built; 1 a bad source, setting or output folder (nothing written); 2 a bad flag.`,
  positionals: { min: 0, max: 0 },
};

const HISTORY_REQUIRED =
  "--previous or --new-history: required: say where this deployment's history comes from: --previous URL (the base URL " +
  "of the live deployment; where everything answers 404, a first deploy starts the history), --previous DIR (the " +
  "last build's --out folder), or --new-history (a first build, on purpose)";

/** `npm run build` as a function: builds every artifact into `--out`. */
export const runBuild: Command = async (argv, env, io) => {
  const parsed = parseOrExit(SPEC, argv, io);
  if (typeof parsed === "number") return parsed;
  const { values } = parsed;
  const sourcePath = (values["source"] as string | undefined) ?? (env["REGISTRY_SOURCE"] || undefined);
  const baseUrl = (values["base-url"] as string | undefined) ?? (env["BASE_URL"] || undefined);
  const out = resolve(io.cwd, (values["out"] as string | undefined) ?? "dist");

  const problems: string[] = [];
  if (sourcePath === undefined) problems.push("--source: required (or REGISTRY_SOURCE): the source file to build from");
  if (baseUrl === undefined) {
    problems.push(
      "--base-url: required (or BASE_URL): a build is a deploy artifact, and http://localhost:8787 serves development only",
    );
  }
  problems.push(...outputProblems(out, { home: env["HOME"] || homedir(), repository: ROOT }));
  let previousLocation = values["previous"] as string | undefined;
  const newHistory = values["new-history"] === true;
  if (newHistory && previousLocation !== undefined) {
    io.stderr(
      `--new-history and --previous: give one (the first starts a history, the second carries one on)\n${
        usageLine(SPEC, io)
      }\n`,
    );
    return 2;
  }
  if (!newHistory && previousLocation === undefined) problems.push(HISTORY_REQUIRED);
  // The live base URL follows the base URL's rules, checked here: no query or fragment for the
  // paths to land after, no credentials, never echoed.
  if (previousLocation !== undefined && isRemote(previousLocation)) {
    const parsed = parseBaseUrl(previousLocation);
    if ("error" in parsed) problems.push(`--previous: ${parsed.error}`);
    else previousLocation = parsed.ok;
  }
  const internalKeys = values["internal-keys"] as string | undefined;
  const inputs = sourcePath === undefined
    ? undefined
    : await loadInputs(resolve(io.cwd, sourcePath), env, { baseUrl }, shownPath(sourcePath), internalKeys);
  if (inputs !== undefined && "problems" in inputs) problems.push(...inputs.problems);
  if (problems.length > 0 || inputs === undefined || !("ok" in inputs)) {
    io.stderr(problems.map((p) => `${p}\n`).join(""));
    return 1;
  }

  // The clock gave built_at: a rebuild that changes nothing may keep the previous one.
  let history: FeedHistory = { clock: (env["SOURCE_DATE_EPOCH"] ?? "") === "" };
  let carried: PreviousFiles | undefined;
  const { baseUrl: base, builtAt } = inputs.ok.config;
  const plan = planAt(VERSIONS, builtAt);
  const versions = "ok" in plan ? plan.ok.served.map((s) => s.version) : [];
  const shownOut = relative(io.cwd, out) || ".";
  const held = await heldBuild(out, base, versions);
  // Consumers of the build held there must meet a later document, or they would wait for it.
  if (held !== null && newHistory && !(held.ref.built_at < builtAt)) {
    io.stderr(
      `--out ${shownOut}: holds a build of ${base} built at ${held.ref.built_at}, not earlier than this one (${builtAt}): a new history starts later than what consumers hold\n`,
    );
    return 1;
  }
  // A table or built_at the policy refuses is reported by prepareBuild below, in its own words.
  if (previousLocation !== undefined && "ok" in plan) {
    const previous = await readPrevious(previousLocation, { baseUrl: base, builtAt, versions, cwd: io.cwd });
    if ("error" in previous) {
      // The reason may quote what a remote answered (a redirect's Location): no terminal control is printed.
      io.stderr(`${printable(previous.error, "")}\n`);
      return 1;
    }
    const reached = held === null ? undefined : previous.ok.history.get(held.version)?.snapshot.ref;
    if (held !== null && !sameRef(reached ?? null, held.ref)) {
      io.stderr(
        `--out ${shownOut}: holds a build of ${base} (built at ${held.ref.built_at}) that --previous does not lead to: carry on from it (--previous ${shownOut}), or build into an empty folder\n`,
      );
      return 1;
    }
    if (previous.ok.started !== undefined) io.stderr(`${printable(previous.ok.started, "")}\n`);
    carried = previous.ok.files;
    const { history: past, documents } = previous.ok;
    history = { ...history, previous: past, documents, files: carried, classify: classifyChange };
  }

  // The previous build's manifests: where --previous reads, or the --out a new history replaces.
  const location = previousLocation ?? (held !== null && newHistory ? out : undefined);
  const signing = await prepareSigning({ env, values, location, baseUrl: base, versions, cwd: io.cwd, carried });
  if ("exit" in signing) {
    io.stderr(`${signing.message}\n`);
    return signing.exit;
  }
  io.stderr(inputs.ok.warnings.map((w) => `${w}\n`).join(""));
  try {
    const served = await prepareBuild(
      inputs.ok.source,
      inputs.ok.config,
      { compress: zlibCompress },
      VERSIONS,
      MAX_DOCUMENT_BYTES,
      history,
    );
    // Past the limit every code artifact embeds, the static export alone serves the document, with precompressed
    // siblings; each code artifact is written only when every answer it may give fits (platform-limits.ts).
    const alone = staticAlone(served);
    let plan: ArtifactPlan | undefined;
    await replaceOutput(out, served.meta.builtAt, async (staging) => {
      await writeStatic(join(staging, "static"), served, { siblings: alone });
      const signed = await signStaged(served, join(staging, "static"), signing.ok);
      plan = await planArtifacts(signed);
      // The artifact names the source by its base name only: the build machine's folders stay private.
      await bundleSome(signed, staging, basename(sourcePath as string), plan.write);
    });
    const lines = plan?.lines ?? [];
    if (lines.length > 0) io.stderr(lines.map((line) => `${line}\n`).join(""));
    const { meta } = served;
    io.stdout(
      `built ${shownOut}: ${meta.vaultCount} vaults, ${meta.edgeCount} edges, built_at ${meta.builtAt}, base URL ${meta.baseUrl}, ETag ${meta.etag}${
        signedSummary(signing.ok)
      }\n`,
    );
    return 0;
  } catch (error: unknown) {
    io.stderr(`build failed: ${(error instanceof Error ? error.message : String(error)).split("\n")[0]}\n`);
    return 1;
  }
};
