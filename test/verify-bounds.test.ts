/** `verify` is bounded as it says on every Node line, and prints nothing a server sent that could drive a terminal. */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { printable } from "../node/common/printable.ts";
import { cleanEnv, run } from "./process.ts";

const NODES: [string, string][] = [
  ["Node 20", process.execPath],
  ["Node 22", resolve("node_modules/node22/bin/node")],
  ["Node 24", resolve("node_modules/node24/bin/node")],
  ["Node 26", resolve("node_modules/node26/bin/node")],
];

test("the per-request timeout fires on Node 20, 22, 24 and 26 with garbage collected while the request stalls, before headers and mid-body", async () => {
  for (const [name, node] of NODES) {
    for (const stall of ["headers", "body"]) {
      const result = await run(node, ["--expose-gc", "--import", "tsx", "test/verify-stall-probe.ts", stall], {
        env: cleanEnv(),
        timeoutMs: 30_000,
      });
      assert.is(result.code, 0, `${name}, ${stall}: ${result.stderr}`);
      const checks = JSON.parse(result.stdout.toString()) as { result: string; detail: string }[];
      // The run's deadline is 6 s: without a timer that survives the collection, that is what ends it.
      assert.equal(checks.map((c) => c.result), ["fail"], `${name}, ${stall}`);
      assert.match(
        checks[0]?.detail ?? "",
        /^GET http:\/\/127\.0\.0\.1:\d+\/vaults\.json: no complete answer within 0\.5 s$/,
        `${name}, ${stall}`,
      );
    }
  }
});

/** Answers every request with `raw` bytes (latin1), then closes: a server that writes what Node's own would refuse to. */
async function rawServer(raw: (path: string) => string): Promise<{ origin: string; server: Server }> {
  const server = createServer((socket) => {
    socket.once("data", (data) => socket.end(raw(data.toString("latin1").split(" ")[1] ?? "/"), "latin1"));
    socket.on("error", () => {});
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

test("control characters a server sends never reach the terminal: header values (C1 as obs-text) and body snippets (ESC, OSC, BEL)", async () => {
  const document = JSON.parse(readFileSync("golden/registry.json", "utf8")) as Record<string, unknown>;
  document["schema_version"] = "\x1b]0;owned\x07\x1b[2J\x1b[31m9.9\r\x1b[1A\x9b1m\x85";
  const body = Buffer.from(JSON.stringify(document)).toString("latin1");
  const answers: [string, (path: string) => string, RegExp][] = [
    [
      "a redirect",
      () =>
        "HTTP/1.1 302 Found\r\nLocation: https://x.example/\x9b2J\x85after\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
      // Host and path only, as the URL parser reads them: the C1 characters are percent-encoded.
      /^\| \/vaults\.json answers 200 \| FAIL \| 302, a redirect to x\.example\/%C2%9B2J%C2%85after: verify the address it names \|$/m,
    ],
    [
      "a document",
      () =>
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Location: /api/registry.v1.json\x9b1m\x85\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      /^\| body is JSON with schema_version 1\.0 \| FAIL \| 9\.9 \|$/m,
    ],
  ];
  for (const [name, raw, row] of answers) {
    const { origin, server } = await rawServer(raw);
    try {
      const result = await run("node", ["--import", "tsx", "node/bin/verify.ts", origin], {
        env: cleanEnv(),
        timeoutMs: 60_000,
      });
      const out = result.stdout.toString();
      assert.is(result.code, 1, `${name}: ${out}`);
      assert.match(out, row, name);
      assert.not.match(out, CONTROL, `${name}: a control character in the output`);
      if (name === "a document") {
        assert.match(
          out,
          /^\| \/vaults\.json says Content-Location: a versioned path of the table \| FAIL \| \/api\/registry\.v1\.json%C2%9B1m%C2%85 \|$/m,
        );
      }
    } finally {
      server.close();
    }
  }
});

test("printable (verify's cells): removes ESC sequences whole, C0, DEL and C1; keeps newline and tab", () => {
  const cases: [string, string][] = [
    ["\x1b[31mred\x1b[0m", "red"],
    ["\x1b[?25l\x1b[10;20Hx", "x"],
    ["\x1b]0;title\x07a\x1b]8;;https://e.example\x1b\\b", "ab"],
    ["\x1bPq#0\x1b\\c\x1b_apc\x9cd", "cd"],
    ["\x9b2Je\x9d0;t\x07f", "ef"],
    ["a\x00b\x08c\x7fd\x85e\rf", "abcdef"],
    ["line\nnext\tcell", "line\nnext\tcell"],
    ["\x1bcreset\x1b", "reset"],
    ["plain ünïcødé | text", "plain ünïcødé | text"],
  ];
  for (const [input, expected] of cases) assert.is(printable(input), expected, JSON.stringify(input));
});

test.run();
