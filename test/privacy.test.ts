/**
 * Privacy across processes and artifacts: a source with private detail everywhere builds a dist/
 * with no private string in any file, and no command or log line (build, registry, npm start, the
 * Node artifact, verify, diff) prints one. The in-process laws are in privacy-laws.test.ts.
 */
import fc from "fast-check";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { fcParams, SECRET, validSource } from "./arbitraries.ts";
import { GOLDEN_OPTIONS } from "./cases.ts";
import { cleanEnv, run, runCommand } from "./process.ts";
import { leakIn, plantCanaries } from "./canary.ts";
import { startServer } from "./servers.ts";
import { connect } from "node:net";
import { buildFirst } from "./first-build.ts";

test("dist/: no private string in any artifact (Node server, fetch, Lambda, static)", async () => {
  // One generated source with private detail everywhere, several suppressed vaults among them.
  const [raw] = fc.sample(
    validSource.filter((s) =>
      JSON.stringify(s).split(SECRET).length > 20 &&
      (s["vaults"] as { suppressed?: boolean }[]).filter((v) => v.suppressed === true).length >= 2
    ),
    { seed: 20261121, numRuns: 1 },
  );
  const work = mkdtempSync(join(tmpdir(), "registry-privacy-"));
  try {
    writeFileSync(join(work, "source.json"), JSON.stringify(raw));
    const out = join(work, "dist");
    const built = await buildFirst(["--out", out, "--base-url", GOLDEN_OPTIONS.baseUrl], {
      env: cleanEnv({ REGISTRY_SOURCE: join(work, "source.json") }),
    });
    assert.is(built.code, 0, built.stderr);
    const files = readdirSync(out, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    assert.ok(files.length >= 5);
    for (const file of files) {
      const text = readFileSync(join(file.parentPath, file.name), "utf8");
      assert.not.ok(text.includes(SECRET), `${file.name} carries a private string`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

/** One request as raw bytes, so its target may be absolute-form; resolves with the answer's head. */
function rawRequest(origin: string, target: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${target}`)));
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
    socket.on("end", () => resolve(text.split("\r\n")[0] ?? ""));
    socket.on("error", reject);
    socket.end(`GET ${target} HTTP/1.1\r\nHost: ${SECRET}.example\r\nConnection: close\r\n\r\n`);
  });
}

test("every command and every log, on a canary source: build, registry, npm start, the Node artifact, verify, diff", async () => {
  const work = mkdtempSync(join(tmpdir(), "registry-canary-"));
  // What no output may hold: the canary, and the folder the source sits in (its base name may show).
  const folder = join(work, "operator");
  mkdirSync(folder);
  const forbidden = [SECRET, folder];
  const clean = (what: string, text: string | Uint8Array) => {
    const found = leakIn(typeof text === "string" ? text : Buffer.from(text).toString("latin1"), forbidden);
    assert.is(found, undefined, `${what} holds ${found === SECRET ? "a private string" : "the source's folder"}`);
  };
  // A command's message names the file as the operator gave it on its own command line, and only that.
  const cleanMessage = (what: string, text: string, file: string) => {
    const found = leakIn(text.replaceAll(`${file}: `, "FILE: "), forbidden);
    assert.is(found, undefined, `${what} holds ${found === SECRET ? "a private string" : "the source's folder"}`);
  };
  try {
    const [raw] = fc.sample(
      validSource.filter((s) =>
        (s["vaults"] as { suppressed?: boolean }[]).some((v) => v.suppressed === true) &&
        (s["vaults"] as unknown[]).length >= 3
      ),
      { seed: 20261122, numRuns: 1 },
    );
    // Warnings too: a status that differs from a known one only in case, a declared name the
    // format publishes elsewhere; and a declared internal key set to true.
    const vaults = (raw!["vaults"] as Record<string, unknown>[]).map((
      v,
      i,
    ) => (i === 0 ? { ...v, status: "Active", [`${SECRET}_flag`]: true } : v));
    const internal_keys = [...((raw!["internal_keys"] as string[] | undefined) ?? []), `${SECRET}_flag`, "type"];
    const source = join(folder, "source.json");
    writeFileSync(source, JSON.stringify(plantCanaries({ ...raw!, internal_keys, vaults })));
    const env = cleanEnv({ REGISTRY_SOURCE: source, LOG_REQUESTS: "1", HOST: "127.0.0.1", PORT: "0" });

    const built = await buildFirst(["--out", join(work, "dist"), "--base-url", GOLDEN_OPTIONS.baseUrl], {
      env,
    });
    assert.is(built.code, 0, built.stderr);
    assert.match(built.stderr, /warning/, "the warnings were printed");
    clean("npm run build: stdout", built.stdout);
    cleanMessage("npm run build: stderr", built.stderr, source);
    for (
      const file of readdirSync(join(work, "dist"), { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    ) {
      clean(`dist/${file.name}`, readFileSync(join(file.parentPath, file.name)));
    }

    const cli = await run("node", [
      "--import",
      "tsx",
      "node/bin/registry.ts",
      source,
      "--base-url",
      GOLDEN_OPTIONS.baseUrl,
    ], { env, timeoutMs: 60_000 });
    assert.is(cli.code, 0, cli.stderr);
    clean("registry: the document", cli.stdout);
    cleanMessage("registry: stderr", cli.stderr, source);

    // Both servers: the start line, and a log line per request, absolute-form targets included.
    const servers = [
      ["npm start", ["--import", "tsx", "node/bin/serve.ts"]],
      ["dist/node/server.mjs", [join(work, "dist", "node", "server.mjs")]],
    ] as const;
    for (const [name, args] of servers) {
      const server = await startServer("node", args, env, 60_000);
      try {
        for (
          const target of [
            "/vaults.json",
            `/nope?${SECRET}=1`,
            `http://${SECRET}:pw@${SECRET}.example/api/registry.v1.json?token=${SECRET}`,
            `http://h/${SECRET}`.replace(SECRET, "missing"),
          ]
        ) {
          assert.match(await rawRequest(server.origin, target), /^HTTP\/1\.1 (200|404)/, `${name} ${target}`);
        }
        if (name === "dist/node/server.mjs") {
          const verified = await run("node", ["--import", "tsx", "node/bin/verify.ts", server.origin], {
            env,
            timeoutMs: 60_000,
          });
          clean("verify: stdout", verified.stdout);
          clean("verify: stderr", verified.stderr);
        }
      } finally {
        await server.stop();
      }
      assert.match(
        server.output(),
        /"path":"\/api\/registry\.v1\.json"/,
        `${name} logged the absolute-form request by its path`,
      );
      clean(`${name}: start line and request log`, server.output());
    }

    // diff: two built documents (a vault withdrawn), and a source given where a document belongs.
    const withdrawn = vaults.map((v, i) => (i === 1 ? { ...v, suppressed: true } : v));
    writeFileSync(
      join(folder, "withdrawn.json"),
      JSON.stringify(plantCanaries({ ...raw!, internal_keys, vaults: withdrawn })),
    );
    const next = await run("node", [
      "--import",
      "tsx",
      "node/bin/registry.ts",
      join(folder, "withdrawn.json"),
      "--base-url",
      GOLDEN_OPTIONS.baseUrl,
    ], { env, timeoutMs: 60_000 });
    assert.is(next.code, 0, next.stderr);
    writeFileSync(join(work, "old.json"), cli.stdout);
    writeFileSync(join(work, "new.json"), next.stdout);
    for (const flags of [[], ["--json"], ["--fail-on", "privacy"]]) {
      const diff = await run("node", [
        "--import",
        "tsx",
        "node/bin/registry.ts",
        "diff",
        join(work, "old.json"),
        join(work, "new.json"),
        ...flags,
      ], { env, timeoutMs: 60_000 });
      assert.ok(diff.code === 0 || diff.code === 1, diff.stderr);
      assert.match(diff.stdout.toString(), /privacy/, "the withdrawal is reported");
      clean(`diff ${flags.join(" ")}: stdout`, diff.stdout);
      clean(`diff ${flags.join(" ")}: stderr`, diff.stderr);
    }
    const refused = await run("node", [
      "--import",
      "tsx",
      "node/bin/registry.ts",
      "diff",
      join(work, "old.json"),
      source,
    ], { env, timeoutMs: 60_000 });
    assert.is(refused.code, 2);
    assert.is(refused.stdout.length, 0);
    cleanMessage("diff given a source: stderr", refused.stderr, source);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();
