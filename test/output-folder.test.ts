/**
 * The build owns only what it made (`node/builder/output-folder.ts`): laws over generated folder trees,
 * in process, and the reproductions through the real `npm run build`.
 */
import fc from "fast-check";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { outputProblems, replaceOutput } from "../node/builder/output-folder.ts";

/** The name of the file a build leaves in its output folder to know it as its own (docs/deploying.md). */
const MARKER = ".registry-build";
import { fcParams } from "./arbitraries.ts";
import { cleanEnv, runCommand } from "./process.ts";
import { buildFirst } from "./first-build.ts";

const work = mkdtempSync(join(tmpdir(), "registry-output-"));
test.after(() => rmSync(work, { recursive: true, force: true }));
const guard = { home: join(work, "home"), repository: join(work, "code", "repo") };

/** Every entry under `dir` (files by content, links by target, folders by name), for comparing before and after. */
function snapshot(dir: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      if (e.isSymbolicLink()) seen.set(path, `link ${readlinkSync(path)}`);
      else if (e.isDirectory()) {
        seen.set(path, "folder");
        visit(path);
      } else seen.set(path, `file ${readFileSync(path, "utf8")}`);
    }
  };
  if (existsSync(dir)) visit(dir);
  return seen;
}

const name = fc.constantFrom("a", "b", "static", "node", "x.txt", MARKER, "notes.txt");
/** A marker as a build writes it, or a forged one. */
const marker = fc.oneof(
  fc.array(fc.constantFrom("a", "static/a", "notes.txt", "x.txt", "../outside", "/abs", "a/../b", "", "c\\d"), {
    maxLength: 4,
  }).map((files) => JSON.stringify({ made_by: "npm run build (registry endpoint)", files })),
  fc.constantFrom(
    "{}",
    '{"files":"notes.txt"}',
    '{"made_by":"npm run build (registry endpoint)","files":"notes.txt"}',
    "[]",
    "null",
    "not json",
    '{"made_by":"someone else","files":["notes.txt"]}',
  ),
);
/** A tree inside and around `out`: files, folders, a marker, symbolic links, staging-like names. */
const tree = fc.record({
  outExists: fc.boolean(),
  inside: fc.array(fc.tuple(fc.array(name, { minLength: 1, maxLength: 3 }), fc.string({ maxLength: 5 })), {
    maxLength: 5,
  }),
  marker: fc.option(marker, { nil: undefined }),
  link: fc.boolean(),
  beside: fc.array(
    fc.constantFrom("out.tmp-1", ".out.staging-AAAAAA", ".out.previous-AAAAAA", "out.old-1", "notes.txt"),
    { maxLength: 3 },
  ),
  fails: fc.boolean(),
});

test("no file the build did not make is ever removed or changed; a failed or refused build leaves everything as it was", async () => {
  let n = 0;
  await fc.assert(
    fc.asyncProperty(tree, async (t) => {
      const root = join(work, `tree-${n++}`);
      const out = join(root, "out");
      mkdirSync(root, { recursive: true });
      writeFileSync(join(root, "precious.txt"), "keep me");
      for (const b of t.beside) {
        mkdirSync(join(root, b), { recursive: true });
        writeFileSync(join(root, b, "foreign.txt"), "foreign");
      }
      if (t.outExists) {
        mkdirSync(out, { recursive: true });
        for (const [parts, text] of t.inside) {
          const path = join(out, ...parts);
          if (
            existsSync(path) ||
            [...parts.slice(0, -1)].some((_, i) =>
              existsSync(join(out, ...parts.slice(0, i + 1))) &&
              !lstatSync(join(out, ...parts.slice(0, i + 1))).isDirectory()
            )
          ) continue;
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, text);
        }
        if (t.marker !== undefined && !existsSync(join(out, MARKER))) writeFileSync(join(out, MARKER), t.marker);
        if (t.link && !existsSync(join(out, "link"))) symlinkSync(join(root, "precious.txt"), join(out, "link"));
      }
      const before = snapshot(root);
      const problems = outputProblems(out, guard);
      const write = async (staging: string) => {
        mkdirSync(join(staging, "static"));
        writeFileSync(join(staging, "static", "a"), "new");
        if (t.fails) throw new Error("the build failed");
      };
      const failed = problems.length > 0 ||
        (await replaceOutput(out, "2026-11-22T00:00:00Z", write).then(() => false, () => true));
      const after = snapshot(root);
      if (failed) {
        assert.equal([...after], [...before], "refused or failed: nothing changed");
        return;
      }
      // Built: everything outside out is as it was, and out holds the new output alone.
      const outside = (m: Map<string, string>) => [...m].filter(([p]) => p !== out && !p.startsWith(`${out}/`));
      assert.equal(outside(after), outside(before));
      assert.equal(readFileSync(join(root, "precious.txt"), "utf8"), "keep me");
      assert.equal([...after.keys()].filter((p) => p.startsWith(`${out}/`)).sort(), [
        join(out, MARKER),
        join(out, "static"),
        join(out, "static", "a"),
      ]);
    }),
    { ...fcParams, numRuns: Math.min(fcParams.numRuns, 200) },
  );
});

test("a forged marker is not taken for the build's own; files it names are never removed", () => {
  const out = join(work, "forged");
  mkdirSync(out);
  writeFileSync(join(out, "notes.txt"), "mine");
  for (
    const forged of [
      '{"files":"notes.txt"}',
      "{}",
      '{"made_by":"npm run build (registry endpoint)","files":["../notes.txt"]}',
    ]
  ) {
    writeFileSync(join(out, MARKER), forged);
    assert.match(outputProblems(out, guard).join("\n"), /is not one this build wrote/, forged);
  }
});

test("a root, the home folder, the repository and its ancestors are refused before anything is read", () => {
  for (
    const [dir, why] of [["/", "a file-system root"], [guard.home, "the home folder"], [
      guard.repository,
      "the repository",
    ], [dirname(guard.repository), "a folder that holds it"]] as const
  ) {
    const problems = outputProblems(dir, guard);
    assert.is(problems.length, 1, dir);
    assert.match(problems[0]!, new RegExp(`^--out ${dir.replaceAll("/", "\\/")}: .*${why}`));
  }
  assert.equal(outputProblems(join(guard.repository, "dist"), guard), []);
});

test("npm run build: --out /, the home folder or the repository is one line, exit 1, nothing walked or written", async () => {
  const env = cleanEnv({ REGISTRY_SOURCE: "fixtures/registry.json", BASE_URL: "https://registry.example.org" });
  for (const dir of ["/", homedir(), resolve("."), dirname(resolve("."))]) {
    const done = await buildFirst(["--out", dir], { env });
    assert.is(done.code, 1, dir);
    assert.is(done.stderr.trim().split("\n").length, 1, done.stderr);
    assert.match(
      done.stderr,
      /^--out .*: (a file-system root|the home folder|the repository or a folder that holds it);/,
    );
    assert.not.match(done.stderr, /\n\s+at /);
  }
});

test.run();
