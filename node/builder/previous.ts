/** Anything but a previous build that checks, or nothing published yet, is refused: no history restarts silently. */
import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { sentUrl, shownPath } from "../../contract/config.ts";
import { isObject } from "../../contract/json.ts";
import { MAX_DOCUMENT_BYTES } from "../../contract/limits.ts";
import type { Registry } from "../../contract/document.ts";
import { type BuildRef, outOfOrder } from "../../feed/change.ts";
import {
  type ChangeFeed,
  envelopeOf,
  FEED_LIMITS,
  feedPlace,
  type History,
  rewrite,
  rowsFor,
} from "../../feed/feed.ts";
import { historyProblems } from "../../feed/history.ts";
import { changeFeedSchema } from "../../feed/schema.ts";
import { basePathOf } from "../../http/answer.ts";
import { strongEtag } from "../../http/responses.ts";
import { changesPaths, contextOf, type ContractVersion } from "../../contract/version-policy.ts";
import { readJson } from "../common/json-error.ts";
import { fileBytes, readLimited } from "../common/source-file.ts";
import { schemaCheck } from "../common/schemas.ts";
import {
  BodyTooLarge,
  isRemote,
  request,
  REQUEST_TIMEOUT_MS,
  RequestFailure,
  RUN_DEADLINE_MS,
  timeout,
} from "../common/request.ts";

/** What the previous build left, by version; `files`, every file read from it; `started`, a line: a history starts. */
export interface Previous {
  readonly history: ReadonlyMap<number, History>;
  readonly documents: ReadonlyMap<number, unknown>;
  readonly files: PreviousFiles;
  readonly started?: string;
}

/** The files read from a previous build, by served path: their bytes and where they were read (a URL or a file). */
export type PreviousFiles = ReadonlyMap<string, { readonly bytes: Uint8Array<ArrayBuffer>; readonly where: string }>;

/** Reads one file of the previous build: its bytes, or null when there is none. */
export type Reader = (path: string, cap: number) => Promise<Uint8Array<ArrayBuffer> | null>;

/** Reads and checks the previous build at `location`: none of `versions` there is no build, at a URL a new start. */
export async function readPrevious(
  location: string,
  settings: {
    readonly baseUrl: string;
    readonly builtAt: string;
    readonly versions: readonly ContractVersion[];
    /** The folder a relative location is in (default: this process's). */
    readonly cwd?: string;
  },
): Promise<{ ok: Previous } | { error: string }> {
  // A value that may hold a user name, password or token is refused unread, and never printed.
  if (shownPath(location) !== location) {
    return {
      error: `--previous: ${
        shownPath(location)
      }: give the previous build's output folder, or its base URL without a user name, password, query or fragment`,
    };
  }
  const remote = isRemote(location);
  const trimmed = location.replace(/\/+$/, "");
  if (remote && trimmed !== settings.baseUrl) {
    return {
      error:
        `--previous ${location}: not this build's base URL (${settings.baseUrl}); give the base URL this build deploys to, ` +
        "or the previous build's output folder",
    };
  }
  const deadline = remote ? timeout(RUN_DEADLINE_MS) : null;
  const read = deadline !== null
    ? urlReader(trimmed, deadline.signal)
    : folderReader(resolve(settings.cwd ?? "", location, "static"), basePathOf(settings.baseUrl));
  const at = remote ? trimmed : `${join(location, "static")}${basePathOf(settings.baseUrl)}`;
  const where = (path: string) => `${at}${path}`;
  const history = new Map<number, History>();
  const documents = new Map<number, unknown>();
  const files = new Map<string, { bytes: Uint8Array<ArrayBuffer>; where: string }>();
  try {
    for (const version of settings.versions) {
      const feeds = changesPaths(version);
      const documentBytes = await read(version.path, MAX_DOCUMENT_BYTES);
      const feedBytes = await read(feeds.json, FEED_LIMITS.feedBytes);
      // A version neither published yet starts its feed here; one without the other is no build.
      if (documentBytes === null && feedBytes === null) continue;
      if (documentBytes === null) {
        return { error: `--previous: ${where(version.path)}: missing beside its change feed` };
      }
      const checked = await checkPrevious(version, settings, documentBytes, feedBytes, where).catch(
        (error: unknown) => {
          // Values nested past the stack (a hostile file) are refused by name, not by the engine's words.
          if (error instanceof RangeError) {
            return { error: `--previous: ${where(version.path)} or its change feed: nested too deeply to check` };
          }
          throw error;
        },
      );
      if ("error" in checked) return checked;
      history.set(version.number, checked.ok.history);
      documents.set(version.number, checked.ok.document);
      files.set(version.path, { bytes: documentBytes, where: where(version.path) });
      files.set(feeds.json, { bytes: feedBytes as Uint8Array<ArrayBuffer>, where: where(feeds.json) });
      // What a rebuild that keeps this built_at must serve unchanged (absent: it does not keep it).
      for (const path of [version.schemaPath, version.openapiPath, feeds.atom]) {
        const bytes = await read(path, MAX_DOCUMENT_BYTES);
        if (bytes !== null) files.set(path, { bytes, where: where(path) });
      }
    }
  } catch (error: unknown) {
    return { error: previousFailure(error, remote, settings.baseUrl) };
  } finally {
    deadline?.clear();
  }
  const builtAts = new Set([...history.values()].map((h) => h.snapshot.ref.built_at));
  if (builtAts.size > 1) {
    return { error: `--previous: ${location}: its versioned documents were built at different times: not one build` };
  }
  if (history.size === 0 && remote) {
    const started =
      `--previous ${location}: nothing published there yet (404 for every versioned document and change feed): ` +
      "this build starts a new history";
    return { ok: { history, documents, files, started } };
  }
  if (history.size === 0) {
    return {
      error: `--previous: ${location} holds no versioned document of this build's versions (${
        settings.versions.map((v) => v.path).join(", ")
      }): not a build's output folder or base URL`,
    };
  }
  return { ok: { history, documents, files } };
}

/** Checks one version's previous document and JSON feed (`feedBytes` null: missing) for a build of `settings`. */
export async function checkPrevious(
  version: ContractVersion,
  settings: { readonly baseUrl: string; readonly builtAt: string },
  documentBytes: Uint8Array<ArrayBuffer>,
  feedBytes: Uint8Array<ArrayBuffer> | null,
  where: (path: string) => string = (path) => path,
): Promise<{ ok: { history: History; document: unknown } } | { error: string }> {
  const feeds = changesPaths(version);
  const refuse = (path: string, why: string) => ({ error: `--previous: ${where(path)}: ${why}` });
  // Hashed off the main thread while the document is parsed and checked.
  const etag = strongEtag(documentBytes);
  const document = parseJson(documentBytes);
  if (document === undefined) {
    return refuse(
      version.path,
      "not JSON: not a registry build (a host answering an HTML page?); check the base URL, or, if nothing of " +
        "this registry was ever deployed there, give --new-history instead of --previous",
    );
  }
  const context = contextOf(version, settings);
  const schemaErrors = schemaCheck(version.schema(context))(document);
  if (schemaErrors !== null) return refuse(version.path, `not a v${version.number} document: ${schemaErrors}`);
  const registry = document as Registry;
  if (registry.about.versioned_url !== settings.baseUrl + version.path) {
    return refuse(version.path, `a document of another base URL or version, not ${settings.baseUrl}${version.path}`);
  }
  // Rows by slug and edges by source, target, type, each once: the order every build writes, and feeds replay in.
  const unordered = outOfOrder(registry);
  if (unordered !== undefined) {
    return refuse(
      version.path,
      `${unordered}: out of order or repeated (rows by vault_slug, edges by source, target, type, each once); ` +
        "a build never writes that",
    );
  }
  // The same built_at is the same build again only if the bytes are the same: prepareBuild checks.
  if (registry.built_at > settings.builtAt) {
    return refuse(version.path, `built at ${registry.built_at}, later than this build (${settings.builtAt})`);
  }
  if (feedBytes === null) return refuse(feeds.json, "missing: the previous build has a document but no change feed");
  const feed = parseJson(feedBytes);
  if (feed === undefined) return refuse(feeds.json, "not JSON");
  const defs = `${settings.baseUrl}${version.schemaPath}#/$defs`;
  const feedSchema = changeFeedSchema(settings.baseUrl + feeds.json, `${defs}/row`, `${defs}/edge`, true);
  const feedErrors = schemaCheck(feedSchema, [version.schema(context)])(feed);
  if (feedErrors !== null) return refuse(feeds.json, `not a change feed: ${feedErrors}`);
  const place = feedPlace(version.number, settings.baseUrl, version.path, feeds);
  const changeFeed = feed as ChangeFeed;
  if (changeFeed.feed_url !== place.feedUrl || changeFeed.home_page_url !== place.documentUrl) {
    return refuse(feeds.json, `the feed of another base URL or version, not ${place.feedUrl}`);
  }
  const snapshot = {
    ref: { built_at: registry.built_at, etag: await etag },
    vaults: registry.vaults,
    edges: registry.edges,
    envelope: envelopeOf(registry),
  };
  const problems = historyProblems(place, changeFeed.items, snapshot);
  if (problems.length > 0) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
    const first = problems[0] as string;
    // An older feed beside a newer document is a cache's doing; an item out of the chain is an old deployment's.
    const advice = first.startsWith("items[0]._registry.to")
      ? "an older feed beside a newer document (a cache?): build again later, or purge the cache"
      : first.startsWith("items: replayed")
      ? "refused, as a corrupt or planted item would be"
      : "a deployment built before feeds were chains moves on with one --new-history";
    return refuse(feeds.json, `not the history of its document: ${first}${more}; ${advice}`);
  }
  // Every build rewrites every item against its document (the privacy rule): an item that rewriting changes is none
  // a build wrote. A removal of a slug the document does not hold changes nothing and looks like a real one: a signed
  // build's manifest (signing.ts) is what refuses it.
  const rows = rowsFor(changeFeed.items.map((item) => item._registry), registry.vaults);
  const unwritten = changeFeed.items.findIndex(({ _registry: change }, i) => {
    const envelope = i === 0 ? snapshot.envelope : undefined;
    if (change.from !== null) return JSON.stringify(rewrite(change, rows, envelope)) !== JSON.stringify(change);
    // A snapshot is of class data. One written before snapshots listed nothing may still list rows
    // (its next rewrite empties them): those are checked as any item's are.
    const listed = { ...rewrite({ ...change, from: change.to }, rows, envelope), from: null };
    return change.class !== "data" ||
      ![JSON.stringify(rewrite(change, rows, envelope)), JSON.stringify(listed)].includes(JSON.stringify(change));
  });
  if (unwritten !== -1) {
    return refuse(
      feeds.json,
      `items[${unwritten}]._registry: not what a build writes beside its document (a row other than the document's, or an edge touching a vault it does not list in full); refused, as a corrupt or planted item would be`,
    );
  }
  return { ok: { history: { snapshot, feed: changeFeed }, document } };
}

/** The build of `baseUrl` that the output folder `out` holds (its version and document), or null (unreadable: none). */
export async function heldBuild(
  out: string,
  baseUrl: string,
  versions: readonly ContractVersion[],
): Promise<{ readonly version: number; readonly ref: BuildRef } | null> {
  const read = folderReader(join(out, "static"), basePathOf(baseUrl));
  for (const version of versions) {
    const bytes = await read(version.path, MAX_DOCUMENT_BYTES).catch(() => null);
    const document = bytes === null ? undefined : parseJson(bytes);
    if (
      bytes !== null && isObject(document) && isObject(document["about"]) &&
      document["about"]["versioned_url"] === baseUrl + version.path && typeof document["built_at"] === "string"
    ) {
      return { version: version.number, ref: { built_at: document["built_at"], etag: await strongEtag(bytes) } };
    }
  }
  return null;
}

/** Reads `static/<base path><path>` of an output folder: absent is none; a file over `cap` or not UTF-8 is refused. */
export function folderReader(dir: string, prefix: string): Reader {
  return async (path, cap) => {
    const file = join(dir, `${prefix}${path}`);
    const info = await stat(file).catch(() => null);
    if (info === null) return null;
    // A pipe would wait for a writer: only a regular file is read.
    if (!info.isFile()) throw new Error(`${file}: not a file`);
    const read = await readLimited(file, cap);
    if ("error" in read) throw new Error(`${file}: ${read.error}`);
    // No build writes a byte order mark, so one is kept and seen, as in the same file read from its URL.
    return fileBytes(read);
  };
}

/** The line of a failed read, with the way on for a live deployment that is down: wait, or say it has no past. */
export function previousFailure(error: unknown, remote: boolean, baseUrl: string): string {
  const reason = error instanceof Error ? error.message : String(error);
  const unreachable = error instanceof Unreachable ||
    (error instanceof RequestFailure && !(error instanceof BodyTooLarge));
  const wayOn = remote && unreachable
    ? `: the live deployment could not be read; build again when it answers, or, if nothing was ever deployed at ${baseUrl}, give --new-history instead of --previous`
    : "";
  return `--previous: ${reason}${wayOn}`;
}

/** A 5xx, 401 or 403 where a file was asked for: a deployment that cannot be read now, not one with no past. */
class Unreachable extends Error {}

/** GETs `<base><path>` with verify's limits, the whole read within `deadline`, no redirect followed: 404 is none. */
export function urlReader(base: string, deadline: AbortSignal): Reader {
  return async (path, cap) => {
    const url = `${base}${path}`;
    // A unique query string (which the service ignores) and no-cache: no cache hands back an older file.
    const res = await request(`${url}?fresh=${crypto.randomUUID()}`, {
      method: "GET",
      headers: { "accept-encoding": "identity", "cache-control": "no-cache" },
      shownAs: url,
      cap,
      timeoutMs: REQUEST_TIMEOUT_MS,
      deadline,
      deadlineMs: RUN_DEADLINE_MS,
      reader: "--previous",
    });
    if (res.status === 404) return null;
    if (res.status >= 300 && res.status < 400) {
      const to = sentUrl(res.headers.get("location"), url);
      throw new Error(`${url}: answered ${res.status}, a redirect to ${to}: give the address it names`);
    }
    // A 5xx, or a refusal to read (401, 403): the deployment cannot be read now, which is no absence.
    if (res.status >= 500 || res.status === 401 || res.status === 403) {
      throw new Unreachable(`${url}: answered ${res.status}`);
    }
    if (res.status !== 200) throw new Error(`${url}: answered ${res.status}`);
    return new Uint8Array(res.body);
  };
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    const read = readJson(new TextDecoder("utf-8", { fatal: true }).decode(bytes), { locate: false });
    return "ok" in read ? read.ok : undefined;
  } catch {
    return undefined;
  }
}
