/**
 * Privacy laws, in process (so the mutation run sees them): generated sources plant SECRET in every
 * internal key and value, in every suppressed vault's private detail and in edges touching
 * suppressed vaults. No answer of any route, method, coding or condition carries it (errors
 * included), nor the Lambda entry; no message about a source quotes it; planting it moves no
 * published byte. The same promise across processes and artifacts is in privacy.test.ts.
 */
import fc from "fast-check";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createApp } from "../http/app.ts";
import { lambdaHandlerFor } from "../http/lambda.ts";
import { zlibCompress } from "../node/common/compress.ts";
import { prepareBuild } from "../assembly/prepare.ts";
import { validateSource } from "../registry.ts";
import { fcParams, SECRET, validSource } from "./arbitraries.ts";
import { GOLDEN_OPTIONS } from "./cases.ts";
import { runCli } from "./process.ts";
import { plantCanaries } from "./canary.ts";

const PATHS = [
  "/vaults.json",
  "/api/registry.v1.json",
  "/api/registry.v1.schema.json",
  "/nope",
  "/api/registry.v2.json",
];
const METHODS = ["GET", "HEAD", "OPTIONS", "POST", "DELETE"];
const CODINGS = [undefined, "gzip", "br", "gzip, br;q=0.5"];

function decode(body: Buffer, coding: string | null): string {
  if (body.length === 0) return ""; // HEAD and 304 answers name a coding but carry no body
  if (coding === "gzip") return gunzipSync(body).toString("utf8");
  if (coding === "br") return brotliDecompressSync(body).toString("utf8");
  return body.toString("utf8");
}

test("no answer of any route, method, coding or condition carries a private string", async () => {
  await fc.assert(
    fc.asyncProperty(validSource, async (raw) => {
      const source = validateSource(raw);
      if (!source.ok) throw new Error(source.problems.join("\n"));
      const build = await prepareBuild(source.source, GOLDEN_OPTIONS, { compress: zlibCompress });
      const app = createApp(build);
      const etag = (await app.request("/vaults.json")).headers.get("etag") as string;
      for (const path of PATHS) {
        for (const method of METHODS) {
          for (const coding of CODINGS) {
            for (const condition of [{}, { "if-none-match": etag }]) {
              const headers: Record<string, string> = {
                ...condition,
                ...(coding === undefined ? {} : { "accept-encoding": coding }),
              };
              const res = await app.request(path, { method, headers });
              const text = decode(Buffer.from(await res.arrayBuffer()), res.headers.get("content-encoding"));
              assert.not.ok(text.includes(SECRET), `${method} ${path} ${JSON.stringify(headers)}: body`);
              assert.not.ok(JSON.stringify([...res.headers]).includes(SECRET), `${method} ${path}: headers`);
            }
          }
        }
      }
      const lambda = lambdaHandlerFor(build, () => undefined);
      for (const path of PATHS) {
        const result = await lambda({ httpMethod: "GET", path, headers: {}, requestContext: {} } as never);
        assert.not.ok(JSON.stringify(result).includes(SECRET), `Lambda GET ${path}`);
      }
    }),
    { ...fcParams, numRuns: Math.max(10, Math.round(fcParams.numRuns / 5)) },
  );
});

test("no message about a source, valid or invalid, quotes a private string or an internal key's name", async () => {
  const work = mkdtempSync(join(tmpdir(), "registry-messages-"));
  let n = 0;
  const cli = async (text: string) => {
    const file = join(work, `source-${n++}.json`);
    writeFileSync(file, text);
    return runCli([file, "--base-url", GOLDEN_OPTIONS.baseUrl, "--built-at", GOLDEN_OPTIONS.builtAt], {});
  };
  try {
    await fc.assert(
      fc.asyncProperty(validSource, async (raw) => {
        const valid = await cli(JSON.stringify(raw));
        assert.is(valid.code, 0, valid.stderr);
        assert.not.ok(valid.stderr.includes(SECRET), `warnings: ${valid.stderr}`);
        // Break every private place: a withheld vault's detail, an unused label, declared internal
        // keys (one repeated), a vault with an undeclared key, and an edge whose type is private.
        const vaults = (raw["vaults"] as Record<string, unknown>[]).map((v, i) =>
          v["suppressed"] === true
            ? { ...v, last_synced: `${SECRET}-not-a-date`, note: 7 }
            : i === 0
            ? Object.fromEntries([...Object.entries(v), [`is_suppressed_${SECRET}`, true], [`hidden_${SECRET}`, true]])
            : i === 1
            // An undeclared key may mean to withhold: its vault's detail is not quoted either.
            ? Object.fromEntries([...Object.entries(v).filter(([k]) => k !== "suppressed"), ["meta", {
              suppressed: true,
            }], ["last_synced", `${SECRET}-not-a-date`]])
            : v
        );
        const edges = [...(raw["edges"] as unknown[]), {
          source: `${SECRET}-nowhere`,
          target: `${SECRET}-nowhere`,
          type: `${SECRET}-type`,
        }, 5];
        const labels = { class: { [`${SECRET}-unused`]: "" }, status: { [`${SECRET}-unused`]: 3 } };
        const internal_keys = [
          ...((raw["internal_keys"] as string[] | undefined) ?? []),
          `is_suppressed_${SECRET}`,
          `hidden_${SECRET}`,
          `${SECRET}_twice`,
        ];
        const text = JSON.stringify({ ...raw, internal_keys, vaults, edges, labels }).replace(
          '{"vault_slug"',
          `{"${SECRET}_twice":1,"${SECRET}_twice":{"${SECRET}":1,"${SECRET}":2},"vault_slug"`,
        );
        const invalid = await cli(text);
        assert.is(invalid.code, 1);
        assert.not.ok(invalid.stderr.includes(SECRET), `problems: ${invalid.stderr}`);
      }),
      { ...fcParams, numRuns: Math.max(10, Math.round(fcParams.numRuns / 5)) },
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("a source's private places change no published byte: the planted source builds the same document", async () => {
  await fc.assert(
    fc.asyncProperty(validSource, async (raw) => {
      const bytes = async (source: Record<string, unknown>) => {
        const valid = validateSource(source);
        if (!valid.ok) throw new Error(valid.problems.join("\n"));
        const build = await prepareBuild(valid.source, GOLDEN_OPTIONS);
        return Buffer.from(await (await createApp(build).request("/vaults.json")).arrayBuffer());
      };
      assert.ok((await bytes(plantCanaries(raw))).equals(await bytes(raw)));
    }),
    fcParams,
  );
});

test.run();
