/** Nothing of a private key is ever printed or written: messages name the variable, never its value. */
import { appendFile, mkdir, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { Env } from "../../contract/config.ts";
import type { Build } from "../../assembly/prepare.ts";
import { KeyError, keySet, readSigningKeys, type SigningKey } from "../../assembly/jws.ts";
import { CLOCK_SKEW_S, documentPath, fileEntry, KEYS_PATH, manifestPath, signBuild } from "../../assembly/manifest.ts";
import { basePathOf } from "../../http/answer.ts";
import { checkManifest } from "../../client/client.ts";
import type { ContractVersion } from "../../contract/version-policy.ts";
import type { Flag } from "../common/args.ts";
import { isRemote, RUN_DEADLINE_MS, timeout } from "../common/request.ts";
import { folderReader, previousFailure, type PreviousFiles, urlReader } from "./previous.ts";
import { zlibCompress } from "../common/compress.ts";
import { staticHeaders } from "./static.ts";

const SIGNING_KEY_VARIABLE = "REGISTRY_SIGNING_KEY";

/** The build's signing flags. */
export const SIGNING_FLAGS: Readonly<Record<string, Flag>> = {
  "signature-lifetime": {
    type: "string",
    value: "DURATION",
    help:
      "with REGISTRY_SIGNING_KEY, how long each manifest's signature holds: exp = the signing time plus this (7d by default; 12h, 90m, 90s): re-sign (build again) within it, or consumers see a frozen deployment",
  },
  unsigned: {
    type: "boolean",
    help:
      "build without a key although the previous build was signed, or start a new history (--new-history) without one, which cannot see whether the deployment it replaces was signed (no silent downgrade: without it, either is refused)",
  },
};

/** The longest signature lifetime: past a year, the freeze check would be switched off in effect. */
const MAX_LIFETIME_S = 366 * 86400;

/** A duration as `--signature-lifetime` takes it (`7d`, `12h`, `90m`, `90s`, at most 366d), in seconds, or null. */
export function parseLifetime(text: string): number | null {
  const m = /^([1-9]\d{0,6})([dhms])$/.exec(text);
  if (m === null) return null;
  const seconds = Number(m[1]) * { d: 86400, h: 3600, m: 60, s: 1 }[m[2] as "d" | "h" | "m" | "s"];
  return seconds <= MAX_LIFETIME_S ? seconds : null;
}

/** The keys of `REGISTRY_SIGNING_KEY` (none when unset or empty), or one line refusing it without quoting it. */
async function signingKeysOf(env: Env): Promise<{ ok: SigningKey[] } | { error: string }> {
  const text = env[SIGNING_KEY_VARIABLE] ?? "";
  if (text.trim() === "") return { ok: [] };
  try {
    return { ok: await readSigningKeys(text) };
  } catch (error: unknown) {
    const why = error instanceof KeyError ? error.message : "unreadable";
    return {
      error:
        `${SIGNING_KEY_VARIABLE}: ${why}; it must hold one or more PKCS#8 PEM blocks of Ed25519 private keys (registry-endpoint keygen FILE makes one), or a private Ed25519 JWK or JWK Set (its value is not shown)`,
    };
  }
}

/** What the previous build's manifest of one version said. */
interface PreviousManifest {
  readonly where: string;
  readonly seq: number;
  readonly iat: number;
  readonly documentSha256: string | undefined;
}

/** How this build signs: its keys and lifetime, and what the previous build's manifests said. */
export interface SigningPlan {
  readonly keys: readonly SigningKey[];
  readonly lifetime: number;
  readonly previous: ReadonlyMap<number, PreviousManifest>;
  /** The clock, epoch seconds. */
  readonly now: () => number;
}

/** Reads the signing settings and previous manifests at `location`: the plan (null: no signing), or a refusal. */
export async function prepareSigning(settings: {
  readonly env: Env;
  readonly values: Record<string, string | boolean | undefined>;
  readonly location: string | undefined;
  readonly baseUrl: string;
  readonly versions: readonly ContractVersion[];
  readonly cwd: string;
  /** The files read from the previous build, which this build carries on or compares itself with. */
  readonly carried?: PreviousFiles | undefined;
  readonly now?: () => number;
}): Promise<{ ok: SigningPlan | null } | { exit: 1 | 2; message: string }> {
  const { values, baseUrl } = settings;
  const carried: PreviousFiles = settings.carried ?? new Map();
  const refuse = (message: string) => ({ exit: 1 as const, message });
  const keys = await signingKeysOf(settings.env);
  if ("error" in keys) return refuse(keys.error);
  const lifetimeText = (values["signature-lifetime"] as string | undefined) ?? "7d";
  const lifetime = parseLifetime(lifetimeText);
  if (lifetime === null) {
    return {
      exit: 2,
      message: `--signature-lifetime: ${
        JSON.stringify(lifetimeText.slice(0, 20))
      } is not a duration such as 7d, 12h, 90m or 90s, of at most 366d`,
    };
  }
  const unsigned = values["unsigned"] === true;
  if (unsigned && keys.ok.length > 0) {
    return {
      exit: 2,
      message: `--unsigned and ${SIGNING_KEY_VARIABLE}: give one (unset the variable to build unsigned)`,
    };
  }
  // A new history reads no previous build: whether the deployment it replaces was signed is unseen.
  if (values["new-history"] === true && keys.ok.length === 0 && !unsigned) {
    return refuse(
      `--new-history: it cannot see whether the deployment it replaces was signed: set ${SIGNING_KEY_VARIABLE} to sign this build, or give --unsigned to publish an unsigned one on purpose`,
    );
  }
  const previous = new Map<number, PreviousManifest>();
  if (settings.location !== undefined) {
    const read = await readManifests(settings.location, baseUrl, settings.versions, settings.cwd);
    if ("error" in read) return refuse(read.error);
    for (const [n, { bytes, where }] of read.ok) {
      if (keys.ok.length === 0) {
        if (unsigned) continue;
        return refuse(
          `the previous build is signed (${where}): set ${SIGNING_KEY_VARIABLE} to sign this one, or give --unsigned to publish an unsigned build on purpose`,
        );
      }
      // The previous manifest's age does not matter here (a re-sign is what renews it): now = null.
      const checked = await checkManifest(bytes, keySet(keys.ok), { baseUrl, version: n, now: null });
      if (!checked.ok) {
        return refuse(
          `the previous manifest ${where} does not verify with ${SIGNING_KEY_VARIABLE}'s keys (${checked.reason}: ${checked.detail})`,
        );
      }
      const tampered = await unlisted(carried, n, checked.files, where);
      if (tampered !== undefined) return refuse(tampered);
      const { seq, iat, files } = checked;
      previous.set(n, { where, seq, iat, documentSha256: files[documentPath(n)]?.sha256 });
    }
    // Nothing unsigned is carried into a signed build: a previous build without a manifest (never
    // signed, or its manifest and key set removed by whoever can write to the host) is refused.
    const first = carried.values().next();
    if (keys.ok.length > 0 && previous.size === 0 && !first.done) {
      return refuse(
        `--previous: ${first.value.where}: no signed manifest beside it, in a signed build: nothing unsigned is carried on; restore the deployment's manifest, or start a signed history with --new-history (consumers refetch once)`,
      );
    }
    // A signed previous build has a manifest for every version it serves: a file of one without is unchecked.
    if (previous.size > 0) {
      const bare = [...carried.entries()].find(([path]) => ![...previous.keys()].some((n) => ofVersion(path, n)));
      if (bare !== undefined) {
        return refuse(
          `--previous: ${
            bare[1].where
          }: no manifest of its version beside it, in a signed build: nothing is carried on unchecked`,
        );
      }
    }
  }
  if (keys.ok.length === 0) return { ok: null };
  return { ok: { keys: keys.ok, lifetime, previous, now: settings.now ?? (() => Math.floor(Date.now() / 1000)) } };
}

function ofVersion(path: string, n: number): boolean {
  return path.startsWith(`/api/registry.v${n}.`);
}

/** Why a carried file of version `n` is not as its verified manifest lists: edits on the host are never signed on. */
async function unlisted(
  carried: PreviousFiles,
  n: number,
  files: Readonly<Record<string, { readonly sha256: string }>>,
  where: string,
): Promise<string | undefined> {
  for (const [path, file] of carried) {
    if (!ofVersion(path, n)) continue;
    const listed = Object.hasOwn(files, path) ? files[path] : undefined;
    if (listed === undefined) {
      return `--previous: ${file.where}: not listed in the previous manifest (${where}): nothing unsigned is carried into a signed build`;
    }
    if ((await fileEntry(file.bytes)).sha256 !== listed.sha256) {
      return `--previous: ${file.where}: its bytes are not the ones the previous manifest (${where}) lists (sha256): changed on the host since it was signed, or a deploy in progress; nothing is carried on`;
    }
  }
  return undefined;
}

/** What a build's summary line adds when it signs (`; signed by 2 keys (kid …, …)`), or nothing. */
export function signedSummary(plan: SigningPlan | null): string {
  if (plan === null) return "";
  const n = plan.keys.length;
  return `; signed by ${n} key${n === 1 ? "" : "s"} (kid ${plan.keys.map((k) => k.kid).join(", ")})`;
}

/** The previous build's manifests at `location` (an output folder, or the base URL), by version. */
async function readManifests(
  location: string,
  baseUrl: string,
  versions: readonly ContractVersion[],
  cwd: string,
): Promise<{ ok: Map<number, { bytes: Uint8Array; where: string }> } | { error: string }> {
  const out = new Map<number, { bytes: Uint8Array; where: string }>();
  const remote = isRemote(location);
  const deadline = remote ? timeout(RUN_DEADLINE_MS) : null;
  const base = location.replace(/\/+$/, "");
  const read = deadline === null
    ? folderReader(resolve(cwd, location, "static"), basePathOf(baseUrl))
    : urlReader(base, deadline.signal);
  try {
    for (const { number } of versions) {
      const path = manifestPath(number);
      const bytes = await read(path, 4 * 1024 * 1024);
      if (bytes === null) continue;
      out.set(number, { bytes, where: remote ? `${base}${path}` : join(location, "static", path) });
    }
    // A key set with no manifest beside it is a signed deployment whose manifests are missing (a
    // cache, a partial upload): taken for unsigned, it would let a build drop signing silently.
    if (out.size === 0) {
      let keySetAt: string | undefined;
      if (remote) {
        // Anything but a 404 (a key set, or an error) counts as one: fail closed.
        const found = await read(KEYS_PATH, 1024 * 1024).catch(() => undefined);
        if (found !== null) keySetAt = `${base}${KEYS_PATH}`;
      } else {
        const file = join(resolve(cwd, location, "static"), `${basePathOf(baseUrl)}${KEYS_PATH}`);
        if (await stat(file).then(() => true, () => false)) keySetAt = join(location, "static", KEYS_PATH);
      }
      if (keySetAt !== undefined) {
        return {
          error: `--previous: ${keySetAt}: a key set, but no manifest beside it: a signed build missing its manifests`,
        };
      }
    }
  } catch (error: unknown) {
    return { error: previousFailure(error, remote, baseUrl) };
  } finally {
    deadline?.clear();
  }
  return { ok: out };
}

/** Signs `served`, writing the manifests and key set beside its static export in `dir`; throws one line on refusal. */
export async function signStaged(served: Build, dir: string, plan: SigningPlan | null): Promise<Build> {
  if (plan === null) return served;
  const { builtAt } = served.meta;
  const seq = Math.floor(Date.parse(builtAt) / 1000);
  const now = plan.now();
  if (seq > now + CLOCK_SKEW_S) {
    throw new Error(
      `built_at ${builtAt} is more than ${
        CLOCK_SKEW_S / 60
      } minutes after this machine's clock: signed, it would move every consumer's seq past the future`,
    );
  }
  for (const [n, previous] of plan.previous) {
    const document = served.routes.get(documentPath(n));
    const sha = document === undefined ? undefined : (await fileEntry(document.identity.body)).sha256;
    if (seq < previous.seq || (seq === previous.seq && sha !== previous.documentSha256)) {
      throw new Error(
        `v${n}: a new document whose built_at (${builtAt}, seq ${seq}) is not later than the previous manifest's seq (${previous.seq}, ${previous.where}): build at a later time`,
      );
    }
    if (now < previous.iat) {
      throw new Error(
        `v${n}: this machine's clock is before the previous manifest's iat (${previous.iat}): consumers would take the new signature for a rollback`,
      );
    }
  }
  const prefix = basePathOf(served.meta.baseUrl);
  const { build } = await signBuild(served, plan.keys, {
    iat: now,
    lifetime: plan.lifetime,
    compression: { compress: zlibCompress },
  });
  const added = new Map([...build.routes].filter(([path]) => !served.routes.has(path)));
  for (const [route, resource] of added) {
    const file = join(dir, `${prefix}${route}`);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, resource.identity.body);
  }
  await appendFile(join(dir, "_headers"), `\n${staticHeaders({ routes: added, gone: new Map(), meta: build.meta })}`);
  return build;
}
