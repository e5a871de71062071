/**
 * A consumer that keeps a copy of the registry document up to date from the change feed, with the
 * consumer kit (`registry-endpoint/client`, client/client.ts): each run asks for the JSON feed with
 * If-None-Match (one request, answered 304, when nothing changed), catches the copy up by the feed's
 * items, and fetches the whole document only when there is no copy or the feed cannot carry the copy
 * forward. Runs unchanged on Node and Deno:
 *
 *   node --import tsx examples/catch-up.ts https://registry.example.org copy.json
 *   deno run --allow-net --allow-read --allow-write examples/catch-up.ts https://registry.example.org copy.json
 *
 * `copy.json` holds the document's exact bytes, as the server serves them (so its ETag is the
 * server's); `copy.json.feed-etag` holds the feed's ETag last seen. A copy file in any other form
 * (say, this example's earlier `{ built_at, vaults, edges, feedEtag }`) is no document of the feed:
 * the next run fetches the document in its place. Exit 0 when the copy is up to date or waits, 1 on
 * a failure (one line on stderr), 2 on a usage error.
 */
import { sync, type SyncResult } from "../client/client.ts";

type Runtime = {
  Deno?: {
    args: string[];
    mainModule?: string;
    exit(code: number): never;
    readFile(path: string): Promise<Uint8Array>;
    writeFile(path: string, data: Uint8Array): Promise<void>;
  };
  process?: { argv: string[]; exitCode?: number };
};
const runtime = globalThis as Runtime;

/** The file's bytes, or undefined when there is none. */
async function read(path: string): Promise<Uint8Array | undefined> {
  try {
    return runtime.Deno !== undefined
      ? await runtime.Deno.readFile(path)
      : new Uint8Array(await (await import("node:fs/promises")).readFile(path));
  } catch {
    return undefined;
  }
}

async function write(path: string, bytes: Uint8Array): Promise<void> {
  if (runtime.Deno !== undefined) await runtime.Deno.writeFile(path, bytes);
  else await (await import("node:fs/promises")).writeFile(path, bytes);
}

/** What a run did, in words. */
const SAID: Record<string, string> = {
  unchanged: "up to date: the feed has not changed",
  current: "up to date: the copy is the feed's newest document",
  wait: "waiting: the feed is older than the copy; ask again later",
  updated: "caught up by the feed",
  "no copy": "fetched the document: no local copy yet",
  unknown: "fetched the document: no item of the feed starts at the copy",
  resync: "fetched the document: a change on the way was too large to list",
  broken: "fetched the document: the feed's items do not carry the copy forward",
};

/** One run: brings the copy at `path` up to date from `base`, and says what it did. */
export async function run(base: string, path: string): Promise<string> {
  const copy = await read(path);
  const etag = await read(`${path}.feed-etag`);
  const result: SyncResult = await sync(base, copy, {
    feedEtag: etag === undefined ? null : new TextDecoder().decode(etag).trim(),
  });
  const bytes = result.kind === "updated" || result.kind === "fetched" ? result.bytes : copy;
  if (bytes !== undefined && bytes !== copy) await write(path, bytes);
  await write(`${path}.feed-etag`, new TextEncoder().encode(`${result.feedEtag ?? ""}\n`));
  const document = bytes === undefined
    ? undefined
    : JSON.parse(new TextDecoder().decode(bytes)) as { built_at: string; vaults: unknown[]; edges: unknown[] };
  const said = SAID[result.kind === "fetched" ? result.why : result.kind];
  const requests = `${result.requests} ${result.requests === 1 ? "request" : "requests"}`;
  return document === undefined
    ? `${said} (${requests})`
    : `${said} (${requests}); ${document.vaults.length} vaults, ${document.edges.length} edges as of ${document.built_at}`;
}

const args = runtime.Deno?.args ?? runtime.process?.argv.slice(2) ?? [];
const isMain = runtime.Deno !== undefined
  ? runtime.Deno.mainModule === import.meta.url
  : /examples[\\/]catch-up\.ts$/.test(runtime.process?.argv[1] ?? "");
const exit = (code: number) => {
  if (runtime.Deno !== undefined) runtime.Deno.exit(code);
  else if (runtime.process !== undefined) runtime.process.exitCode = code;
};
if (isMain) {
  if (args.length !== 2) {
    console.error("usage: catch-up.ts <base-url> <copy-file>");
    exit(2);
  } else {
    try {
      console.log(await run(args[0] as string, args[1] as string));
    } catch (error: unknown) {
      console.error(`catch-up: ${error instanceof Error ? error.message : String(error)}`);
      exit(1);
    }
  }
}
