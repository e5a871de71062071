/** Content negotiation: q-values, `*`, identity, and precompressed variants with their own ETags. */
import { readFileSync } from "node:fs";
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from "node:zlib";
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createApp, responseInit } from "../http/app.ts";
import { prepareBuild } from "../assembly/prepare.ts";
import { edgeKeeps, negotiator } from "../http/encoding.ts";
import { zlibCompress } from "../node/common/compress.ts";
import { validateSource } from "../registry.ts";
import { fcParams } from "./arbitraries.ts";
import { GOLDEN_OPTIONS } from "./cases.ts";

const both = negotiator(["br", "gzip"]);
const gzipOnly = negotiator(["gzip"]);
const none = negotiator([]);

test("negotiation: q-values, *, q=0, identity and aliases", () => {
  const cases: [string | null, string, string][] = [
    [null, "identity", "identity"],
    ["", "identity", "identity"],
    ["gzip, deflate, br", "br", "gzip"],
    ["gzip", "gzip", "gzip"],
    ["br", "br", "identity"],
    ["br;q=0.5, gzip;q=0.8", "gzip", "gzip"],
    ["br;q=1, gzip;q=1", "br", "gzip"],
    ["*", "br", "gzip"],
    ["*;q=0", "identity", "identity"],
    ["*;q=0, gzip", "gzip", "gzip"],
    ["gzip;q=0", "identity", "identity"],
    ["identity;q=0", "identity", "identity"],
    ["identity;q=0.5, gzip;q=0.4", "identity", "identity"],
    ["gzip;q=0.5", "gzip", "gzip"],
    ["x-gzip", "gzip", "gzip"],
    ["GZip, BR", "br", "gzip"],
    ["br;q=1.5, gzip;q=0.1", "gzip", "gzip"],
    ["br;q=abc", "identity", "identity"],
    ["deflate, compress", "identity", "identity"],
    [" br ; q=0.001 ", "br", "identity"],
    [",,;;=,", "identity", "identity"],
    ["gzip; q=0", "identity", "identity"],
    ["gzip;Q=0", "identity", "identity"],
    ["gzip;level=9", "gzip", "gzip"],
    ["gzip;q=0.9, x-gzip;q=0.1, br;q=0.5", "gzip", "gzip"],
    ["x-gzip;q=0, *", "br", "identity"],
    ["gzip;q=0.5, br;q=1", "br", "gzip"],
    ["br;q=0.5, gzip;q=20", "br", "identity"],
    ["gzip;q=1.00", "gzip", "gzip"],
    ["gzip;q=0.", "identity", "identity"],
    ["*;q=0.5, identity;q=0.6", "identity", "identity"],
  ];
  for (const [header, withBoth, withGzip] of cases) {
    assert.is(both(header), withBoth, `br+gzip on offer, ${JSON.stringify(header)}`);
    assert.is(gzipOnly(header), withGzip, `gzip on offer, ${JSON.stringify(header)}`);
    assert.is(none(header), "identity");
  }
});

test("negotiation never answers a coding the client refused or the build lacks, for any header", () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.array(
          fc.tuple(
            fc.constantFrom("br", "gzip", "identity", "*", "x-gzip", "deflate", "BR"),
            fc.option(fc.constantFrom("0", "0.5", "1", "1.000", "2", "x", "")),
          ),
          { maxLength: 5 },
        ).map((parts) => parts.map(([c, q]) => (q === null ? c : `${c};q=${q}`)).join(", ")),
      ),
      (header) => {
        const chosen = gzipOnly(header);
        assert.ok(["gzip", "identity"].includes(chosen));
        if (chosen === "gzip") assert.match(header.toLowerCase(), /gzip|\*/);
        assert.is(gzipOnly(header), chosen, "memoized answer is the same");
      },
    ),
    fcParams,
  );
});

const source = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
if (!source.ok) throw new Error("fixture invalid");
const app = createApp(await prepareBuild(source.source, GOLDEN_OPTIONS, { compress: zlibCompress }));
const golden = readFileSync("golden/registry.json");
const request = (headers: Record<string, string>, method = "GET") => app.request("/vaults.json", { method, headers });
const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

test("gzip and br: precompressed bodies that decode to the golden bytes, each with its own strong ETag", async () => {
  const identity = await request({});
  const gz = await request({ "accept-encoding": "gzip" });
  const br = await request({ "accept-encoding": "br, gzip" });
  assert.is(identity.headers.get("content-encoding"), null);
  assert.is(gz.headers.get("content-encoding"), "gzip");
  assert.is(br.headers.get("content-encoding"), "br");
  const [gzBody, brBody] = [await bytes(gz), await bytes(br)];
  assert.ok(gunzipSync(gzBody).equals(golden));
  assert.ok(brotliDecompressSync(brBody).equals(golden));
  assert.is(gz.headers.get("content-length"), String(gzBody.length));
  assert.ok(
    gzBody.length < golden.length * 0.2 && brBody.length < gzBody.length,
    `${golden.length} -> gzip ${gzBody.length}, br ${brBody.length}`,
  );
  const etags = [identity, gz, br].map((r) => r.headers.get("etag"));
  assert.is(new Set(etags).size, 3, "a distinct ETag per coding");
  for (const res of [identity, gz, br]) {
    assert.is(res.headers.get("vary"), "Accept-Encoding");
    assert.match(res.headers.get("etag") ?? "", /^"[0-9a-f]{32}"$/);
  }
});

test("conditional requests compare with the selected variant's ETag; 304 and HEAD keep Vary and the coding's ETag", async () => {
  const gzEtag = (await request({ "accept-encoding": "gzip" })).headers.get("etag") as string;
  const idEtag = (await request({})).headers.get("etag") as string;
  const hit = await request({ "accept-encoding": "gzip", "if-none-match": gzEtag });
  assert.is(hit.status, 304);
  assert.is(hit.headers.get("etag"), gzEtag);
  assert.is(hit.headers.get("vary"), "Accept-Encoding");
  assert.is((await request({ "accept-encoding": "gzip", "if-none-match": idEtag })).status, 200);
  assert.is((await request({ "if-none-match": gzEtag })).status, 200);
  const head = await request({ "accept-encoding": "gzip" }, "HEAD");
  assert.is(head.headers.get("content-encoding"), "gzip");
  assert.is((await bytes(head)).length, 0);
});

test("edgeKeeps: the coding Cloudflare's front layer keeps for a client's own Accept-Encoding (miniflare's model)", () => {
  const cases: [string, string][] = [
    ["", "identity"],
    ["gzip", "gzip"],
    ["br", "br"],
    ["gzip, br", "gzip"],
    ["br, gzip", "br"],
    ["gzip, deflate, br, zstd", "gzip"],
    ["gzip;q=0.5, br", "br"],
    ["br;q=0, gzip;q=0", "identity"],
    ["identity, gzip", "identity"],
    ["deflate, x-gzip", "gzip"],
    ["*", "identity"],
    ["GZIP ; q=1.0", "gzip"],
  ];
  for (const [header, kept] of cases) assert.is(edgeKeeps(header), kept, JSON.stringify(header));
});

test("on Cloudflare, the answer is in the coding the edge keeps for the client's own Accept-Encoding, not the one the edge sends", async () => {
  // A Worker sees `Accept-Encoding: br, gzip` whatever the client sent; request.cf holds the client's.
  const onCloudflare = (client: unknown, ifNoneMatch = '"x"') => {
    const raw = new Request("http://h/vaults.json", {
      headers: { "accept-encoding": "br, gzip", "if-none-match": ifNoneMatch },
    });
    Object.defineProperty(raw, "cf", { value: { clientAcceptEncoding: client } });
    return app.fetch(raw);
  };
  const coding = async (res: Response | Promise<Response>) => (await res).headers.get("content-encoding") ?? "identity";
  assert.is(await coding(onCloudflare("gzip")), "gzip");
  assert.is(await coding(onCloudflare("identity")), "identity");
  assert.is(await coding(onCloudflare("")), "identity");
  assert.is(await coding(onCloudflare("br;q=0.5, gzip")), "gzip");
  assert.is(await coding(onCloudflare(undefined)), "br", "no client value: the header as sent");
  assert.is(await coding(onCloudflare(7)), "br", "not a string: the header as sent");
  const gzEtag = (await request({ "accept-encoding": "gzip" })).headers.get("etag") as string;
  assert.is(
    (await onCloudflare("gzip", gzEtag)).status,
    304,
    "other headers are read as sent: If-None-Match holds the gzip variant's ETag",
  );
});

test("responseInit: a precompressed answer says encodeBody manual (Workers would compress it again), any other does not", async () => {
  const gz = await request({ "accept-encoding": "gzip" });
  const answer = { status: 200, headers: Object.fromEntries(gz.headers), body: null };
  assert.equal(responseInit(answer), { status: 200, headers: answer.headers, encodeBody: "manual" });
  const plain = { status: 200, headers: { "content-type": "application/json" }, body: null };
  assert.equal(responseInit(plain), { status: 200, headers: plain.headers });
});

test("a body over 8 MiB (the static export's alone) is gzip 6 and brotli 5, the very bytes zlib makes in one call", async () => {
  // Rows of JSON-like text, each a little different: 9 MiB, so compressible but not trivially.
  const rows = Array.from(
    { length: 200_000 },
    (_, i) => `  {"vault_slug": "vault-${i.toString(36)}", "n": ${i * 7919}},\n`,
  );
  const body = new TextEncoder().encode(`[\n${rows.join("")}]\n`);
  assert.ok(body.byteLength > 8 << 20, `${body.byteLength} bytes`);
  const [gz, br] = await Promise.all([zlibCompress(body, "gzip"), zlibCompress(body, "br")]);
  assert.ok(Buffer.from(gz).equals(gzipSync(body, { level: 6 })), "gzip 6, as one call makes it");
  const brotli5 = brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
    },
  });
  assert.ok(Buffer.from(br).equals(brotli5), "brotli 5, as one call makes it");
  assert.ok(gunzipSync(gz).equals(body) && brotliDecompressSync(br).equals(body), "both decode to the body");
});

test("law: edgeKeeps never keeps a coding the client refuses or does not name", () => {
  const coding = fc.constantFrom("gzip", "br", "identity", "deflate", "zstd", "*", "x-gzip", "");
  const q = fc.option(fc.constantFrom("0", "0.5", "1", "0.001", "1.000", "2", "x"), { nil: undefined });
  fc.assert(
    fc.property(fc.array(fc.tuple(coding, q), { maxLength: 6 }), (entries) => {
      const header = entries.map(([c, w]) => (w === undefined ? c : `${c};q=${w}`)).join(", ");
      const kept = edgeKeeps(header);
      if (kept === "identity") return;
      const named = entries.filter(([c]) => c === kept || (kept === "gzip" && c === "x-gzip"));
      assert.ok(
        named.some(([, w]) => w === undefined || (/^(0\.\d+|1(\.0+)?)$/.test(w) && Number(w) > 0)),
        `${header} -> ${kept}`,
      );
    }),
    fcParams,
  );
});

test.run();
