/**
 * One bounded load run against a URL on loopback: wrk where it is installed (less overhead per byte
 * than a load generator written in JS), else autocannon (a devDependency).
 */
import autocannon from "autocannon";
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** What one load run measured. */
export interface Load {
  readonly requests: number;
  readonly rps: number;
  readonly p99: number;
  readonly bytesPerRequest: number;
  readonly non2xx: number;
  readonly errors: number;
}

const WRK = spawnSync("wrk", ["--version"]).error === undefined;
/** Which load generator runs. */
export const GENERATOR = WRK ? "wrk (1 thread)" : "autocannon";

/** Loads `url` for `seconds` with `connections` connections; stops by itself. */
export async function load(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
): Promise<Load> {
  if (WRK) return loadWithWrk(url, headers, seconds, connections);
  const result = await autocannon({ url, connections, duration: seconds, headers });
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    p99: result.latency.p99,
    bytesPerRequest: result.requests.total > 0 ? result.throughput.total / result.requests.total : 0,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

async function loadWithWrk(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
): Promise<Load> {
  const args = [
    "-t1",
    `-c${connections}`,
    `-d${seconds}s`,
    "--latency",
    "--timeout",
    "30s",
    ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]),
    url,
  ];
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn("wrk", args, { stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (c: Buffer) => (text += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), (seconds + 60) * 1000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(text);
      else reject(new Error(`wrk exited ${code}: ${text}`));
    });
  });
  const unit = (n: string, u: string | undefined): number =>
    Number(n) * ({ B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, us: 0.001, ms: 1, s: 1000 }[u ?? "B"] ?? 1);
  const requests = /(\d+) requests in [\d.]+\w+, ([\d.]+)(\w+) read/.exec(out);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (requests === null || p99 === null || rps === null) throw new Error(`unreadable wrk output:\n${out}`);
  return {
    requests: Number(requests[1]),
    rps: Number(rps[1]),
    p99: unit(p99[1] as string, p99[2]),
    bytesPerRequest: unit(requests[2] as string, requests[3]) / Math.max(1, Number(requests[1])),
    non2xx: Number(non2xx?.[1] ?? 0),
    errors: errors === null ? 0 : errors.slice(1).reduce((sum, n) => sum + Number(n), 0),
  };
}

/** A process's resident memory in bytes, from /proc (Linux). */
export function rssOf(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
}
