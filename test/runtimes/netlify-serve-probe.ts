/**
 * Runs `netlify serve --offline` on a site folder and asks it for a list of paths, printing one JSON
 * line: `{ path: { status, body (base64) } }`. netlify serve listens on every interface, so the
 * recipe test runs this probe alone in its own network and process namespaces
 * (`unshare --net --pid --fork`): no address outside them sees the server, and when the probe, the
 * namespace's first process, exits, every process netlify started goes with it.
 * Usage: node --import tsx test/runtimes/netlify-serve-probe.ts <site folder> <port> <path>...
 */
import { spawn } from "node:child_process";
import { request } from "node:http";

const [site, port, ...paths] = process.argv.slice(2) as [string, string, ...string[]];
const child = spawn("netlify", ["serve", "--offline", "--port", port], {
  cwd: site,
  stdio: ["ignore", "pipe", "pipe"],
});
let output = "";
const ready = new Promise<void>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`netlify serve not ready within 120 s:\n${output}`)), 120_000);
  const onData = (chunk: Buffer): void => {
    output += chunk.toString("utf8");
    if (/Local dev server ready/.test(output)) {
      clearTimeout(timer);
      resolve();
    }
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  child.on("exit", (code) => reject(new Error(`netlify serve exited (${code}):\n${output}`)));
});

function get(path: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: "127.0.0.1",
      port: Number(port),
      path,
      headers: { "accept-encoding": "identity" },
      timeout: 20_000,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on(
        "end",
        () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("base64"),
          }),
      );
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on("error", reject);
    req.end();
  });
}

try {
  await ready;
  const answers: Record<string, unknown> = {};
  for (const path of paths) answers[path] = await get(path);
  console.log(JSON.stringify({ answers, output }));
  process.exitCode = 0;
} catch (error: unknown) {
  console.log(JSON.stringify({ error: error instanceof Error ? error.message : String(error), output }));
  process.exitCode = 1;
} finally {
  child.kill("SIGTERM");
}
