/**
 * What an operator waits for and stores before the first build: the light install of a clone
 * (`npm ci --omit=dev --omit=optional`, the README's first line) and the package installed from its
 * tarball into an empty project, each in time against the same npm installing `hono` alone into an
 * empty project (the framework an operator would start from), and in size on disk. npm's cache is
 * used first (`--prefer-offline`), as on a machine that has installed before.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { bytesUnder } from "../test/files.ts";

/** One install: how long it took and what its node_modules holds. */
export interface Installed {
  readonly ms: number;
  readonly bytes: number;
}

/** The install figures: the light clone, the package from its tarball, and hono alone. */
export interface InstallFigures {
  readonly clone: Installed;
  readonly pkg: Installed;
  readonly hono: Installed;
}

const ROOT = resolve(".");
const FLAGS = ["--no-audit", "--no-fund", "--prefer-offline"];

/** npm's own variables (npm run sets them) would steer the inner npm. */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("npm_")));
}

function npm(args: readonly string[], cwd: string): number {
  const started = performance.now();
  const done = spawnSync("npm", args, { cwd, env: npmEnv(), encoding: "utf8", timeout: 600_000 });
  if (done.status !== 0) {
    throw new Error(`npm ${args.join(" ")} failed in ${cwd}: ${done.stderr.trim().split("\n").slice(-3).join(" ")}`);
  }
  return performance.now() - started;
}

/** A copy of the files git tracks, as a clone holds them. */
function cloneInto(dir: string): void {
  const files = spawnSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" }).stdout.split("\0").filter(
    Boolean,
  );
  for (const file of files) cpSync(join(ROOT, file), join(dir, file));
}

/** Measures the three installs under `work` (a scratch folder of the bench's). */
export function measureInstalls(work: string): InstallFigures {
  const clone = join(work, "install-clone");
  cloneInto(clone);
  const cloneMs = npm(["ci", "--omit=dev", "--omit=optional", ...FLAGS], clone);

  // npm pack runs prepack and postpack where it packs: a copy, never the working tree.
  const packer = join(work, "install-packer");
  cloneInto(packer);
  symlinkSync(join(ROOT, "node_modules"), join(packer, "node_modules"));
  const packed = spawnSync("npm", ["pack", "--json", "--pack-destination", work], {
    cwd: packer,
    env: npmEnv(),
    encoding: "utf8",
    timeout: 300_000,
  });
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr.trim().split("\n").slice(-3).join(" ")}`);
  const tarball = join(work, (JSON.parse(packed.stdout) as { filename: string }[])[0]?.filename as string);
  const project = join(work, "install-project");
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    `${JSON.stringify({ name: "operator", private: true, type: "module" })}\n`,
  );
  const pkgMs = npm(["install", tarball, ...FLAGS], project);

  const honoOnly = join(work, "install-hono");
  mkdirSync(honoOnly);
  writeFileSync(join(honoOnly, "package.json"), `${JSON.stringify({ name: "baseline", private: true })}\n`);
  const honoMs = npm(["install", "hono@4.13.19", ...FLAGS], honoOnly);

  return {
    clone: { ms: cloneMs, bytes: bytesUnder(join(clone, "node_modules")) },
    pkg: { ms: pkgMs, bytes: bytesUnder(join(project, "node_modules")) },
    hono: { ms: honoMs, bytes: bytesUnder(join(honoOnly, "node_modules")) },
  };
}
