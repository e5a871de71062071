/**
 * The deploy recipes, run as the README writes them, with each platform's own tool, on a copy of
 * this repository with an operator's source at `registry.source.json`: a canary source whose every
 * private value and internal key name holds SECRET. Each package the tools make holds the answers
 * and nothing else: no source, fixture or repository file, no path of the build machine, and not
 * one canary. The deploy line of each block is replaced by the tool's offline form, and the live
 * deployment its build reads by the block's own earlier build, if any.
 *
 * - Netlify: `netlify build --offline` (netlify-cli), then `netlify serve --offline` in its own
 *   network namespace (it listens on every interface): only the version table's paths answer.
 * - Cloudflare: `wrangler deploy --dry-run --outdir`; `wrangler dev` on the recipe (negotiation per
 *   client on `request.cf.clientAcceptEncoding`), and `wrangler pages dev` on the static export.
 * - AWS: `serverless package` (osls), and the plain `zip -j`; each package's handler run by Node 22, and
 *   the zip under the real runtime interface client (aws-lambda-ric) on Node 22 and 24.
 */
import fc from "fast-check";
import { generateKeyPairSync } from "node:crypto";
import { spawn, spawnSync } from "node:child_process";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { node22 } from "../deploy/node22.ts";
import { changesPaths, tablePaths } from "../contract/version-policy.ts";
import { strongEtag } from "../http/responses.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { feedTypesPath, typesPath } from "../node/builder/types.ts";
import { SECRET, validSource } from "./arbitraries.ts";
import { generateSource } from "../bench/generate.ts";
import { MAX_DEPLOY_DOCUMENT_BYTES } from "../contract/limits.ts";
import { buildFirst } from "./first-build.ts";
import { event, EVENTS, retarget, usesMultiValueHeaders } from "./aws-events.ts";
import { copyRepository, filesUnder } from "./files.ts";
import { cleanEnv, run } from "./process.ts";
import { fetchRaw, freePort, type RawResponse, type Running, startServer } from "./servers.ts";

/** The name of the file a build leaves in its output folder to know it as its own (docs/deploying.md). */
const MARKER = ".registry-build";

const ROOT = resolve(".");
const NODE22 = node22() as string;
const work = mkdtempSync(join(tmpdir(), "registry-recipes-"));
const clone = join(work, "clone");
const home = join(work, "home");
mkdirSync(home);
// The PATH a new user has: the blocks reach every tool through deploy/tool, as the README says.
const env = cleanEnv({
  HOME: home,
  // npm test puts node_modules/.bin on PATH; a user's shell does not.
  PATH: (process.env["PATH"] ?? "").split(":").filter((dir) => !dir.includes("node_modules")).join(":"),
  WRANGLER_SEND_METRICS: "false",
  NETLIFY_TELEMETRY_DISABLED: "1",
  SLS_TELEMETRY_DISABLED: "1",
  SLS_NOTIFICATIONS_MODE: "off",
  SLS_DEPRECATION_DISABLE: "*",
});
/** Strings no package may hold: the canary, and every folder of the build machine in play. */
const FORBIDDEN = [SECRET, work, ROOT, home];

test.before(() => {
  // A clone as an operator has it: the repository's files, its node_modules, their source at the root.
  copyRepository(ROOT, clone);
  // What npm ci made: the project's node_modules and, by its postinstall, deploy/tools/'s.
  symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"));
  symlinkSync(join(ROOT, "deploy", "tools", "node_modules"), join(clone, "deploy", "tools", "node_modules"));
  spawnSync("git", ["init", "-q"], { cwd: clone });
  const [source] = fc.sample(
    validSource.filter((s) =>
      JSON.stringify(s).split(SECRET).length > 20 &&
      (s["vaults"] as { suppressed?: boolean }[]).filter((v) => v.suppressed === true).length >= 2
    ),
    { seed: 20261122, numRuns: 1 },
  );
  writeFileSync(join(clone, "registry.source.json"), JSON.stringify(source, null, 2));
});
test.after(() => rmSync(work, { recursive: true, force: true }));

/** The README block under `<!-- name -->`, as its lines. */
function block(name: string): string[] {
  const readme = readFileSync("docs/deploying.md", "utf8");
  const text = new RegExp(`<!-- ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(readme)?.[1];
  assert.ok(text !== undefined, `README has the ${name} block`);
  return text.split("\n").filter((line) => line.trim() !== "");
}

/** What every recipe's build reads: the live deployment, so that the change feeds carry the history on. */
const LIVE = '--previous "$BASE_URL"';

/**
 * A block's line with the live deployment, out of reach here, stood in for by the previous build in
 * the line's --out folder (a later deploy), or by nothing when it holds none (a first deploy).
 */
function withoutLive(line: string): string {
  if (!line.includes(LIVE)) return line;
  const out = / --out (\S+)/.exec(line)?.[1];
  assert.ok(out !== undefined, `${line}: names its --out folder`);
  // A first deploy finds nothing there (404) and starts the history, as --new-history does.
  return line.replace(
    ` ${LIVE}`,
    existsSync(join(clone, out, MARKER)) ? ` --previous ${out}` : " --new-history --unsigned",
  );
}

/** Runs a README block in the clone, its deploy line (the last) replaced by `offline` lines. */
async function runBlock(
  name: string,
  deployLine: RegExp | null,
  offline: string[] = [],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<void> {
  const lines = block(name).map(withoutLive);
  if (deployLine !== null) {
    assert.match(lines[lines.length - 1] as string, deployLine, `${name}: the deploy line is last`);
    lines.pop();
  }
  const script = ["set -e", ...lines, ...offline].join("\n");
  const done = await run("sh", ["-c", script], { env: { ...env, ...extraEnv }, cwd: clone, timeoutMs: 240_000 });
  assert.is(done.code, 0, `${name}:\n${script}\n${done.stderr}\n${done.stdout.toString()}`);
}

/** Fails if any file under `dir` holds a forbidden string. */
function assertClean(what: string, dir: string): void {
  for (const file of filesUnder(dir)) {
    const text = readFileSync(join(dir, file)).toString("latin1");
    for (const word of FORBIDDEN) {
      assert.not.ok(
        text.includes(word),
        `${what}: ${file} holds ${word === SECRET ? "a private string" : `the build machine's path ${word}`}`,
      );
    }
  }
}

/** Unzips `zip` into a fresh folder; returns the folder and the archive's entries. */
function unzip(zip: string): { dir: string; entries: string[] } {
  const dir = mkdtempSync(join(work, "unzipped-"));
  const listed = spawnSync("unzip", ["-Z1", zip], { encoding: "utf8" });
  assert.is(listed.status, 0, listed.stderr);
  assert.is(spawnSync("unzip", ["-q", zip, "-d", dir]).status, 0);
  return { dir, entries: listed.stdout.split("\n").filter((l) => l !== "").sort() };
}

/** The static export's files: the version table's documents, schemas, descriptions and types, and `_headers`. */
const staticFiles = (): string[] =>
  [
    ...tablePaths(VERSIONS).filter((p) => p !== "/vaults.json").map((p) => p.slice(1)),
    ...VERSIONS.flatMap((v) => [typesPath(v.schemaPath).slice(1), feedTypesPath(changesPaths(v).json).slice(1)]),
    "vaults.json",
    "_headers",
  ].sort();

/** Runs a packaged Lambda handler under Node 22 on a recorded REST API event for `path`. */
async function invokeLambda(
  file: string,
  handler: string,
  path: string,
): Promise<{ statusCode: number; body: string }> {
  const event = JSON.parse(readFileSync("fixtures/aws-events/apigw-rest-v1.json", "utf8"));
  event.path = path;
  event.httpMethod = "GET";
  const script = `const m = await import(${JSON.stringify(file)}); const r = await m[${JSON.stringify(handler)}](${
    JSON.stringify(event)
  }); process.stdout.write(JSON.stringify(r));`;
  const done = await run(NODE22, ["--input-type=module", "-e", script], { env, timeoutMs: 30_000 });
  assert.is(done.code, 0, done.stderr);
  return JSON.parse(done.stdout.toString());
}

test("the README shows each recipe file exactly as it is in deploy/", () => {
  const readme = readFileSync("docs/deploying.md", "utf8");
  for (const file of ["deploy/netlify/netlify.toml", "deploy/cloudflare/wrangler.toml", "deploy/aws/serverless.yml"]) {
    const shown = new RegExp(`<!-- file: ${file.replaceAll(".", "\\.")} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\`\`\``).exec(
      readme,
    )?.[1];
    assert.is(shown, readFileSync(file, "utf8"), file);
  }
});

test('every recipe block names the base URL once and builds reading the live deployment: --previous "$BASE_URL"', () => {
  const names = [...readFileSync("docs/deploying.md", "utf8").matchAll(/<!-- ([\w-]+-recipe) -->/g)].map((m) => m[1]);
  assert.equal(names, ["netlify-recipe", "cloudflare-recipe", "aws-recipe", "aws-zip-recipe"]);
  for (const name of names as string[]) {
    const lines = block(name);
    assert.is(lines[0], "BASE_URL=https://registry.example.org", `${name}: the base URL, once`);
    const builds = lines.filter((line) => line.startsWith("npm run build "));
    assert.is(builds.length, 1, name);
    assert.match(builds[0] as string, / --base-url "\$BASE_URL" /, name);
    assert.ok(builds[0]?.endsWith(` ${LIVE}`), `${name}: the build reads the live deployment`);
  }
});

test("Netlify: netlify build --offline packages the function alone, with the version table's routes; dist/static is the publish folder", async () => {
  await runBlock("netlify-recipe", /^\.\.\/tool netlify deploy --prod --no-build$/);
  const site = join(clone, "deploy", "netlify");
  const manifest = JSON.parse(readFileSync(join(site, ".netlify", "functions", "manifest.json"), "utf8")) as {
    functions: { name: string; path: string; routes: { literal: string }[] }[];
  };
  assert.equal(manifest.functions.map((f) => f.name), ["index"], "one function");
  const fn = manifest.functions[0] as (typeof manifest.functions)[number];
  assert.equal(fn.routes.map((r) => r.literal), tablePaths(VERSIONS), "routes read from the literal config");
  const { dir, entries } = unzip(fn.path);
  assert.equal(
    entries.filter((e) => !e.startsWith("___netlify-")),
    ["index.mjs"],
    "the artifact and Netlify's own entry files, nothing else",
  );
  // zip-it-and-ship-it rewrites the module's head (a CommonJS shim); the answers it embeds are the build's.
  const etag = await strongEtag(new Uint8Array(readFileSync(join(site, "dist", "static", "vaults.json"))));
  assert.ok(
    readFileSync(join(dir, "index.mjs"), "utf8").includes(etag.slice(1, -1)),
    "the function embeds the build's answers",
  );
  assertClean("Netlify function bundle", dir);
  assert.equal(filesUnder(join(site, "dist", "static")), staticFiles(), "the publish folder is the static export");
  assertClean("Netlify publish folder", join(site, "dist", "static"));
});

test("Netlify: under netlify serve --offline only the version table's paths answer; the repository, the source and the recipe are 404", async () => {
  const site = join(clone, "deploy", "netlify");
  const answered = tablePaths(VERSIONS);
  const hidden = [
    "/registry.source.json",
    "/README.md",
    "/netlify.toml",
    "/package.json",
    "/fixtures/registry.json",
    "/dist/fetch/index.mjs",
    "/fetch/index.mjs",
    "/index.mjs",
    "/.netlify/functions/index.zip",
    "/deploy/netlify/netlify.toml",
    "/api/registry.v2.json",
    "/",
  ];
  const probe = `ip link set lo up && exec ${join(clone, "deploy", "tool")} node --import tsx ${
    join(ROOT, "test", "runtimes", "netlify-serve-probe.ts")
  } ${site} 8888 ${[...answered, ...hidden].join(" ")}`;
  const done = await run("unshare", ["--net", "--pid", "--fork", "sh", "-c", probe], {
    env,
    cwd: ROOT,
    timeoutMs: 180_000,
  });
  const result = JSON.parse(done.stdout.toString().trim().split("\n").pop() ?? "{}") as {
    answers?: Record<string, { status: number; body: string }>;
    error?: string;
    output?: string;
  };
  assert.ok(result.answers !== undefined, `${result.error ?? done.stderr}\n${result.output ?? ""}`);
  for (const path of answered) {
    const answer = result.answers[path] as { status: number; body: string };
    assert.is(answer.status, 200, path);
    const file = path === "/vaults.json" ? "vaults.json" : path.slice(1);
    assert.ok(
      Buffer.from(answer.body, "base64").equals(readFileSync(join(site, "dist", "static", file))),
      `${path}: the build's bytes`,
    );
  }
  for (const path of hidden) assert.is(result.answers[path]?.status, 404, path);
  for (const [path, answer] of Object.entries(result.answers)) {
    for (const word of FORBIDDEN) {
      assert.not.ok(Buffer.from(answer.body, "base64").toString("latin1").includes(word), `${path} carries ${word}`);
    }
  }
});

test("Cloudflare: wrangler deploy --dry-run --outdir uploads the artifact byte for byte, and nothing else", async () => {
  const out = join(work, "wrangler-out");
  await runBlock("cloudflare-recipe", /^\.\.\/tool wrangler deploy$/, [
    `../tool wrangler deploy --dry-run --outdir ${out}`,
  ]);
  assert.equal(filesUnder(out), ["README.md", "index.mjs"], "the Worker, and wrangler's note about the folder");
  assert.ok(
    readFileSync(join(out, "index.mjs")).equals(
      readFileSync(join(clone, "deploy", "cloudflare", "dist", "fetch", "index.mjs")),
    ),
    "no rebundling, no source map",
  );
  assertClean("Worker upload", out);
});

/**
 * wrangler (`wrangler dev` or `wrangler pages dev`) on 127.0.0.1 in its own PID namespace, so that
 * stopping it by its PID stops the workerd it starts too. Metrics off, logs outside the watched folder.
 */
async function wranglerDev(args: string[], cwd: string): Promise<Running> {
  const [port, inspector] = [await freePort(), await freePort()];
  const command = [
    join(clone, "deploy", "tool"),
    "wrangler",
    ...args,
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspector),
  ];
  return startServer(
    "unshare",
    ["--pid", "--fork", "--kill-child", ...command],
    { ...env, WRANGLER_LOG_PATH: join(work, "wrangler-logs"), NO_COLOR: "1", FORCE_COLOR: "0" },
    120_000,
    { cwd, ready: /Ready on (http:\/\/127\.0\.0\.1:\d+)/ },
  );
}

test("Cloudflare: wrangler dev on the recipe: identity, gzip and br clients each get this build's own bytes and ETag, and 304 on it", async () => {
  const dir = join(clone, "deploy", "cloudflare");
  assert.ok(existsSync(join(dir, "dist", "fetch", "index.mjs")), "the recipe's build (the test above) is there");
  // This build's own variants, as its Node server answers them.
  const own = await startServer(NODE22, [join(dir, "dist", "node", "server.mjs")], {
    ...env,
    HOST: "127.0.0.1",
    PORT: "0",
  });
  const variants = new Map<string, RawResponse>();
  try {
    for (const coding of ["identity", "gzip", "br"]) {
      variants.set(coding, await fetchRaw(`${own.origin}/vaults.json`, { headers: { "accept-encoding": coding } }));
    }
  } finally {
    await own.stop();
  }
  const identity = variants.get("identity") as RawResponse;
  // What the edge keeps for each client (miniflare's model of it): a browser listing gzip first gets gzip.
  const clients: [string, Record<string, string>, string][] = [
    ["identity (no Accept-Encoding)", {}, "identity"],
    ["gzip", { "accept-encoding": "gzip" }, "gzip"],
    ["br", { "accept-encoding": "br" }, "br"],
    ["a browser", { "accept-encoding": "gzip, deflate, br, zstd" }, "gzip"],
    ["br preferred by q", { "accept-encoding": "gzip;q=0.5, br" }, "br"],
  ];
  const wrangler = await wranglerDev(["dev"], dir);
  try {
    for (const [name, headers, coding] of clients) {
      const expected = variants.get(coding) as RawResponse;
      const res = await fetchRaw(`${wrangler.origin}/vaults.json`, { headers });
      assert.is(res.status, 200, name);
      assert.is(res.headers["content-encoding"], coding === "identity" ? undefined : coding, `${name}: coding`);
      assert.ok(res.body.equals(expected.body), `${name}: this build's own ${coding} bytes, not re-encoded`);
      assert.is(res.headers["etag"], expected.headers["etag"], `${name}: the ETag of the ${coding} variant`);
      const again = await fetchRaw(`${wrangler.origin}/vaults.json`, {
        headers: { ...headers, "if-none-match": String(expected.headers["etag"]) },
      });
      assert.is(again.status, 304, `${name}: 304 on its own ETag`);
    }
    const stale = await fetchRaw(`${wrangler.origin}/vaults.json`, {
      headers: { "if-none-match": String(variants.get("br")?.headers["etag"]) },
    });
    assert.is(stale.status, 200, "an identity client holding the br ETag does not get 304");
    const head = await fetchRaw(`${wrangler.origin}/vaults.json`, { method: "HEAD" });
    assert.is(head.headers["content-length"], String(identity.body.length), "HEAD says the identity length");
    assert.is((await fetchRaw(`${wrangler.origin}/vaults.json`, { method: "POST" })).status, 405);
    assert.is((await fetchRaw(`${wrangler.origin}/api/registry.v2.json`)).status, 404);
  } finally {
    await wrangler.stop();
  }
  for (const word of FORBIDDEN) {
    assert.not.ok(
      wrangler.output().includes(word),
      `wrangler dev's output holds ${word === SECRET ? "a private string" : "a path of this machine"}`,
    );
  }
});

test("Cloudflare Pages: wrangler pages dev serves dist/static with its _headers; the bytes are the build's", async () => {
  // A folder with no wrangler.toml: the Worker's would make Pages look for a Worker.
  const site = join(work, "pages");
  cpSync(join(clone, "deploy", "cloudflare", "dist", "static"), join(site, "static"), { recursive: true });
  const pages = await wranglerDev(["pages", "dev", "static", "--compatibility-date", "2026-10-01"], site);
  try {
    for (const path of tablePaths(VERSIONS)) {
      const res = await fetchRaw(`${pages.origin}${path}`);
      assert.is(res.status, 200, path);
      assert.ok(res.body.equals(readFileSync(join(site, "static", path))), `${path}: the file's bytes`);
      assert.is(res.headers["access-control-allow-origin"], "*", `${path}: _headers applied`);
      assert.is(
        res.headers["cache-control"],
        "public, max-age=300, stale-while-revalidate=86400, stale-if-error=86400",
      );
    }
    const doc = await fetchRaw(`${pages.origin}/vaults.json`);
    assert.is(doc.headers["content-type"], "application/json");
    assert.is(doc.headers["content-location"], "/api/registry.v1.json");
    assert.match(String(doc.headers["link"]), /rel="describedby"/);
    assert.is((await fetchRaw(`${pages.origin}/registry.source.json`)).status, 404);
  } finally {
    await pages.stop();
  }
  for (const word of FORBIDDEN) {
    assert.not.ok(
      pages.output().includes(word),
      `pages dev's output holds ${word === SECRET ? "a private string" : "a path of this machine"}`,
    );
  }
});

test("AWS: serverless package holds the Lambda file alone; the packaged handler answers under Node 22", async () => {
  await runBlock("aws-recipe", /^\.\.\/tool serverless deploy --package \.serverless$/);
  const dir = join(clone, "deploy", "aws");
  const { dir: unzipped, entries } = unzip(join(dir, ".serverless", "registry.zip"));
  assert.equal(entries, ["dist/lambda/index.mjs"]);
  assertClean("Serverless package", unzipped);
  for (const template of readdirSync(join(dir, ".serverless")).filter((f) => f.startsWith("cloudformation-template"))) {
    const text = readFileSync(join(dir, ".serverless", template), "utf8");
    for (const word of FORBIDDEN) assert.not.ok(text.includes(word), `${template} holds ${word}`);
  }
  const answer = await invokeLambda(join(unzipped, "dist", "lambda", "index.mjs"), "handler", "/vaults.json");
  assert.is(answer.statusCode, 200);
  assert.is(answer.body, readFileSync(join(dir, "dist", "static", "vaults.json"), "utf8"));
  // API Gateway on the buffered handler; a Function URL, streamed, on streamHandler.
  const resources: Record<string, { Type: string; Properties: any }> = JSON.parse(
    readFileSync(join(dir, ".serverless", "cloudformation-template-update-stack.json"), "utf8"),
  ).Resources;
  const handlers = Object.fromEntries(
    Object.entries(resources).filter(([, r]) => r.Type === "AWS::Lambda::Function").map(([id, r]) => [
      id,
      r.Properties.Handler,
    ]),
  );
  assert.equal(Object.values(handlers).sort(), ["dist/lambda/index.handler", "dist/lambda/index.streamHandler"]);
  const urls = Object.values(resources).filter((r) => r.Type === "AWS::Lambda::Url");
  assert.is(urls.length, 1, "one Function URL");
  assert.is(urls[0]!.Properties.InvokeMode, "RESPONSE_STREAM");
  assert.is(urls[0]!.Properties.AuthType, "NONE");
  const target = urls[0]!.Properties.TargetFunctionArn["Fn::GetAtt"][0];
  assert.is(handlers[target], "dist/lambda/index.streamHandler", "the URL invokes streamHandler");
  for (const r of Object.values(resources).filter((r) => r.Type === "AWS::Lambda::Permission")) {
    const fn = r.Properties.FunctionName["Fn::GetAtt"]?.[0] ?? r.Properties.FunctionName;
    if (r.Properties.Principal === "apigateway.amazonaws.com") {
      assert.is(handlers[fn], "dist/lambda/index.handler", "API Gateway invokes the buffered handler");
    }
  }
});

test("AWS: the plain zip recipe puts index.mjs at the top, so handler index.handler loads", async () => {
  await runBlock("aws-zip-recipe", null);
  const zip = join(clone, "deploy", "aws", "registry.zip");
  assert.ok(statSync(zip).size > 0);
  const { dir, entries } = unzip(zip);
  assert.equal(entries, ["index.mjs"]);
  assertClean("Lambda zip", dir);
  const answer = await invokeLambda(join(dir, "index.mjs"), "handler", "/api/registry.v1.json");
  assert.is(answer.statusCode, 200);
});

/** One answer the runtime client posted: buffered (its JSON), or streamed (its prelude and body). */
interface RuntimeAnswer {
  readonly kind: string;
  /** Buffered: the posted JSON. Streamed: the HTTP prelude (status and headers), or null if none. */
  readonly body: any;
  readonly streamed?: {
    /** The POST's own headers: the response mode, Trailer, Content-Type, Transfer-Encoding. */
    readonly headers: Record<string, string | string[] | undefined>;
    /** The body after the prelude and its eight NUL bytes. */
    readonly bytes: Buffer;
    /** How many pieces the body arrived in. */
    readonly chunks: number;
    readonly trailers: Record<string, string | undefined>;
  };
}

/** What separates the HTTP prelude from the body in a streamed response: eight NUL bytes. */
const PRELUDE_END = Buffer.alloc(8);

/**
 * The real Lambda runtime interface client (aws-lambda-ric, from deploy/tools/) running the
 * packaged `handler` (`index.handler` unless told) under `node`, against a Runtime API of this
 * test's own on 127.0.0.1: each event is handed out on `/next` and its answer (or error)
 * collected, in order. A POST in the streaming response mode is read as Lambda reads it: the
 * prelude up to eight NUL bytes (when its Content-Type is the HTTP integration's), then the body,
 * then the error trailers.
 */
async function underRuntimeClient(
  node: string,
  taskRoot: string,
  events: unknown[],
  handler = "index.handler",
): Promise<{ answers: RuntimeAnswer[]; output: string }> {
  const answers: RuntimeAnswer[] = [];
  let next = 0;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const api = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method === "GET" && req.url === "/2018-06-01/runtime/invocation/next") {
        if (next >= events.length) return; // held open: the client waits here until it is stopped
        const id = `request-${next}`;
        const event = events[next++];
        res.writeHead(200, {
          "content-type": "application/json",
          "lambda-runtime-aws-request-id": id,
          "lambda-runtime-deadline-ms": String(Date.now() + 30_000),
          "lambda-runtime-invoked-function-arn": "arn:aws:lambda:us-east-1:123456789012:function:registry",
        }).end(JSON.stringify(event));
        return;
      }
      const kind = /\/(response|error)$/.exec(req.url ?? "")?.[1] ?? `unexpected ${req.method} ${req.url}`;
      const raw = Buffer.concat(chunks);
      if (req.headers["lambda-runtime-function-response-mode"] === "streaming") {
        const http = req.headers["content-type"] === "application/vnd.awslambda.http-integration-response";
        const end = http ? raw.indexOf(PRELUDE_END) : -1;
        answers.push({
          kind,
          body: end === -1 ? null : JSON.parse(raw.subarray(0, end).toString()),
          streamed: {
            headers: req.headers,
            bytes: end === -1 ? raw : raw.subarray(end + PRELUDE_END.length),
            chunks: chunks.length,
            trailers: req.trailers,
          },
        });
      } else {
        answers.push({ kind, body: raw.byteLength === 0 ? null : JSON.parse(raw.toString()) });
      }
      res.writeHead(202, { "content-type": "application/json" }).end("{}");
      if (answers.length === events.length) done();
    });
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  const runtimeApi = `127.0.0.1:${(api.address() as AddressInfo).port}`;
  const client = spawn(node, [
    join(clone, "deploy", "tools", "node_modules", "aws-lambda-ric", "index.mjs"),
    handler,
  ], {
    cwd: taskRoot,
    env: {
      PATH: env["PATH"],
      HOME: home,
      AWS_LAMBDA_RUNTIME_API: runtimeApi,
      LAMBDA_TASK_ROOT: taskRoot,
      _HANDLER: handler,
      AWS_LAMBDA_FUNCTION_NAME: "registry",
      AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: "128",
      AWS_LAMBDA_LOG_GROUP_NAME: "/aws/lambda/registry",
      AWS_LAMBDA_LOG_STREAM_NAME: "test",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  client.stdout.on("data", (c: Buffer) => (output += c.toString()));
  client.stderr.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((resolve) => client.on("exit", () => resolve()));
  const timer = setTimeout(done, 60_000);
  try {
    await Promise.race([finished, exited]);
  } finally {
    clearTimeout(timer);
    client.kill("SIGTERM");
    await exited;
    api.closeAllConnections();
    await new Promise((resolve) => api.close(resolve));
  }
  return { answers, output };
}

/**
 * aws-lambda-ric builds its native addon in install scripts that take minutes, so npm ci installs
 * it unbuilt (allowScripts: false); `npm run lambda-ric` builds it, and `.ci/run` runs that before
 * npm test. Outside CI the test is skipped until it is built; in CI (`CI` set) it is never skipped:
 * unbuilt, it fails, naming the step that builds it.
 */
const RIC_BUILT = existsSync(join(ROOT, "deploy", "tools", "node_modules", "aws-lambda-ric", "rapid-client.node"));
const RIC_TEST =
  "AWS: the packaged function under the real runtime interface client (aws-lambda-ric) on Node 22 and 24: every event kind";
const IN_CI = (process.env["CI"] ?? "") !== "" && process.env["CI"] !== "false";

/**
 * Registers a test that runs under the real client: with test.skip when it cannot run here, so
 * uvu's own summary counts it skipped, and a line saying why; in CI, unbuilt, it fails instead.
 */
function underClientTest(name: string, body: () => Promise<void>): void {
  if (!RIC_BUILT && !IN_CI) {
    console.log(
      `SKIPPED: ${name} (its native client is not built: npm run lambda-ric builds it; see docs/deploying.md)`,
    );
    test.skip(name, body);
    return;
  }
  test(name, async () => {
    assert.ok(RIC_BUILT, "aws-lambda-ric's native client is not built: .ci/run builds it with npm run lambda-ric");
    await body();
  });
}

test("npm run lambda-ric names the tools the client's build needs (no autotools), and does nothing once built", async () => {
  const help = await run("node", ["--import", "tsx", "deploy/lambda-ric.ts", "--help"], { env: cleanEnv() });
  assert.is(help.code, 0);
  const text = help.stdout.toString().replace(/\s+/g, " ");
  for (const tool of ["cmake", "make", "g++", "python3", "xz"]) assert.ok(text.includes(` ${tool}`), `names ${tool}`);
  assert.not.match(text, /autoconf|automake|libtool/, "names no autotools");
  if (!RIC_BUILT) return; // the build itself takes minutes: .ci/run runs it, and the next test needs it
  const again = await run("node", ["--import", "tsx", "deploy/lambda-ric.ts"], { env: cleanEnv() });
  assert.is(again.code, 0, again.stderr.toString());
  assert.is(
    again.stdout.toString(),
    "lambda-ric: already built (deploy/tools/node_modules/aws-lambda-ric/rapid-client.node)\n",
  );
});

underClientTest(RIC_TEST, async () => {
  const { dir } = unzip(join(clone, "deploy", "aws", "registry.zip"));
  const document = readFileSync(join(clone, "deploy", "aws", "dist", "static", "vaults.json"), "utf8");
  const etag = await strongEtag(new Uint8Array(Buffer.from(document)));
  const kinds = EVENTS;
  const events = [
    ...kinds.flatMap((
      k,
    ) => [
      retarget(event(k), "GET", "/vaults.json"),
      retarget(event(k), "HEAD", "/api/registry.v1.json"),
      retarget(event(k), "GET", "/vaults.json", { "if-none-match": etag }),
      retarget(event(k), "POST", "/vaults.json"),
      retarget(event(k), "GET", "/nope"),
    ]),
    { source: "aws.events", "detail-type": "Scheduled Event" },
  ];
  for (const node of [resolve("node_modules/node22/bin/node"), resolve("node_modules/node24/bin/node")]) {
    const { answers, output } = await underRuntimeClient(node, dir, events);
    assert.is(answers.length, events.length, `${node}: every event answered:\n${output}`);
    assert.ok(answers.every((a) => a.kind === "response"), `${node}: no invocation error:\n${output}`);
    const statuses = answers.map((a) => a.body.statusCode);
    assert.equal(statuses, [...kinds.flatMap(() => [200, 200, 304, 405, 404]), 400], node);
    for (const [i, kind] of kinds.entries()) {
      const ok = answers[i * 5]?.body;
      assert.is(ok.body, document, `${kind}: the document's bytes`);
      const multi = usesMultiValueHeaders(event(kind));
      assert.is(
        multi ? ok.multiValueHeaders.etag[0] : ok.headers.etag,
        etag,
        `${kind}: its ETag, headers shaped as the event's`,
      );
      assert.is(answers[i * 5 + 1]?.body.body, "", `${kind}: HEAD has no body`);
    }
    assert.match(
      output,
      /registry: 400 for a Lambda event that is not an HTTP request/,
      "the non-HTTP event logged in one line",
    );
    for (const word of FORBIDDEN) {
      assert.not.ok(
        output.includes(word),
        `the runtime's output holds ${word === SECRET ? "a private string" : "a path of this machine"}`,
      );
    }
  }
});

const STREAM_TEST =
  "AWS: a document past Lambda's 6 MB buffered limit is streamed by the artifact's streamHandler under the real runtime interface client on Node 22 and 24";
underClientTest(STREAM_TEST, async () => {
  const source = join(work, "large.source.json");
  writeFileSync(source, JSON.stringify(generateSource(10_500)));
  const out = join(work, "large");
  const built = await buildFirst(["--source", source, "--base-url", "https://registry.example.org", "--out", out], {
    env: cleanEnv(),
  });
  assert.is(built.code, 0, built.stderr);
  const document = readFileSync(join(out, "static", "vaults.json"));
  assert.ok(document.byteLength <= MAX_DEPLOY_DOCUMENT_BYTES, "within the build's cap");
  assert.ok(
    JSON.stringify(document.toString("utf8")).length > 6_291_456,
    "its buffered answer is past Lambda's 6 MB",
  );
  assert.ok(existsSync(join(out, "lambda", "index.mjs")), `the Lambda artifact is written:\n${built.stderr}`);
  const etag = await strongEtag(new Uint8Array(document));
  const url = event("lambda-function-url");
  const events = [
    retarget(url, "GET", "/vaults.json"),
    retarget(url, "HEAD", "/vaults.json"),
    retarget(url, "GET", "/vaults.json", { "if-none-match": etag }),
    retarget(url, "POST", "/vaults.json"),
    retarget(url, "GET", "/nope"),
    { source: "aws.events", "detail-type": "Scheduled Event" },
  ];
  for (const node of [resolve("node_modules/node22/bin/node"), resolve("node_modules/node24/bin/node")]) {
    const { answers, output } = await underRuntimeClient(node, join(out, "lambda"), events, "index.streamHandler");
    assert.is(answers.length, events.length, `${node}: every event answered:\n${output}`);
    assert.ok(answers.every((a) => a.kind === "response"), `${node}: no invocation error:\n${output}`);
    for (const { streamed } of answers) {
      assert.ok(streamed !== undefined, `${node}: posted in the streaming response mode`);
      assert.is(streamed.headers["content-type"], "application/vnd.awslambda.http-integration-response");
      assert.is(streamed.headers["transfer-encoding"], "chunked");
      assert.equal(streamed.trailers, {}, "no error trailer");
    }
    assert.equal(answers.map((a) => a.body.statusCode), [200, 200, 304, 405, 404, 400], node);
    const [get, head, notModified] = answers as [RuntimeAnswer, RuntimeAnswer, RuntimeAnswer];
    assert.ok(get.streamed!.bytes.equals(document), `${node}: the document's bytes, after the prelude`);
    assert.ok(get.streamed!.chunks > 1, "the body arrived in pieces");
    assert.is(get.body.headers.etag, etag);
    assert.is(get.body.headers["content-type"], "application/json");
    assert.is(head.body.headers.etag, etag);
    assert.is(head.streamed!.bytes.byteLength, 0, "HEAD: the prelude alone");
    assert.is(notModified.streamed!.bytes.byteLength, 0, "304: the prelude alone");
    assert.is(JSON.parse(answers[4]!.streamed!.bytes.toString()).status, 404, "a problem body");
    assert.match(output, /registry: 400 for a Lambda event that is not an HTTP request/);
  }
});

underClientTest(
  "the fake Runtime API reads a stream's error trailers, as Lambda does, under the real client",
  async () => {
    const dir = join(work, "failing-stream");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "index.mjs"),
      `export const handler = awslambda.streamifyResponse(async (event, stream) => {
  const http = awslambda.HttpResponseStream.from(stream, { statusCode: 200, headers: {} });
  http.write("part of a body");
  await new Promise((resolve) => setTimeout(resolve, 50));
  throw new Error("failed mid-stream");
});
`,
    );
    const { answers, output } = await underRuntimeClient(resolve("node_modules/node22/bin/node"), dir, [{}]);
    const streamed = answers[0]?.streamed;
    assert.ok(streamed !== undefined, output);
    assert.equal(answers[0]?.body, { statusCode: 200, headers: {} });
    assert.is(streamed.bytes.toString(), "part of a body");
    assert.match(String(streamed.headers["trailer"]), /Lambda-Runtime-Function-Error-Type/i);
    assert.is(streamed.trailers["lambda-runtime-function-error-type"], "Error");
    const error = JSON.parse(
      Buffer.from(streamed.trailers["lambda-runtime-function-error-body"]!, "base64").toString(),
    );
    assert.is(error.errorMessage, "failed mid-stream");
  },
);

test("the operator's source stays out of git: registry.source.json and the tools' folders are ignored", () => {
  const ignored = spawnSync("git", [
    "check-ignore",
    "registry.source.json",
    "deploy/netlify/.netlify",
    "deploy/aws/.serverless",
    "deploy/cloudflare/.wrangler",
    "deploy/aws/dist",
    "deploy/aws/registry.zip",
  ], { cwd: clone, encoding: "utf8" });
  assert.is(ignored.stdout.split("\n").filter((l) => l !== "").length, 6, ignored.stdout);
});

test("AWS's first deploy, as written: a new history, signed, for the custom domain; serverless packages it and the handler answers under Node 22", async () => {
  const { privateKey } = generateKeyPairSync("ed25519");
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  rmSync(join(clone, "deploy", "aws", "dist"), { recursive: true, force: true });
  await runBlock("aws-first-deploy", /^\.\.\/tool serverless deploy --package \.serverless$/, [], {
    REGISTRY_SIGNING_KEY: pem,
  });
  const dir = join(clone, "deploy", "aws");
  const feed = JSON.parse(readFileSync(join(dir, "dist", "static", "api", "registry.v1.changes.json"), "utf8"));
  assert.is(feed.items.length, 1, "a new history: one snapshot item");
  assert.is(feed.items[0]._registry.from, null);
  assert.ok(existsSync(join(dir, "dist", "static", "api", "registry.v1.manifest.json")), "signed");
  const { dir: unzipped, entries } = unzip(join(dir, ".serverless", "registry.zip"));
  assert.equal(entries, ["dist/lambda/index.mjs"]);
  const answer = await invokeLambda(join(unzipped, "dist", "lambda", "index.mjs"), "handler", "/vaults.json");
  assert.is(answer.statusCode, 200);
  assert.is(answer.body, readFileSync(join(dir, "dist", "static", "vaults.json"), "utf8"));
});

test.run();
