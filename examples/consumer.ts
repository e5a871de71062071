/**
 * A consumer of the registry, typed with the generated types (golden/registry.v1.d.ts, exported
 * beside the description as /api/registry.v1.d.ts). It reads what docs/document.md says a consumer needs,
 * `vault_count` and `vaults[0].display_name`, revalidates with If-None-Match, ignores keys it does
 * not know, and warns once when v1 is deprecated, naming the successor. Runs unchanged on Node
 * (with tsx) and Deno:
 *
 *   node --import tsx examples/consumer.ts https://registry.example.org
 *   deno run --allow-net examples/consumer.ts https://registry.example.org
 */
import type { RegistryDocumentV1 } from "../golden/registry.v1.d.ts";

/** A fetched copy and the ETag to revalidate it with. */
export interface Copy {
  readonly document: RegistryDocumentV1;
  readonly etag: string | null;
}

const warned = new Set<string>();

/**
 * Fetches `/api/registry.v1.json` from `base`; with a `cached` copy, asks only for a newer one and
 * keeps the copy on 304. A `Deprecation` or `Sunset` header gives one warning per URL, naming the
 * successor from the `successor-version` link.
 */
export async function fetchRegistry(
  base: string,
  cached?: Copy,
  warn: (line: string) => void = console.warn,
): Promise<{ copy: Copy; status: number }> {
  const url = `${base.replace(/\/$/, "")}/api/registry.v1.json`;
  const headers: Record<string, string> = cached?.etag ? { "if-none-match": cached.etag } : {};
  const res = await fetch(url, { headers });
  const deprecation = res.headers.get("deprecation");
  const sunset = res.headers.get("sunset");
  if ((deprecation !== null || sunset !== null) && !warned.has(url)) {
    warned.add(url);
    const successor = /<([^>]+)>\s*;\s*rel="successor-version"/.exec(res.headers.get("link") ?? "")?.[1];
    warn(
      `registry: ${url} is deprecated${sunset === null ? "" : ` and stops serving on ${sunset}`}; move to ${
        successor ?? "its successor"
      }`,
    );
  }
  if (res.status === 304 && cached !== undefined) {
    await res.body?.cancel();
    return { copy: cached, status: 304 };
  }
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}`);
  // Keys this consumer does not know are simply never read: the types allow them as unknown.
  const document = (await res.json()) as RegistryDocumentV1;
  return { copy: { document, etag: res.headers.get("etag") }, status: 200 };
}

/** What a script prints: the count, the first vault's name, and what revalidating gave. */
async function main(base: string): Promise<void> {
  const first = await fetchRegistry(base);
  const { vault_count: count, vaults } = first.copy.document;
  console.log(`vault_count: ${count}`);
  console.log(`vaults[0].display_name: ${vaults[0]?.display_name ?? "(no vaults)"}`);
  const again = await fetchRegistry(base, first.copy);
  console.log(`revalidated: ${again.status === 304 ? "304, the copy is current" : `${again.status}, a new copy`}`);
}

const runtime = globalThis as {
  Deno?: { args: string[]; mainModule?: string; exit(code: number): never };
  process?: { argv: string[]; exitCode?: number };
};
const args = runtime.Deno?.args ?? runtime.process?.argv.slice(2) ?? [];
const isMain = runtime.Deno !== undefined
  ? runtime.Deno.mainModule === import.meta.url
  : /examples[\\/]consumer\.ts$/.test(runtime.process?.argv[1] ?? "");
if (isMain) {
  if (args.length !== 1) {
    console.error("usage: consumer.ts <base-url>");
    if (runtime.Deno !== undefined) runtime.Deno.exit(2);
    else if (runtime.process !== undefined) runtime.process.exitCode = 2;
  } else {
    await main(args[0] as string);
  }
}
