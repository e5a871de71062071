/**
 * The code artifacts' embedded answers (node/builder/bundle.ts): the Lambda and Node artifacts hold
 * their bodies as comments of one function, in a file that is ASCII throughout, and serve the same
 * bytes as the build they were made of, a `*\/` and every non-ASCII character included; a file whose
 * comments were dropped after the build is refused when it is imported. The fetch artifact, which
 * the platforms bundle again, keeps them as strings.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { prepareBuild } from "../assembly/prepare.ts";
import { lambdaHandlerFor, type LambdaResult } from "../http/lambda.ts";
import { restoreBuild } from "../http/restore.ts";
import { bundleSome, embedBodies } from "../node/builder/bundle.ts";
import { stampBuild } from "../node/builder/stamp.ts";
import { zlibCompress } from "../node/common/compress.ts";
import { validateSource } from "../registry.ts";
import { event, retarget } from "./aws-events.ts";
import { GOLDEN_OPTIONS } from "./cases.ts";
import { run } from "./process.ts";

const work = mkdtempSync(join(tmpdir(), "registry-bundle-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

// A note with what a comment cannot hold (`*/`, and `/*` after it) and non-ASCII of every width.
const NOTE = "ends */ here, /* opens */*/ twice; caf\u00e9 \u2603 \u{1f600} \u2028 line*";
const raw = JSON.parse(readFileSync("fixtures/registry.json", "utf8"));
raw.vaults[0].note = NOTE;
const source = validateSource(raw);
if (!source.ok) throw new Error(source.problems.join("\n"));
const build = await prepareBuild(source.source, GOLDEN_OPTIONS, { compress: zlibCompress });
const document = new TextDecoder().decode(build.routes.get("/vaults.json")!.identity.body);
const all = new Set(["fetch/index.mjs", "lambda/index.mjs", "node/server.mjs"] as const);
await bundleSome(build, work, "source.json", all);
const file = (name: string) => readFileSync(join(work, name), "latin1");

test("the Lambda and Node artifacts: ASCII throughout, every body in the comments of one function; the fetch artifact keeps strings", () => {
  assert.ok(document.includes(JSON.stringify(NOTE).slice(1, -1)), "the note is served as it is");
  for (const name of ["lambda/index.mjs", "node/server.mjs"]) {
    const text = file(name);
    assert.not.match(text, /[^\x00-\x7f]/, `${name} is ASCII`);
    const footer = text.indexOf("function registry$answers(){/*");
    assert.ok(footer > 0, `${name} ends with the function that holds the bodies`);
    // The document's first lines, as they are served, only there.
    const head = document.slice(0, 200);
    assert.ok(text.indexOf(head) > footer, name);
    assert.is(text.lastIndexOf(head), text.indexOf(head), `${name} holds the document once`);
  }
  assert.not.ok(file("fetch/index.mjs").includes("registry$answers"), "the fetch artifact holds no comments to keep");
});

test("the Node server compiles no Unicode property class at start: none is a literal, nor made at the top of the file", () => {
  const text = file("node/server.mjs");
  // V8 reads a literal's classes when it parses the file, and a top-level `new RegExp` runs at start: 2 ms each.
  assert.not.match(text, /\/[^/\n]*\\p\{[^/\n]*\/[dgimsvy]*u/, "a regular expression literal with \\p{...}");
  assert.not.match(text, /(?:var|let|const) [\w$]+=new RegExp\("[^"]*\\\\p\{/, "a top-level new RegExp with \\p{...}");
  assert.match(text, /\?\?=new RegExp\("[^"]*\\\\p\{/, "made on first use");
});

test("the Lambda artifact answers every route with the build's own bytes and headers", async () => {
  const artifact = (await import(pathToFileURL(join(work, "lambda", "index.mjs")).href)) as {
    handler: (e: unknown) => Promise<LambdaResult>;
  };
  // As the artifact serves it: identity only, so without Vary (see node/builder/stamp.ts).
  const own = lambdaHandlerFor(restoreBuild(stampBuild(build, [])), () => {});
  const paths = [...build.routes.keys(), "/nowhere"];
  for (const path of paths) {
    for (const method of ["GET", "HEAD"]) {
      const e = retarget(event("apigw-http-v2"), method, path);
      assert.equal(await artifact.handler(e), await own(e), `${method} ${path}`);
    }
  }
  const served = await artifact.handler(retarget(event("apigw-http-v2"), "GET", "/vaults.json"));
  assert.is(served.body, document);
});

test("Lambda sends a restored body's own text: the document is never encoded to bytes and back", async () => {
  const handler = lambdaHandlerFor(restoreBuild(JSON.parse(JSON.stringify(stampBuild(build, [])))), () => {});
  const encode = TextEncoder.prototype.encode;
  let encoded = 0;
  TextEncoder.prototype.encode = function (this: TextEncoder, input?: string) {
    if ((input?.length ?? 0) > 1000) encoded++;
    return encode.call(this, input);
  };
  try {
    const answer = await handler(retarget(event("apigw-http-v2"), "GET", "/vaults.json"));
    assert.is(answer.body, document);
    assert.is(encoded, 0, "no body encoded");
  } finally {
    TextEncoder.prototype.encode = encode;
  }
});

test("embedBodies: text and base64 bodies restored byte for byte, whatever they hold; each restored once", async () => {
  const stamp = stampBuild(build, ["br", "gzip"]);
  const odd = { ...stamp, bodies: { ...stamp.bodies, '"a"': { text: "" }, '"b"': { text: "*/*/\u00e9*//*" } } };
  const embedded = embedBodies(odd);
  const module = join(work, "embedded.mjs");
  writeFileSync(
    module,
    `export default ${JSON.stringify(embedded.stamp)};\nexport const joins = ${
      JSON.stringify(embedded.joins)
    };\nexport const length = ${embedded.footer.length};\nexport function source() { return registry$answers; }\n${embedded.footer}\n`,
  );
  const m = await import(pathToFileURL(module).href);
  const restored = restoreBuild({ ...m.default, embedded: { source: m.source(), length: m.length, joins: m.joins } });
  for (const [path, resource] of build.routes) {
    const again = restored.routes.get(path)!;
    assert.ok(Buffer.from(again.identity.body).equals(Buffer.from(resource.identity.body)), path);
    assert.is(again.identity.body, again.identity.body, "restored once, then the same bytes");
    for (const [coding, variant] of Object.entries(resource.encoded)) {
      const body = again.encoded[coding as "gzip"]!.body;
      assert.ok(Buffer.from(body).equals(Buffer.from(variant.body)), `${path} ${coding}`);
    }
  }
  const texts = restoreBuild({
    ...m.default,
    routes: {
      "/a": { lastModified: 0, identity: { etag: '"a"', ok: {}, notModified: {} }, encoded: {} },
      "/b": { lastModified: 0, identity: { etag: '"b"', ok: {}, notModified: {} }, encoded: {} },
    },
    embedded: { source: m.source(), length: m.length, joins: m.joins },
  });
  assert.is(new TextDecoder().decode(texts.routes.get("/a")!.identity.body), "");
  assert.is(new TextDecoder().decode(texts.routes.get("/b")!.identity.body), "*/*/\u00e9*//*");
});

test("a Lambda artifact whose comments were dropped after the build (a minifier's doing) is refused at import, saying so", async () => {
  const text = file("lambda/index.mjs");
  const at = text.indexOf("function registry$answers(){");
  const stripped = join(work, "stripped.mjs");
  writeFileSync(stripped, `${text.slice(0, at)}function registry$answers(){}\n`);
  try {
    await import(pathToFileURL(stripped).href);
    assert.unreachable("imported");
  } catch (error) {
    assert.match(String(error), /the answers embedded in this file are not as the build wrote them/);
  }
  // The same length, other comments: refused at the first answer that needs them, a 500.
  const changed = join(work, "changed.mjs");
  const footer = text.indexOf("function registry$answers(){");
  const split = text.indexOf("*//*", footer);
  assert.ok(split > footer, "the note's */ splits its body in two comments");
  writeFileSync(changed, `${text.slice(0, split)}  /*${text.slice(split + 4)}`);
  const m = await import(pathToFileURL(changed).href);
  const answer = await m.handler(retarget(event("apigw-http-v2"), "GET", "/vaults.json"));
  assert.is(answer.statusCode, 500);
});

test("a Node server artifact edited or stripped after the build: one line on stderr, exit 1, before it says it serves", async () => {
  const text = file("node/server.mjs");
  const footer = text.indexOf("function registry$answers(){");
  const split = text.indexOf("*//*", footer);
  assert.ok(split > footer, "the note's */ splits its body in two comments");
  const edits = {
    "the same length, other comments": `${text.slice(0, split)}  /*${text.slice(split + 4)}`,
    "its comments dropped": `${text.slice(0, footer)}function registry$answers(){}\n`,
  };
  for (const [what, edited] of Object.entries(edits)) {
    const path = join(work, "node", `edited-${what.length}.mjs`);
    writeFileSync(path, edited);
    const done = await run(process.execPath, [path], {
      env: { ...process.env, HOST: "127.0.0.1", PORT: "0" },
      timeoutMs: 20_000,
    });
    assert.is(done.code, 1, `${what}: ${done.stderr}`);
    assert.is(done.stdout.toString(), "", `${what}: nothing served`);
    assert.match(done.stderr, /^the answers embedded in this file are not as the build wrote them[^\n]*\n$/, what);
  }
});

test.run();
