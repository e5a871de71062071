import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, parse, relative, sep } from "node:path";
import { readJson } from "../common/json-error.ts";
import { oneLine } from "../common/printable.ts";

/** The marker file a build writes at the top of its output. */
const MARKER = ".registry-build";

/** What the marker says made it, so that a marker of anything else is not taken for ours. */
const MADE_BY = "npm run build (registry endpoint)";

/** Folders no build may write into, whatever they hold. */
export interface Protected {
  readonly home: string;
  readonly repository: string;
}

/** Why `dir` (absolute) may not take a build, one line each; none when it is absent, empty, or a build output only. */
export function outputProblems(dir: string, guard: Protected): string[] {
  // One line each: a newline in the folder's name or a file's in it is escaped, never a line of its own.
  return problemsOf(dir, guard).map(oneLine);
}

function problemsOf(dir: string, guard: Protected): string[] {
  const why = protectedReason(dir, guard);
  if (why !== undefined) return [`--out ${dir}: ${why}; choose a folder of its own, like dist`];
  for (let up = dirname(dir); up !== dirname(up); up = dirname(up)) {
    if (existsSync(join(up, MARKER))) {
      return [`--out ${dir}: inside the output of an earlier build (${up}); choose a folder outside it`];
    }
  }
  try {
    if (!existsSync(dir)) return [];
    if (!lstatSync(dir).isDirectory()) return [`--out ${dir}: not a folder`];
    const present = walk(dir);
    if (present.length === 0) return [];
    if (!present.includes(MARKER)) {
      return [
        `--out ${dir}: holds files this build did not make (${present.slice(0, 3).join(", ")}${
          present.length > 3 ? ", ..." : ""
        }); choose an empty or new folder`,
      ];
    }
    const made = markerFiles(readFileSync(join(dir, MARKER), "utf8"));
    if (made === undefined) {
      return [`--out ${dir}: its ${MARKER} is not one this build wrote; choose an empty or new folder`];
    }
    const foreign = present.filter((file) => file !== MARKER && !made.has(file));
    if (foreign.length > 0) {
      return [
        `--out ${dir}: a previous build's output, but it also holds files the build did not make (${
          foreign.slice(0, 3).join(", ")
        }); move them away first`,
      ];
    }
    return [];
  } catch (error: unknown) {
    return [`--out ${dir}: cannot read it (${(error as NodeJS.ErrnoException).code ?? "error"})`];
  }
}

/** Why `dir` is protected: a root, the home folder, or the repository or an ancestor of it. */
function protectedReason(dir: string, { home, repository }: Protected): string | undefined {
  if (dir === parse(dir).root) return "a file-system root";
  if (dir === home) return "the home folder";
  if (dir === repository || isInside(repository, dir)) return "the repository or a folder that holds it";
  return undefined;
}

function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** The files a marker lists, or undefined when it is not a marker this build wrote. */
function markerFiles(text: string): Set<string> | undefined {
  const read = readJson(text, { locate: false });
  const marker = "ok" in read ? read.ok : undefined;
  if (typeof marker !== "object" || marker === null || Array.isArray(marker)) return undefined;
  const { made_by: madeBy, files } = marker as Record<string, unknown>;
  if (madeBy !== MADE_BY || !Array.isArray(files)) return undefined;
  const inside = (f: unknown): f is string =>
    typeof f === "string" && f !== "" && f !== MARKER && !f.startsWith("/") && !f.includes("\\") &&
    f.split("/").every((part) => part !== "" && part !== "." && part !== "..");
  return files.every(inside) ? new Set(files) : undefined;
}

/** Stages a new output with `write` beside `out` and swaps it in whole: on a failure, `out` is as it was. */
export async function replaceOutput(
  out: string,
  builtAt: string,
  write: (staging: string) => Promise<void>,
): Promise<void> {
  // The first folder made for `out`'s parents, if any: the build made it, so a failure removes it.
  const made = await mkdir(dirname(out), { recursive: true });
  const staging = await mkdtemp(join(dirname(out), `.${basename(out)}.staging-`));
  let done = false;
  try {
    await write(staging);
    await writeFile(
      join(staging, MARKER),
      `${JSON.stringify({ made_by: MADE_BY, built_at: builtAt, files: walk(staging) }, null, 2)}\n`,
    );
    const holding = await mkdtemp(join(dirname(out), `.${basename(out)}.previous-`));
    const previous = join(holding, "output");
    const moved = await rename(out, previous).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return false;
        throw error;
      },
    );
    try {
      await rename(staging, out);
    } catch (error: unknown) {
      // Put the previous output back; if even that fails, it stays in the holding folder.
      if (moved) await rename(previous, out);
      await rm(holding, { recursive: true, force: true });
      throw error;
    }
    // The previous output: nothing but the files its marker listed (checked by outputProblems).
    await rm(holding, { recursive: true, force: true });
    done = true;
  } finally {
    await rm(staging, { recursive: true, force: true });
    if (!done && made !== undefined) await rm(made, { recursive: true, force: true });
  }
}

/** Every file under `dir`, relative to it, with / as separator, sorted. A symbolic link is a file: never followed. */
function walk(dir: string): string[] {
  const files = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((
      e,
    ) => (e.isDirectory() ? files(join(d, e.name)) : [relative(dir, join(d, e.name)).split(sep).join("/")]));
  return files(dir).sort();
}
