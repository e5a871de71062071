import { hasRowKeys } from "../../contract/document.ts";
import { isObject } from "../../contract/json.ts";
import { MAX_DOCUMENT_BYTES } from "../../contract/limits.ts";
import { sentUrl } from "../../contract/config.ts";
import { CANONICAL_PATH, contextOf, type ContractVersion, planAt } from "../../contract/version-policy.ts";
import { basePathOf } from "../../http/answer.ts";
import { strongEtag } from "../../http/responses.ts";
import { VERSIONS } from "../../assembly/versions.ts";
import { coverageOf, tierOf } from "../../registry.ts";
import { arrayOf, jsonEqual } from "../common/json-deep.ts";
import { readJson } from "../common/json-error.ts";
import { schemaCheck } from "../common/schemas.ts";
import type { Check } from "./check.ts";
import { coding, feedChecks } from "./feeds.ts";
import { checkManifest, fileMatches } from "../../client/client.ts";
import { documentPath, MANIFEST_MEDIA_TYPE, manifestPath } from "../../assembly/manifest.ts";
import { printable } from "../common/printable.ts";
import { type Get, request, REQUEST_TIMEOUT_MS, RequestFailure, RUN_DEADLINE_MS, timeout } from "../common/request.ts";

export type { Check } from "./check.ts";

const TIER_LABELS: Record<string, string> = { in_use: "in use", chartered: "chartered", planned: "planned" };

/** The most of a document's body read: the largest document a build makes (the static export serves it). */
export const DOCUMENT_BODY_CAP = MAX_DOCUMENT_BYTES;
/** The most of any other body read (a schema, a manifest, a 304, a 410). */
const OTHER_BODY_CAP = 1024 * 1024;

/** Options of `verify`; every one has a default. */
export interface VerifyOptions {
  /** Served by a static host: host-made headers are warnings. */
  readonly static?: boolean;
  /** The base URL the deployment is built for, when it is reached at another (default: `base`). */
  readonly expectBase?: string;
  readonly timeoutMs?: number;
  readonly deadlineMs?: number;
  readonly now?: Date;
  readonly table?: readonly ContractVersion[];
  /** An earlier built document of this deployment (`--previous-document`): the feed's items newer than it must replay onto it. */
  readonly previousDocument?: { readonly name: string; readonly value: unknown; readonly etag: string };
  /** Pinned public keys (a JWK Set): the manifest of the version `/vaults.json` serves must verify with one. */
  readonly keys?: unknown;
  /** What was last accepted for this deployment, by version (`--state`): rollback and equivocation. */
  readonly state?: (version: number) => ManifestState | undefined;
  /** Called with what to keep when the manifest and every file's digest pass. */
  readonly onAccepted?: (state: ManifestState & { readonly iss: string; readonly version: number }) => void;
}

/** What a consumer keeps per (`iss`, `version`) (`filesSha256` is absent in a state written before it was kept). */
export interface ManifestState {
  readonly seq: number;
  readonly iat: number;
  readonly sha256: string;
  readonly filesSha256?: string;
}

/**
 * Runs every check against `base` (no trailing slash) and returns them in order. A request that fails, or anything
 * unexpected, is a failing check, never an exception. With `static` (or a weak ETag, which only a host computing its
 * own sends), what a static host does on its own (a weak ETag, `; charset=utf-8`) is a warning, not a failure.
 */
export async function verify(base: string, options: VerifyOptions = {}): Promise<Check[]> {
  const checks: Check[] = [];
  const deadline = timeout(options.deadlineMs ?? RUN_DEADLINE_MS);
  try {
    await runChecks(base, options, deadline.signal, checks);
  } catch (error: unknown) {
    const detail = error instanceof RequestFailure
      ? error.message
      : `stopped: ${error instanceof Error ? error.message : String(error)}`;
    checks.push({ name: "every request gets a complete answer", result: "fail", detail });
  } finally {
    deadline.clear();
  }
  return checks;
}

async function runChecks(base: string, options: VerifyOptions, deadline: AbortSignal, checks: Check[]): Promise<void> {
  const table = options.table ?? VERSIONS;
  const expect = options.expectBase ?? base;
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const today = (options.now ?? new Date()).toISOString().replace(/\.\d+Z$/, "Z");
  let lenient = options.static === true;
  const check = (name: string, pass: boolean, detail = "", hostMay = false): boolean => {
    checks.push({ name, result: pass ? "pass" : hostMay && lenient ? "warn" : "fail", detail });
    return pass;
  };
  const deadlineMs = options.deadlineMs ?? RUN_DEADLINE_MS;
  const get = (path: string, headers: Record<string, string> = {}, method = "GET", cap = OTHER_BODY_CAP) =>
    request(`${base}${path}`, { method, headers, cap, timeoutMs, deadline, deadlineMs });

  // The version /vaults.json serves, by its Content-Location, else the one the table names today.
  const canonical = await get(CANONICAL_PATH, {}, "GET", DOCUMENT_BODY_CAP);
  if (canonical.status === 404) {
    return void check(
      "/vaults.json answers 200",
      false,
      `404 at ${base}${CANONICAL_PATH}: no document there. If the platform keeps a stage or a path prefix (an API Gateway stage, a base-path mapping, a proxy), put it in <base-url>, e.g. ${base}/prod`,
    );
  }
  if (canonical.status >= 300 && canonical.status < 400) {
    const to = sentUrl(canonical.headers.get("location"), `${base}${CANONICAL_PATH}`);
    return void check(
      "/vaults.json answers 200",
      false,
      `${canonical.status}, a redirect to ${to}: verify the address it names`,
    );
  }
  const location = canonical.headers.get("content-location");
  // Under a base URL with a path (https://x/reg), Content-Location names the versioned path with it.
  const prefix = basePathOf(expect);
  const named = table.find((v) => v.path === location || `${prefix}${v.path}` === location);
  const plan = planAt(table, today);
  const version = named ?? ("ok" in plan ? plan.ok.canonical : (table[0] as ContractVersion));
  const shownLocation = location === null ? "none" : sentUrl(location, base);
  check(`/vaults.json says Content-Location: a versioned path of the table`, named !== undefined, shownLocation);
  const versioned = await get(version.path, {}, "GET", DOCUMENT_BODY_CAP);
  const paths = { canonical: CANONICAL_PATH, versioned: version.path, schema: version.schemaPath };
  const etag = canonical.headers.get("etag");
  const versionedEtag = versioned.headers.get("etag");
  if (!lenient && etag?.startsWith("W/")) {
    lenient = true;
    check("static host detected (a weak ETag): host-made headers are warnings", false, "pass --static to say so", true);
  }
  const [a, b] = [canonical.body, versioned.body];
  const both200 = canonical.status === 200 && versioned.status === 200;
  check("both paths answer 200", both200, `${canonical.status}, ${versioned.status}`);
  check("identical bytes on both paths", a.equals(b), `${a.length} and ${b.length} bytes`);
  const strong = etag !== null && !etag.startsWith("W/") && etag === versionedEtag;
  check(
    "strong ETag, the same on both paths",
    strong,
    `${etag}${coding(canonical)} and ${versionedEtag}${coding(versioned)}`,
    true,
  );
  const types = [canonical, versioned].map((r) => r.headers.get("content-type"));
  const exactType = types.every((t) => t === "application/json");
  const withCharset = types.every((t) => t?.replace(/;\s*charset=utf-8$/i, "") === "application/json");
  check("Content-Type is application/json", exactType, types.join(", "), withCharset);
  const cors = [canonical, versioned].every((r) => r.headers.get("access-control-allow-origin") === "*");
  check("CORS allows any origin", cors);
  const body = readJson(a.toString("utf8"), { locate: false });
  if ("error" in body) return void check("body is JSON", false, `${a.length} bytes that do not parse`);
  const document = body.ok;
  if (!isObject(document)) {
    return void check("body is a JSON object", false, Array.isArray(document) ? "an array" : typeof document);
  }
  const schemaVersion = document["schema_version"];
  check("body is JSON with schema_version 1.0", schemaVersion === "1.0", String(schemaVersion).slice(0, 40));
  documentChecks(document, expect, paths, check);

  for (const [path, own] of [[paths.canonical, etag], [paths.versioned, versionedEtag]] as const) {
    const res = await get(path, { "if-none-match": own ?? "" }, "GET", DOCUMENT_BODY_CAP);
    check(`304 on its own ETag at ${path}`, res.status === 304, String(res.status), true);
  }
  const head = await get(paths.canonical, {}, "HEAD");
  const headOk = head.status === 200 && head.body.length === 0 && head.headers.get("etag") === etag;
  check("HEAD answers the GET headers without a body", headOk);
  const schemaResponse = await get(paths.schema);
  const schemaType = schemaResponse.headers.get("content-type");
  check(
    "schema answers 200 as application/schema+json",
    schemaResponse.status === 200 && schemaType === "application/schema+json",
    `${schemaResponse.status} ${schemaType}`,
    schemaResponse.status === 200 && schemaType?.replace(/;\s*charset=utf-8$/i, "") === "application/schema+json",
  );
  const ownSchema = version.schema(contextOf(version, { baseUrl: expect, builtAt: today }));
  const schemaBody = readJson(schemaResponse.body.toString("utf8"), { locate: false });
  const served = "ok" in schemaBody ? schemaBody.ok : undefined;
  const differing = isObject(served)
    ? [...new Set([...Object.keys(ownSchema), ...Object.keys(served)])].filter((k) =>
      !jsonEqual(ownSchema[k], served[k])
    )
    : ["(not a JSON object)"];
  const differs = differing.length === 0 ? "" : `differs at: ${differing.slice(0, 5).join(", ")}`;
  check(`the served schema is v${version.number}'s own, for ${expect}`, differing.length === 0, differs);
  const link = canonical.headers.get("link") ?? "";
  const describedBy = link.split(", ")[0] === `<${expect}${paths.schema}>; rel="describedby"`;
  const shownLink = link === "" ? "none" : link.replace(/<([^>]*)>/g, (_, url: string) => `<${sentUrl(url, expect)}>`);
  check(`Link: rel=describedby names ${expect}${paths.schema}`, describedBy, shownLink);
  checks.push(...(await lifecycleChecks(table, today, get)));
  // verify's own copy: a schema from the server is never compiled (a hostile pattern could hang it).
  // Places and reasons, as build --previous words them; never ajv's params.
  const documentFailures = schemaCheck(ownSchema);
  const invalidAt = documentFailures(document);
  check(`the document validates against v${version.number}'s schema`, invalidAt === null, invalidAt ?? "");
  if (options.keys !== undefined) {
    const read = [[paths.canonical, a], [paths.versioned, b], [paths.schema, schemaResponse.body]] as const;
    await manifestChecks(version.number, expect, options, get, check, read);
  }
  const previous = options.previousDocument;
  const problemOf = (value: unknown): string | null => {
    const failures = documentFailures(value);
    return failures === null ? null : `it does not validate against v${version.number}'s schema: ${failures}`;
  };
  checks.push(
    ...(await feedChecks({
      version,
      expect,
      document,
      schema: ownSchema,
      documentValid: invalidAt === null,
      documentLinks: [canonical.headers.get("link"), versioned.headers.get("link")],
      documentEtag: await strongEtag(new Uint8Array(versioned.body)),
      lenient,
      get,
      ...(previous === undefined ? {} : { previous: { ...previous, problem: problemOf(previous.value) } }),
    })),
  );
}

/** The ways consumers ask for a file, each of which a cache or proxy could answer with other bytes. */
const ASKED: readonly (readonly [string, Record<string, string>])[] = [
  ["identity", { "accept-encoding": "identity" }],
  ["gzip", { "accept-encoding": "gzip" }],
  ["br", { "accept-encoding": "br" }],
  ["a browser's codings", { "accept-encoding": "gzip, deflate, br, zstd" }],
  ["Accept: application/json", { accept: "application/json" }],
  ["Accept: application/feed+json", { accept: "application/feed+json" }],
  ["a stale If-None-Match", { "if-none-match": '"00000000000000000000000000000000"' }],
];

type CheckFn = (name: string, pass: boolean, detail?: string, hostMay?: boolean) => boolean;
type Paths = Readonly<Record<"canonical" | "versioned" | "schema", string>>;

/**
 * The signed manifest of version `n`, checked with the pinned keys (`checkManifest`, against `options.state`), then
 * every listed file it reads (all but the static export's types) against its SHA-256, fetched again past caches on a
 * mismatch; then each file once more in each way consumers ask for it (`ASKED`).
 */
async function manifestChecks(
  n: number,
  expect: string,
  options: VerifyOptions,
  get: Get,
  check: CheckFn,
  read: readonly (readonly [string, Buffer])[],
): Promise<void> {
  const path = manifestPath(n);
  // The same URL, never another (a cache buster in the query): what is checked must be what consumers fetch.
  const again = (p: string, cap = DOCUMENT_BODY_CAP) => get(p, { "cache-control": "no-cache" }, "GET", cap);
  let answer = await get(path);
  const type = answer.headers.get("content-type");
  const served = `manifest ${path} answers 200 (a pinned key and no manifest fails)`;
  if (!check(served, answer.status === 200, String(answer.status))) return;
  const bare = type?.replace(/;\s*charset=utf-8$/i, "");
  check(`manifest is ${MANIFEST_MEDIA_TYPE}`, type === MANIFEST_MEDIA_TYPE, String(type), bare === MANIFEST_MEDIA_TYPE);
  const state = options.state?.(n);
  const expectation = {
    baseUrl: expect,
    version: n,
    ...(state === undefined ? {} : { lastSeq: state.seq, lastIat: state.iat, lastSha256: state.sha256 }),
    ...(state?.filesSha256 === undefined ? {} : { lastFilesSha256: state.filesSha256 }),
    ...(options.now === undefined ? {} : { now: Math.floor(options.now.getTime() / 1000) }),
  };
  let result = await checkManifest(new Uint8Array(answer.body), options.keys, expectation);
  if (!result.ok) return void check(`manifest: ${result.reason}`, false, result.detail);
  const exp = new Date(result.exp * 1000).toISOString();
  check("manifest: signature, issuer, version, seq and exp", true, `seq ${result.seq}, exp ${exp}`);
  const bodies = new Map(read);
  for (const listed of Object.keys(result.files).filter((p) => !p.endsWith(".d.ts"))) {
    if (!bodies.has(listed)) bodies.set(listed, (await get(listed, {}, "GET", DOCUMENT_BODY_CAP)).body);
  }
  for (const [p] of read) if (!Object.hasOwn(result.files, p)) check(`manifest lists ${p}`, false, "not listed");
  let wrong: string[] = [];
  const stale: string[] = [];
  for (const [p, body] of bodies) if (!(await fileMatches(result.files, p, body))) wrong.push(p);
  if (wrong.length > 0) {
    // Again past caches (a deploy in progress can pair a new file with an old manifest), within the first read's cap
    // again: its signatures each cost a check.
    answer = await again(path, OTHER_BODY_CAP);
    result = await checkManifest(new Uint8Array(answer.body), options.keys, expectation);
    if (!result.ok) return void check(`manifest: ${result.reason}`, false, `${result.detail} (fetched again)`);
    // Every file read against this one manifest, not only those that failed: no mix of two builds passes.
    wrong = [];
    for (const [p, body] of bodies) {
      if (await fileMatches(result.files, p, body)) continue;
      if (!(await fileMatches(result.files, p, (await again(p)).body))) wrong.push(p);
      // Right past caches, it must be right as consumers fetch it too: else a cache or proxy serves
      // them other bytes (tampered, or an older build), which the check past caches would hide.
      else if (!(await fileMatches(result.files, p, (await get(p, {}, "GET", DOCUMENT_BODY_CAP)).body))) {
        stale.push(p);
      }
    }
    for (const listed of Object.keys(result.files).filter((p) => !p.endsWith(".d.ts") && !bodies.has(p))) {
      bodies.set(listed, (await again(listed)).body);
      if (!(await fileMatches(result.files, listed, bodies.get(listed) as Buffer))) wrong.push(listed);
    }
  }
  check(
    `manifest: digest of every file read (${bodies.size})`,
    wrong.length === 0 && stale.length === 0,
    wrong.length > 0
      ? `differs, fetched again past caches: ${wrong.slice(0, 5).join(", ")}`
      : stale.length > 0
      ? `right only past caches: consumers are served other bytes (a cache or proxy): ${stale.slice(0, 5).join(", ")}`
      : "",
  );
  // Bytes altered for one way of asking alone (a coding, an Accept header, a revalidation) must not pass.
  const miscoded: string[] = [];
  if (wrong.length === 0 && stale.length === 0) {
    for (const p of bodies.keys()) {
      for (const [how, headers] of ASKED) {
        const body = (await get(p, headers, "GET", DOCUMENT_BODY_CAP)).body;
        if (!(await fileMatches(result.files, p, body))) miscoded.push(`${p} (${how})`);
      }
    }
    check(
      "manifest: digest of every file read as consumers ask for it (each coding, Accept, a stale If-None-Match)",
      miscoded.length === 0,
      miscoded.length > 0 ? `other bytes when asked so (a cache or proxy): ${miscoded.slice(0, 5).join(", ")}` : "",
    );
  }
  const sha256 = result.files[documentPath(n)]?.sha256;
  if (wrong.length === 0 && stale.length === 0 && miscoded.length === 0 && sha256 !== undefined) {
    const { seq, iat, filesSha256 } = result;
    options.onAccepted?.({ iss: expect, version: n, seq, iat, sha256, filesSha256 });
  }
}

function documentChecks(document: Record<string, unknown>, expect: string, paths: Paths, check: CheckFn): void {
  const about = isObject(document["about"]) ? document["about"] : {};
  const expected = { canonical_url: paths.canonical, versioned_url: paths.versioned, schema_url: paths.schema };
  const wrongAbout = Object.entries(expected).filter(([key, path]) => about[key] !== expect + path);
  const aboutSays = wrongAbout.map(([key]) => `${key}: ${String(about[key]).slice(0, 80)}`).join("; ");
  check(`about names ${expect}`, wrongAbout.length === 0, aboutSays);
  const listed = arrayOf<unknown>(document["vaults"]);
  const rows = listed.filter(isObject);
  const edges = arrayOf(document["edges"]);
  const allObjects = Array.isArray(document["vaults"]) && rows.length === listed.length;
  check("vaults is an array of objects", allObjects, `${listed.length - rows.length} not objects`);
  const full = rows.filter((r) => !Object.hasOwn(r, "listing"));
  const elsewhere = full.filter((r) =>
    !String(r["url"]).startsWith(`${expect}/vaults/`) || !String(r["markdown_url"]).startsWith(`${expect}/vaults/`)
  );
  check(
    `every row's url and markdown_url start with ${expect}/vaults/`,
    elsewhere.length === 0,
    elsewhere.slice(0, 3).map((r) => String(r["url"]).slice(0, 80)).join(", "),
  );
  check(
    "vault_count and edge_count equal the arrays' lengths",
    document["vault_count"] === listed.length && document["edge_count"] === edges.length,
    `${String(document["vault_count"]).slice(0, 20)}/${listed.length}, ${
      String(document["edge_count"]).slice(0, 20)
    }/${edges.length}`,
  );
  const coverage = jsonEqual(coverageOf(rows as never), document["field_coverage"]);
  check("field_coverage recomputed from the rows matches", coverage);
  const badTier = full.filter((r) =>
    r["tier"] !== tierOf(String(r["status"])) || r["tier_label"] !== TIER_LABELS[String(r["tier"])]
  );
  const slugs = (bad: typeof rows) => bad.slice(0, 5).map((r) => String(r["vault_slug"]).slice(0, 60)).join(", ");
  check("tier derived from status in every full row", badTier.length === 0, slugs(badTier));
  const badShape = rows.filter((r) => !hasRowKeys(r) || (Object.hasOwn(r, "listing") && r["listing"] !== "minimal"));
  check("every row is exactly a full or a minimal row", badShape.length === 0, slugs(badShape));
}

/** Every version of the table as the policy wants it today: past its sunset 410, superseded `Deprecation`. */
async function lifecycleChecks(table: readonly ContractVersion[], today: string, get: Get): Promise<Check[]> {
  const plan = planAt(table, today);
  if ("problems" in plan) {
    return [{ name: "the version table serves something today", result: "fail", detail: plan.problems.join("; ") }];
  }
  const checks: Check[] = [];
  // HEAD: the signals are headers, and a document may be far larger than any other body.
  for (const { version, deprecation } of plan.ok.served) {
    const res = await get(version.path, {}, "HEAD");
    const said = res.headers.get("deprecation");
    const pass = res.status === 200 && said === (deprecation ?? null);
    const withDeprecation = deprecation === undefined ? "" : ` with Deprecation: ${deprecation}`;
    const rebuild = pass ? "" : " (rebuild to serve the table as it stands today)";
    checks.push({
      name: `v${version.number} (${version.path}) answers 200${withDeprecation}`,
      result: pass ? "pass" : "fail",
      detail: `${res.status}, Deprecation: ${said ?? "none"}${rebuild}`,
    });
  }
  for (const { version } of plan.ok.gone) {
    const res = await get(version.path);
    checks.push({
      name: `v${version.number} (${version.path}) is past its sunset (${version.sunset}) and answers 410`,
      result: res.status === 410 ? "pass" : "fail",
      detail: `${res.status}${res.status === 410 ? "" : " (rebuild: a build made before the sunset keeps serving it)"}`,
    });
  }
  return checks;
}

/** The checks as a markdown table, then a closing count. */
export function table(base: string, checks: readonly Check[]): string {
  // Everything a server sent reaches the terminal only through here: its control characters go first.
  const cell = (text: string) => printable(text).replace(/[\t\n]/g, " ").replaceAll("|", "\\|").slice(0, 160);
  const count = (result: Check["result"]) => checks.filter((c) => c.result === result).length;
  const row = (c: Check) => `| ${cell(c.name)} | ${c.result === "fail" ? "FAIL" : c.result} | ${cell(c.detail)} |`;
  const head = ["| check | result | detail |", "| --- | --- | --- |"];
  const rows = checks.map(row);
  const counts = `${count("pass")} passed, ${count("warn")} warned, ${count("fail")} failed`;
  return [`Verifying ${base}`, "", ...head, ...rows, "", counts].join("\n");
}
