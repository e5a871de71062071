/** `npm run verify`: passes on the real server, fails on a deployment that names another base, knows static hosts. */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runVerify } from "../node/verify/command.ts";
import { prepareBuild } from "../assembly/prepare.ts";
import type { Resource } from "../http/responses.ts";
import { answerListener } from "../node/serve/answer-server.ts";
import { verify as checks } from "../node/verify/verify.ts";
import { validateSource } from "../registry.ts";
import { cleanEnv, runCommand } from "./process.ts";
import { startServer } from "./servers.ts";
import { TEST_TABLE } from "./v2.ts";
import { buildFirst } from "./first-build.ts";

const verify = (args: string[]) => runCommand(runVerify, args, { env: cleanEnv() });
const work = mkdtempSync(join(tmpdir(), "registry-verify-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

test("the Node server, built for the base URL it is reached at, passes every check; exit 0", async () => {
  const probe = createServer();
  const origin = await listen(probe);
  await close(probe);
  const port = new URL(origin).port;
  const server = await startServer(
    "node",
    ["--import", "tsx", "node/bin/serve.ts"],
    cleanEnv({ HOST: "127.0.0.1", PORT: port, BASE_URL: origin }),
  );
  try {
    const result = await verify([server.origin]);
    const out = result.stdout.toString();
    assert.is(result.code, 0, out);
    assert.match(out, /^\| check \| result \| detail \|$/m);
    // The one warning allowed: a build from before the change feeds (none linked, none served).
    const warned = out.split("\n").filter((line) => /\| (FAIL|warn) \|/.test(line));
    assert.equal(warned, [], "the change feeds are served: nothing warns");
    assert.match(out, /^\d+ passed, 0 warned, 0 failed$/m);
    assert.match(
      out,
      /^\| strong ETag, the same on both paths \| pass \| "[0-9a-f]{32}" \((gzip|br|identity)\) and "[0-9a-f]{32}" \((gzip|br|identity)\) \|$/m,
    );
  } finally {
    await server.stop();
  }
});

test("a deployment built for another base URL fails: about, every row's url, and Link; exit 1", async () => {
  const server = await startServer(
    "node",
    ["--import", "tsx", "node/bin/serve.ts"],
    cleanEnv({ HOST: "127.0.0.1", PORT: "0", BASE_URL: "https://staging.example.org" }),
  );
  try {
    const result = await verify([server.origin]);
    const out = result.stdout.toString();
    assert.is(result.code, 1, out);
    assert.match(
      out,
      /^\| about names http:\/\/127\.0\.0\.1:\d+ \| FAIL \| canonical_url: https:\/\/staging\.example\.org\/vaults\.json/m,
    );
    assert.match(out, /^\| every row's url and markdown_url start with .* \| FAIL \|/m);
    assert.match(out, /^\| Link: rel=describedby names .* \| FAIL \|/m);
  } finally {
    await server.stop();
  }
});

/** verify's output against a fake deployment whose every path answers 200 with `bodyOf(url)` as JSON (a strong ETag of its bytes, CORS), asserting exit 1. */
async function failingOutput(bodyOf: (url: string) => Buffer): Promise<string> {
  const fake: Server = createServer((req, res) => {
    const body = bodyOf(req.url ?? "/");
    res.writeHead(200, {
      "content-type": "application/json",
      etag: `"${createHash("sha256").update(body).digest("hex")}"`,
      "access-control-allow-origin": "*",
    });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  const origin = await listen(fake);
  try {
    const result = await verify([origin]);
    const out = result.stdout.toString();
    assert.is(result.code, 1, out);
    return out;
  } finally {
    await close(fake);
  }
}

test("a deployment whose two paths disagree fails; exit 1", async () => {
  const golden = readFileSync("golden/registry.json");
  const other = Buffer.from(golden.toString().replace('"vault_count": 48', '"vault_count": 47'));
  const out = await failingOutput((url) => (url.startsWith("/vaults.json") ? golden : other));
  assert.match(out, /^\| identical bytes on both paths \| FAIL \|/m);
  assert.match(out, /^\| strong ETag, the same on both paths \| FAIL \|/m);
});

test("a deployment whose row has its keys out of order fails the row-shape check, naming the vault; exit 1", async () => {
  const document = JSON.parse(readFileSync("golden/registry.json", "utf8")) as { vaults: Record<string, unknown>[] };
  const { vault_slug, display_name, ...rest } = document.vaults[0] as Record<string, unknown>;
  document.vaults[0] = { display_name, vault_slug, ...rest };
  const body = Buffer.from(JSON.stringify(document, null, 2));
  const out = await failingOutput(() => body);
  assert.match(
    out,
    new RegExp(`^\\| every row is exactly a full or a minimal row \\| FAIL \\| ${String(vault_slug)} \\|$`, "m"),
  );
});

/** A static host as common ones behave: files of a folder, `; charset=utf-8`, weak ETags from size and mtime, `_headers` applied. */
function staticHost(dir: string): Server {
  return createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] as string;
    const file = join(dir, path);
    if (!existsSync(file) || statSync(file).isDirectory()) return void res.writeHead(404).end();
    const stat = statSync(file);
    const etag = `W/"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
    const headers: Record<string, string> = {
      "content-type": `${
        extname(file) === ".json" && path.includes("schema") ? "application/schema+json" : "application/json"
      }; charset=utf-8`,
      etag,
    };
    const rules = readFileSync(join(dir, "_headers"), "utf8").split("\n\n").map((block) => block.split("\n"));
    for (const [target, ...lines] of rules) {
      if (target === path) {
        for (const line of lines.filter((l) => l.trim() !== "")) {
          headers[line.trim().split(": ")[0] as string] = line.trim().split(": ").slice(1).join(": ");
        }
      }
    }
    headers["content-type"] = `${headers["content-type"]?.split(";")[0]}; charset=utf-8`;
    if (req.headers["if-none-match"] === etag) return void res.writeHead(304, headers).end();
    res.writeHead(200, headers).end(req.method === "HEAD" ? undefined : readFileSync(file));
  });
}

test("dist/static on a static host: charset and weak ETags are warnings, with --static or detected; exit 0", async () => {
  const probe = createServer();
  const origin = await listen(probe);
  await close(probe);
  const out = join(work, "dist");
  const built = await buildFirst(["--source", "fixtures/registry.json", "--base-url", origin, "--out", out], {
    env: cleanEnv(),
  });
  assert.is(built.code, 0, built.stderr);
  const host = staticHost(join(out, "static"));
  await new Promise<void>((resolve) => host.listen(Number(new URL(origin).port), "127.0.0.1", resolve));
  try {
    for (const args of [[origin, "--static"], [origin]]) {
      const result = await verify(args);
      const text = result.stdout.toString();
      assert.is(result.code, 0, text);
      assert.match(text, /^\| Content-Type is application\/json \| warn \|/m);
      assert.match(text, /^\| strong ETag, the same on both paths \| warn \|/m);
      assert.not.match(text, /\| FAIL \|/);
      assert.match(text, /^\d+ passed, [1-9]\d* warned, 0 failed$/m);
    }
  } finally {
    await close(host);
  }
});

test("--help, a bad flag and a bad argument: help and exit 0, one line and exit 2", async () => {
  const help = await verify(["--help"]);
  assert.is(help.code, 0);
  for (
    const text of [
      "usage: npm run verify -- <base-url> [--expect-base BASE] [--static] [--previous-document FILE] [--keys FILE|URL] [--state FILE]\n",
      "--static",
      "--expect-base",
      "--previous-document FILE",
      "--keys FILE|URL",
      "--state FILE",
      "Limits: each request 10 s",
      "a feed 8 MiB",
      "Exit codes",
    ]
  ) assert.ok(help.stdout.toString().includes(text), text);
  for (const args of [[], ["ftp://x"], ["a", "b"], ["https://x.example", "--colour"]]) {
    const result = await verify(args);
    assert.is(result.code, 2, args.join(" "));
    assert.is(result.stderr.split("\n").filter(Boolean).length, 1, result.stderr);
    assert.not.match(result.stderr, /\n\s+at /);
  }
});

test("verify judges every version by the table as of today: a deprecated version must say so, a sunset one must be gone", async () => {
  const server = createServer();
  const origin = await listen(server);
  try {
    const source = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
    assert.ok(source.ok);
    const build = await prepareBuild(
      source.source,
      { baseUrl: origin, builtAt: "2027-03-01T00:00:00Z" },
      {},
      TEST_TABLE,
    );
    server.on("request", answerListener(build));
    const failed = (list: { name: string; result: string }[]) =>
      list.filter((c) => c.result === "fail").map((c) => c.name);
    assert.equal(failed(await checks(origin, { table: TEST_TABLE, now: new Date("2027-03-02T00:00:00Z") })), []);
    const late = await checks(origin, { table: TEST_TABLE, now: new Date("2027-06-02T00:00:00Z") });
    assert.equal(failed(late), ["v1 (/api/registry.v1.json) is past its sunset (2027-06-01) and answers 410"]);
    assert.match(
      late.find((c) => c.result === "fail")?.detail ?? "",
      /^200 \(rebuild: a build made before the sunset keeps serving it\)$/,
    );
  } finally {
    await close(server);
  }
});

// --- before a deploy, and against hostile servers --------------------------------------------------

const DEPLOYED = "https://registry.example.org";

/** Answers of a build for DEPLOYED, through `hook` first: it may take the request (true) or pass it on. */
async function hostServer(
  hook: (req: IncomingMessage, res: ServerResponse, n: number) => boolean = () => false,
  edit?: (document: string) => string,
): Promise<{ origin: string; server: Server }> {
  const source = validateSource(JSON.parse(readFileSync("fixtures/registry.json", "utf8")));
  assert.ok(source.ok);
  const build = await prepareBuild(source.source, { baseUrl: DEPLOYED, builtAt: "2026-11-21T12:00:00Z" });
  const answer = answerListener(build);
  let n = 0;
  const server = createServer((req, res) => {
    n += 1;
    if (hook(req, res, n)) return;
    if (edit === undefined || (req.url !== "/vaults.json" && req.url !== "/api/registry.v1.json")) {
      return answer(req, res);
    }
    const body = edit(Buffer.from((build.routes.get("/api/registry.v1.json") as Resource).identity.body).toString());
    res.writeHead(200, {
      "content-type": "application/json",
      etag: '"edited"',
      "content-location": "/api/registry.v1.json",
      "access-control-allow-origin": "*",
    }).end(req.method === "HEAD" ? undefined : body);
  });
  return { origin: await listen(server), server };
}

/** A 200 whose body does not stop: bounded at 160 MiB, past verify's 128 MiB cap. */
function endless(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "application/json" });
  const chunk = Buffer.alloc(65_536, 32);
  let sent = 0;
  const pump = () => {
    while (!res.destroyed && sent < 2560 && res.write(chunk)) sent++;
    if (sent >= 2560) res.end();
  };
  res.on("drain", pump);
  pump();
}

test("--expect-base: dist/node/server.mjs built for the real base URL passes before it is deployed; without it, the URLs fail", async () => {
  const out = join(work, "dist-deployed");
  const built = await buildFirst(
    ["--source", "fixtures/registry.json", "--base-url", DEPLOYED, "--out", out],
    { env: cleanEnv() },
  );
  assert.is(built.code, 0, built.stderr);
  const server = await startServer(
    "node",
    [join(out, "node", "server.mjs")],
    cleanEnv({ HOST: "127.0.0.1", PORT: "0" }),
  );
  const origin = server.origin;
  try {
    const ahead = await verify([origin, "--expect-base", DEPLOYED]);
    const text = ahead.stdout.toString();
    assert.is(ahead.code, 0, text);
    assert.match(
      text,
      new RegExp(`^Verifying ${origin.replaceAll(".", "\\.")} \\(built for https://registry\\.example\\.org\\)$`, "m"),
    );
    assert.match(text, /^\| about names https:\/\/registry\.example\.org \| pass \|/m);
    assert.match(text, /^\| the served schema is v1's own, for https:\/\/registry\.example\.org \| pass \|/m);
    assert.match(text, /^\d+ passed, 0 warned, 0 failed$/m);
    const plain = await verify([origin]);
    assert.is(plain.code, 1);
    assert.match(plain.stdout.toString(), /^\| about names http:\/\/127\.0\.0\.1:\d+ \| FAIL \|/m);
    const bad = await verify([origin, "--expect-base", "ftp://x"]);
    assert.is(bad.code, 2);
    assert.match(
      bad.stderr,
      /^--expect-base: .*\(usage: npm run verify -- <base-url> \[--expect-base BASE\] \[--static\] \[--previous-document FILE\] \[--keys FILE\|URL\] \[--state FILE\]; --help for more\)\n$/,
    );
  } finally {
    await server.stop();
  }
});

test("a refused connection says which host and port; a 404 hints at a stage or prefix; exit 1, one row, no stack", async () => {
  const probe = createServer();
  const free = await listen(probe);
  await close(probe);
  const refused = await verify([free]);
  assert.is(refused.code, 1);
  const port = new URL(free).port;
  assert.match(
    refused.stdout.toString(),
    new RegExp(
      `^\\| every request gets a complete answer \\| FAIL \\| GET ${
        free.replaceAll(".", "\\.")
      }/vaults\\.json: connection refused \\(127\\.0\\.0\\.1 port ${port}\\) \\|$`,
      "m",
    ),
  );
  assert.match(refused.stdout.toString(), /^0 passed, 0 warned, 1 failed$/m);
  const { origin, server } = await hostServer();
  try {
    const staged = await verify([`${origin}/prod`, "--expect-base", `${DEPLOYED}/prod`]);
    assert.is(staged.code, 1);
    assert.match(
      staged.stdout.toString(),
      /^\| \/vaults\.json answers 200 \| FAIL \| 404 at http:\/\/127\.0\.0\.1:\d+\/prod\/vaults\.json: no document there\. If the platform keeps a stage or a path prefix/m,
    );
    for (const result of [refused, staged]) assert.not.match(result.stdout.toString() + result.stderr, /\n\s+at /);
  } finally {
    await close(server);
  }
});

test("hostile servers: every failure is a FAIL row naming the request, and the run ends within its bounds", async () => {
  const drip = (res: ServerResponse) => {
    res.writeHead(200, { "content-type": "application/json" });
    const timer = setInterval(() => res.write(" "), 100);
    res.on("close", () => clearInterval(timer));
  };
  const catastrophic = JSON.stringify({
    type: "object",
    properties: { caveat: { type: "string", pattern: "^(a|a)*$" } },
  });
  const cases: [
    string,
    (req: IncomingMessage, res: ServerResponse, n: number) => boolean,
    RegExp,
    ((d: string) => string)?,
  ][] = [
    [
      "endless body",
      (req, res) => (req.url === "/vaults.json" ? (endless(res), true) : false),
      /^GET .*\/vaults\.json: the body is over 128 MiB; verify reads at most 128 MiB$/,
    ],
    [
      "declared huge body",
      (
        req,
        res,
      ) => (req.url === "/vaults.json"
        ? (res.writeHead(200, { "content-length": String(1 << 30) }).flushHeaders(), true)
        : false),
      /^GET .*\/vaults\.json: the body is 1 GiB; verify reads at most 128 MiB$/,
    ],
    [
      "drip",
      (req, res) => (req.url === "/vaults.json" ? (drip(res), true) : false),
      /^GET .*\/vaults\.json: no complete answer within 1 s$/,
    ],
    [
      "reset from the third request",
      (req, _res, n) => (n >= 3 ? (req.socket.destroy(), true) : false),
      /^GET .*: the server closed the connection before answering in full \(127\.0\.0\.1 port \d+\)$/,
    ],
    [
      "huge header on a later request",
      (_req, res, n) => (n === 3 ? (res.setHeader("x-big", "a".repeat(200_000)), res.end("{}"), true) : false),
      /^GET .*: the answer's headers are larger than a client accepts \(16 KiB\)$/,
    ],
    [
      "redirect",
      (_req, res) => (res.writeHead(302, { location: "https://elsewhere.example/vaults.json" }).end(), true),
      /^302, a redirect to elsewhere\.example\/vaults\.json: verify the address it names$/,
    ],
    [
      "catastrophic-regex schema",
      (
        req,
        res,
      ) => (req.url === "/api/registry.v1.schema.json"
        ? (res.writeHead(200, { "content-type": "application/schema+json" }).end(catastrophic), true)
        : false),
      /^differs at: \$schema, \$id, title, description, required$/,
      (d) => d.replace(/"caveat": "[^"]*"/, `"caveat": "${"a".repeat(40)}!"`),
    ],
    [
      "empty schema",
      (
        req,
        res,
      ) => (req.url === "/api/registry.v1.schema.json"
        ? (res.writeHead(200, { "content-type": "application/schema+json" }).end("{}"), true)
        : false),
      /^differs at: \$schema, \$id, title, description, type$/,
    ],
  ];
  for (const [name, hook, detail, edit] of cases) {
    const { origin, server } = await hostServer(hook, edit);
    try {
      // Only the drip is meant to time out; reading 128 MiB can take seconds on a loaded machine.
      const result = await checks(origin, {
        expectBase: DEPLOYED,
        timeoutMs: name === "drip" ? 1_000 : 15_000,
        deadlineMs: 30_000,
      });
      const failed = result.filter((c) => c.result === "fail");
      assert.ok(failed.some((c) => detail.test(c.detail)), `${name}: ${JSON.stringify(failed)}`);
      if (name.endsWith("schema")) {
        assert.ok(
          result.some((c) => c.name === "the document validates against v1's schema"),
          `${name}: validated with verify's own schema`,
        );
      }
    } finally {
      await close(server);
    }
  }
});

test("a document its schema refuses: the schema row FAILs naming the place and the rule, never the value", async () => {
  const planted = "tier-planted-by-a-host";
  const { origin, server } = await hostServer(
    undefined,
    (document) => document.replace('"schema_version": "1.0"', `"schema_version": "${planted}"`),
  );
  try {
    const result = await checks(origin, { expectBase: DEPLOYED });
    const row = result.find((c) => c.name === "the document validates against v1's schema");
    assert.is(row?.result, "fail", JSON.stringify(row));
    assert.is(row?.detail, "/schema_version must be equal to constant");
    assert.not.ok(JSON.stringify(row).includes(planted), "the row does not quote the value");
  } finally {
    await close(server);
  }
});

test("a document that does not validate (a null row): its feed is still checked, its items are not compared, no error text", async () => {
  const { origin, server } = await hostServer(
    undefined,
    (document) => document.replace('"vaults": [', '"vaults": [null, '),
  );
  try {
    const result = await checks(origin, { expectBase: DEPLOYED });
    const named = (name: string) => result.find((c) => c.name === name);
    const schemaRow = named("the document validates against v1's schema");
    assert.is(schemaRow?.result, "fail");
    // The oneOf's two row shapes fail alike: said once.
    assert.is(schemaRow?.detail, "/vaults/0 must be object; /vaults/0 must match exactly one schema in oneOf");
    assert.equal(named("the items compared with the document"), {
      name: "the items compared with the document",
      result: "warn",
      detail: "not compared: the document does not validate against its schema",
    });
    assert.ok(result.some((c) => c.name.includes("is a JSON Feed 1.1") && c.result === "pass"), JSON.stringify(result));
    assert.not.ok(JSON.stringify(result).includes("Cannot read"), JSON.stringify(result));
  } finally {
    await close(server);
  }
});

test("the whole run has a deadline: a server that drips every answer cannot hold verify past it", async () => {
  const { origin, server } = await hostServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    const timer = setInterval(() => res.write(" "), 50);
    res.on("close", () => clearInterval(timer));
    return true;
  });
  try {
    const result = await checks(origin, { timeoutMs: 60_000, deadlineMs: 1_500 });
    assert.equal(result.map((c) => [c.result, c.detail]), [[
      "fail",
      `GET ${origin}/vaults.json: the whole run passed its limit of 1.5 s`,
    ]]);
  } finally {
    await close(server);
  }
});

test("an endless body through the command: exit 1, the FAIL row, no stack trace", async () => {
  const { origin, server } = await hostServer((
    req,
    res,
  ) => (req.url === "/vaults.json" ? (endless(res), true) : false));
  try {
    const result = await verify([origin, "--expect-base", DEPLOYED]);
    assert.is(result.code, 1);
    assert.match(
      result.stdout.toString(),
      /\| FAIL \| GET http:\/\/127\.0\.0\.1:\d+\/vaults\.json: the body is over 128 MiB; verify reads at most 128 MiB \|/,
    );
    assert.not.match(result.stdout.toString() + result.stderr, /\n\s+at /);
  } finally {
    await close(server);
  }
});

test.run();
