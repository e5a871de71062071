/**
 * Checks a live deployment against the v1 contract: the engine of `npm run verify -- <base-url>`
 * (entry point in `bin/verify.ts`).
 */
import Ajv2020 from "ajv/dist/2020.js";
import { CANONICAL_PATH, planAt, type ContractVersion } from "../http/lifecycle.ts";
import { VERSIONS } from "../http/versions.ts";
import { coverageOf, tierOf } from "../registry.ts";

const FULL_KEYS = "vault_slug,display_name,class,class_label,status,status_label,tier,tier_label,tier_meaning,persona,note,url,markdown_url,last_synced,tagline";
const MINIMAL_KEYS = "vault_slug,display_name,class,class_label,status,status_label,persona,listing,listing_note";
const TIER_LABELS: Record<string, string> = { in_use: "in use", chartered: "chartered", planned: "planned" };

export interface Check {
  readonly name: string;
  readonly result: "pass" | "warn" | "fail";
  readonly detail: string;
}

/**
 * Runs every check against `base` (no trailing slash) and returns them in order, judging the
 * versions by `table` (default: the shipped one) as of `now` (default: the clock). With `static`
 * (or when the host sends a weak ETag, which only a host computing its own makes), what a static
 * host does on its own is a warning, not a failure: a weak or per-file ETag and
 * `; charset=utf-8` on a JSON content type.
 */
export async function verify(base: string, options: { static?: boolean; timeoutMs?: number; now?: Date; table?: readonly ContractVersion[] } = {}): Promise<Check[]> {
  const table = options.table ?? VERSIONS;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const today = (options.now ?? new Date()).toISOString().replace(/\.\d+Z$/, "Z");
  const checks: Check[] = [];
  let lenient = options.static === true;
  const check = (name: string, pass: boolean, detail = "", hostMay = false): boolean => {
    checks.push({ name, result: pass ? "pass" : hostMay && lenient ? "warn" : "fail", detail });
    return pass;
  };
  const get = async (path: string, headers: Record<string, string> = {}, method = "GET") =>
    fetch(`${base}${path}`, { method, headers, signal: AbortSignal.timeout(timeoutMs), redirect: "manual" });

  // The version /vaults.json serves, by its Content-Location, else the one the table names today.
  let canonical: Response;
  let versioned: Response;
  let version: ContractVersion;
  try {
    canonical = await get(CANONICAL_PATH);
    const location = canonical.headers.get("content-location");
    const named = table.find((v) => v.path === location);
    const plan = planAt(table, today);
    version = named ?? ("ok" in plan ? plan.ok.canonical : (table[0] as ContractVersion));
    check(`/vaults.json says Content-Location: a versioned path of the table`, named !== undefined, location ?? "none");
    versioned = await get(version.path);
  } catch (error: unknown) {
    check("both paths answer", false, error instanceof Error ? error.message : String(error));
    return checks;
  }
  const paths = { canonical: CANONICAL_PATH, versioned: version.path, schema: version.schemaPath };
  const etag = canonical.headers.get("etag");
  if (!lenient && etag?.startsWith("W/")) {
    lenient = true;
    checks.push({ name: "static host detected (a weak ETag): host-made headers are warnings", result: "warn", detail: "pass --static to say so" });
  }
  const [a, b] = [Buffer.from(await canonical.arrayBuffer()), Buffer.from(await versioned.arrayBuffer())];
  check("both paths answer 200", canonical.status === 200 && versioned.status === 200, `${canonical.status}, ${versioned.status}`);
  check("identical bytes on both paths", a.equals(b), `${a.length} and ${b.length} bytes`);
  check("strong ETag, the same on both paths", etag !== null && !etag.startsWith("W/") && etag === versioned.headers.get("etag"), `${etag} and ${versioned.headers.get("etag")}`, true);
  const types = [canonical, versioned].map((r) => r.headers.get("content-type"));
  const exactType = types.every((t) => t === "application/json");
  const withCharset = types.every((t) => t?.replace(/;\s*charset=utf-8$/i, "") === "application/json");
  check("Content-Type is application/json", exactType, types.join(", "), withCharset);
  check("CORS allows any origin", [canonical, versioned].every((r) => r.headers.get("access-control-allow-origin") === "*"));

  let document: Record<string, unknown>;
  try {
    document = JSON.parse(a.toString("utf8")) as Record<string, unknown>;
    check("body is JSON with schema_version 1.0", document["schema_version"] === "1.0", String(document["schema_version"]));
  } catch {
    check("body is JSON", false, a.subarray(0, 60).toString("utf8"));
    return checks;
  }
  const about = (typeof document["about"] === "object" && document["about"] !== null ? document["about"] : {}) as Record<string, unknown>;
  const expected = { canonical_url: base + paths.canonical, versioned_url: base + paths.versioned, schema_url: base + paths.schema };
  const wrongAbout = Object.entries(expected).filter(([key, url]) => about[key] !== url);
  check(`about names ${base}`, wrongAbout.length === 0, wrongAbout.map(([key]) => `${key}: ${String(about[key])}`).join("; "));
  const rows = Array.isArray(document["vaults"]) ? (document["vaults"] as Record<string, unknown>[]) : [];
  const edges = Array.isArray(document["edges"]) ? document["edges"] : [];
  const full = rows.filter((r) => !Object.hasOwn(r, "listing"));
  const elsewhere = full.filter((r) => !String(r["url"]).startsWith(`${base}/vaults/`) || !String(r["markdown_url"]).startsWith(`${base}/vaults/`));
  check(`every row's url and markdown_url start with ${base}/vaults/`, elsewhere.length === 0, elsewhere.slice(0, 3).map((r) => String(r["url"])).join(", "));
  check("vault_count and edge_count equal the arrays' lengths", document["vault_count"] === rows.length && document["edge_count"] === edges.length,
    `${document["vault_count"]}/${rows.length}, ${document["edge_count"]}/${edges.length}`);
  check("field_coverage recomputed from the rows matches", JSON.stringify(coverageOf(rows)) === JSON.stringify(document["field_coverage"]));
  const badTier = full.filter((r) => r["tier"] !== tierOf(String(r["status"])) || r["tier_label"] !== TIER_LABELS[String(r["tier"])]);
  check("tier derived from status in every full row", badTier.length === 0, badTier.map((r) => r["vault_slug"]).join(", "));
  const badShape = rows.filter((r) => ![FULL_KEYS, MINIMAL_KEYS].includes(Object.keys(r).join(",")) || (Object.hasOwn(r, "listing") && r["listing"] !== "minimal"));
  check("every row is exactly a full or a minimal row", badShape.length === 0, badShape.map((r) => String(r["vault_slug"])).join(", "));

  for (const [path, own] of [[paths.canonical, etag], [paths.versioned, versioned.headers.get("etag")]] as const) {
    const res = await get(path, { "if-none-match": own ?? "" });
    await res.arrayBuffer();
    check(`304 on its own ETag at ${path}`, res.status === 304, String(res.status), true);
  }
  const head = await get(paths.canonical, {}, "HEAD");
  const headBody = await head.arrayBuffer();
  check("HEAD answers the GET headers without a body", head.status === 200 && headBody.byteLength === 0 && head.headers.get("etag") === etag);

  const schemaResponse = await get(paths.schema);
  const schemaText = await schemaResponse.text();
  const schemaType = schemaResponse.headers.get("content-type");
  check("schema answers 200 as application/schema+json", schemaResponse.status === 200 && schemaType === "application/schema+json",
    `${schemaResponse.status} ${schemaType}`, schemaResponse.status === 200 && schemaType?.replace(/;\s*charset=utf-8$/i, "") === "application/schema+json");
  const link = canonical.headers.get("link") ?? "";
  check(`Link: rel=describedby names ${base}${paths.schema}`, link.split(", ")[0] === `<${base}${paths.schema}>; rel="describedby"`, link || "none");
  checks.push(...(await lifecycleChecks(table, today, get)));
  try {
    const validate = new Ajv2020.default({ strict: false, validateFormats: false }).compile(JSON.parse(schemaText));
    const valid = validate(document);
    check("the document validates against the schema", valid, valid ? "" : JSON.stringify(validate.errors?.slice(0, 3)));
  } catch (error: unknown) {
    check("the schema compiles", false, error instanceof Error ? error.message : String(error));
  }
  return checks;
}

/**
 * Every version of the table as the policy wants it today: a version past its sunset answers 410
 * (a deployment is a snapshot, so one built before the sunset must be rebuilt), and a superseded
 * one says `Deprecation`.
 */
async function lifecycleChecks(table: readonly ContractVersion[], today: string, get: (path: string) => Promise<Response>): Promise<Check[]> {
  const plan = planAt(table, today);
  if ("problems" in plan) return [{ name: "the version table serves something today", result: "fail", detail: plan.problems.join("; ") }];
  const checks: Check[] = [];
  for (const { version, deprecation } of plan.ok.served) {
    const res = await get(version.path);
    await res.arrayBuffer();
    const said = res.headers.get("deprecation");
    const pass = res.status === 200 && said === (deprecation ?? null);
    checks.push({ name: `v${version.number} (${version.path}) answers 200${deprecation === undefined ? "" : ` with Deprecation: ${deprecation}`}`, result: pass ? "pass" : "fail", detail: `${res.status}, Deprecation: ${said ?? "none"}${pass ? "" : " (rebuild to serve the table as it stands today)"}` });
  }
  for (const { version } of plan.ok.gone) {
    const res = await get(version.path);
    await res.arrayBuffer();
    checks.push({ name: `v${version.number} (${version.path}) is past its sunset (${version.sunset}) and answers 410`, result: res.status === 410 ? "pass" : "fail", detail: `${res.status}${res.status === 410 ? "" : " (rebuild: a build made before the sunset keeps serving it)"}` });
  }
  return checks;
}

/** The checks as a markdown table, then a closing count. */
export function table(base: string, checks: readonly Check[]): string {
  const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ").slice(0, 160);
  const count = (result: Check["result"]) => checks.filter((c) => c.result === result).length;
  return [
    `Verifying ${base}`,
    "",
    "| check | result | detail |",
    "| --- | --- | --- |",
    ...checks.map((c) => `| ${cell(c.name)} | ${c.result === "fail" ? "FAIL" : c.result} | ${cell(c.detail)} |`),
    "",
    `${count("pass")} passed, ${count("warn")} warned, ${count("fail")} failed`,
  ].join("\n");
}
