/**
 * Checks a live deployment against the v1 contract: the engine of `npm run verify -- <base-url>`
 * (entry point in `bin/verify.ts`).
 */
import Ajv2020 from "ajv/dist/2020.js";
import { coverageOf, PATHS, tierOf } from "../registry.ts";

const FULL_KEYS = "vault_slug,display_name,class,class_label,status,status_label,tier,tier_label,tier_meaning,persona,note,url,markdown_url,last_synced,tagline";
const MINIMAL_KEYS = "vault_slug,display_name,class,class_label,status,status_label,persona,listing,listing_note";
const TIER_LABELS: Record<string, string> = { in_use: "in use", chartered: "chartered", planned: "planned" };

export interface Check {
  readonly name: string;
  readonly pass: boolean;
  readonly detail: string;
}

/** Runs every check against `base` (no trailing slash) and returns them in order. */
export async function verify(base: string, timeoutMs = 10_000): Promise<Check[]> {
  const checks: Check[] = [];
  const check = (name: string, pass: boolean, detail = ""): boolean => {
    checks.push({ name, pass, detail });
    return pass;
  };
  const get = async (path: string, headers: Record<string, string> = {}, method = "GET") =>
    fetch(`${base}${path}`, { method, headers, signal: AbortSignal.timeout(timeoutMs), redirect: "manual" });

  let canonical: Response;
  let versioned: Response;
  try {
    [canonical, versioned] = [await get(PATHS.canonical), await get(PATHS.versioned)];
  } catch (error: unknown) {
    check("both paths answer", false, error instanceof Error ? error.message : String(error));
    return checks;
  }
  const [a, b] = [Buffer.from(await canonical.arrayBuffer()), Buffer.from(await versioned.arrayBuffer())];
  check("both paths answer 200", canonical.status === 200 && versioned.status === 200, `${canonical.status}, ${versioned.status}`);
  check("identical bytes on both paths", a.equals(b), `${a.length} and ${b.length} bytes`);
  const etag = canonical.headers.get("etag");
  check("strong ETag, the same on both paths", etag !== null && !etag.startsWith("W/") && etag === versioned.headers.get("etag"), `${etag} and ${versioned.headers.get("etag")}`);
  const types = [canonical, versioned].map((r) => r.headers.get("content-type"));
  check("Content-Type is application/json", types.every((t) => t === "application/json"), types.join(", "));
  check("CORS allows any origin", [canonical, versioned].every((r) => r.headers.get("access-control-allow-origin") === "*"));

  let document: Record<string, unknown>;
  try {
    document = JSON.parse(a.toString("utf8")) as Record<string, unknown>;
    check("body is JSON with schema_version 1.0", document["schema_version"] === "1.0", String(document["schema_version"]));
  } catch {
    check("body is JSON", false, a.subarray(0, 60).toString("utf8"));
    return checks;
  }
  const rows = Array.isArray(document["vaults"]) ? (document["vaults"] as Record<string, unknown>[]) : [];
  const edges = Array.isArray(document["edges"]) ? document["edges"] : [];
  check("vault_count and edge_count equal the arrays' lengths", document["vault_count"] === rows.length && document["edge_count"] === edges.length,
    `${document["vault_count"]}/${rows.length}, ${document["edge_count"]}/${edges.length}`);
  check("field_coverage recomputed from the rows matches", JSON.stringify(coverageOf(rows)) === JSON.stringify(document["field_coverage"]));
  const full = rows.filter((r) => !Object.hasOwn(r, "listing"));
  const badTier = full.filter((r) => r["tier"] !== tierOf(String(r["status"])) || r["tier_label"] !== TIER_LABELS[String(r["tier"])]);
  check("tier derived from status in every full row", badTier.length === 0, badTier.map((r) => r["vault_slug"]).join(", "));
  const badShape = rows.filter((r) => ![FULL_KEYS, MINIMAL_KEYS].includes(Object.keys(r).join(",")) || (Object.hasOwn(r, "listing") && r["listing"] !== "minimal"));
  check("every row is exactly a full or a minimal row", badShape.length === 0, badShape.map((r) => String(r["vault_slug"])).join(", "));

  for (const path of [PATHS.canonical, PATHS.versioned]) {
    const res = await get(path, { "if-none-match": etag ?? "" });
    await res.arrayBuffer();
    check(`304 on its own ETag at ${path}`, res.status === 304, String(res.status));
  }
  const head = await get(PATHS.canonical, {}, "HEAD");
  const headBody = await head.arrayBuffer();
  check("HEAD answers the GET headers without a body", head.status === 200 && headBody.byteLength === 0 && head.headers.get("etag") === etag);

  const schemaResponse = await get(PATHS.schema);
  const schemaText = await schemaResponse.text();
  check("schema answers 200 as application/schema+json", schemaResponse.status === 200 && schemaResponse.headers.get("content-type") === "application/schema+json",
    `${schemaResponse.status} ${schemaResponse.headers.get("content-type")}`);
  check("Link: rel=describedby names the schema", (canonical.headers.get("link") ?? "").endsWith(`${PATHS.schema}>; rel="describedby"`), canonical.headers.get("link") ?? "none");
  try {
    const validate = new Ajv2020.default({ strict: false, validateFormats: false }).compile(JSON.parse(schemaText));
    const valid = validate(document);
    check("the document validates against the schema", valid, valid ? "" : JSON.stringify(validate.errors?.slice(0, 3)));
  } catch (error: unknown) {
    check("the schema compiles", false, error instanceof Error ? error.message : String(error));
  }
  return checks;
}

/** The checks as a markdown table. */
export function table(base: string, checks: readonly Check[]): string {
  const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ").slice(0, 160);
  const failed = checks.filter((c) => !c.pass).length;
  return [
    `Verifying ${base}`,
    "",
    "| check | result | detail |",
    "| --- | --- | --- |",
    ...checks.map((c) => `| ${cell(c.name)} | ${c.pass ? "pass" : "FAIL"} | ${cell(c.detail)} |`),
    "",
    `${checks.length - failed} passed, ${failed} failed`,
  ].join("\n");
}
