/** `npm run verify`: passes on the real server, fails on a deployment whose two paths disagree. */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { cleanEnv, run } from "./process.ts";
import { startServer } from "./servers.ts";

const verify = (base: string) => run("node", ["--import", "tsx", "node/bin/verify.ts", base], { env: cleanEnv(), timeoutMs: 60_000 });

test("the Node server passes every check; exit 0", async () => {
  const server = await startServer("node", ["--import", "tsx", "node/server.ts"], cleanEnv({ HOST: "127.0.0.1", PORT: "0" }));
  try {
    const result = await verify(server.origin);
    const out = result.stdout.toString();
    assert.is(result.code, 0, out);
    assert.match(out, /^\| check \| result \| detail \|$/m);
    assert.not.match(out, /\| FAIL \|/);
    assert.match(out, /^16 passed, 0 failed$/m);
  } finally {
    await server.stop();
  }
});

test("a deployment whose two paths disagree fails; exit 1", async () => {
  const golden = readFileSync("golden/registry.json");
  const other = Buffer.from(golden.toString().replace('"vault_count": 48', '"vault_count": 47'));
  const fake: Server = createServer((req, res) => {
    const body = req.url?.startsWith("/vaults.json") ? golden : other;
    res.writeHead(200, { "content-type": "application/json", etag: `"${createHash("sha256").update(body).digest("hex")}"`, "access-control-allow-origin": "*" });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
  try {
    const result = await verify(`http://127.0.0.1:${(fake.address() as AddressInfo).port}`);
    const out = result.stdout.toString();
    assert.is(result.code, 1, out);
    assert.match(out, /^\| identical bytes on both paths \| FAIL \|/m);
    assert.match(out, /^\| strong ETag, the same on both paths \| FAIL \|/m);
  } finally {
    fake.closeAllConnections();
    await new Promise((resolve) => fake.close(resolve));
  }
});

test("a bad argument is a usage error; exit 2", async () => {
  for (const args of [[], ["ftp://x"], ["a", "b"]]) {
    const result = await run("node", ["--import", "tsx", "node/bin/verify.ts", ...args], { env: cleanEnv() });
    assert.is(result.code, 2, args.join(" "));
    assert.match(result.stderr, /^usage: npm run verify -- <base-url>/);
  }
});

test.run();
