import { CONFUSABLE_MAPPINGS } from "./confusables.ts";

/** Each character's confusable skeleton, read on first use: a program that never folds (the server) pays nothing. */
let skeletons: ReadonlyMap<string, string> | undefined;

function skeletonTable(): ReadonlyMap<string, string> {
  return skeletons ??= new Map(
    CONFUSABLE_MAPPINGS.trim().split("\n").map((line) => {
      const [source, target] = line.split(";") as [string, string];
      return [
        String.fromCodePoint(parseInt(source, 16)),
        String.fromCodePoint(...target.split(" ").map((h) => parseInt(h, 16))),
      ];
    }),
  );
}

/** Made on first use, from a string (see `unshownEscaped` in source.ts): code that never folds never compiles it. */
let ignorable: RegExp | undefined;

/**
 * What a reader does not see as a letter of its own: combining marks (`ṡ`, `u̴`, Thai and Hebrew
 * points), white space, the Braille blank U+2800 and the Arabic tatweel U+0640. UTS #39 takes its
 * skeleton of the NFD form; marks left there would keep `su\u0323ppressed` two edits from `suppressed`.
 */
const UNSEEN = /[\p{M}\p{White_Space}\u2800\u0640]/gu;
/** Cherokee: the one script whose case folding maps to capitals (CaseFolding.txt), which the skeletons map. */
const CHEROKEE = /[\u13a0-\u13f5\u13f8-\u13fd\uab70-\uabbf]/gu;

/** Full case folding from the engine's mappings: upper then lower (`ß` to `ss`, `ſ` to `s`), Cherokee back to capitals. */
function caseFold(text: string): string {
  return text.toUpperCase().toLowerCase().replace(CHEROKEE, (c) => c.toUpperCase());
}

/**
 * A key name folded for comparison: NFKC, default-ignorable code points removed, each character mapped to its
 * confusable skeleton, or else its case folding's (the skeletons are of either case: Greek `Ε` is `E` but `ε` is `ɛ`),
 * case folded again (a skeleton may be a capital: `0` is `O`), and `_`, `-` and spaces removed. `ｓｕｐｐｒｅｓｓｅｄ`,
 * `ѕuppressed` (Cyrillic `ѕ`), `SUPPRΕSSΕD` (Greek `Ε`) and `sup\u200bpressed` all fold to `suppressed`.
 *
 * @example
 * ```ts
 * fold("Last-Synced"); // "lastsynced"
 * ```
 */
export function fold(name: string): string {
  const table = skeletonTable();
  let skeleton = "";
  ignorable ??= new RegExp("\\p{Default_Ignorable_Code_Point}", "gu");
  for (const c of name.normalize("NFKC").replace(ignorable, "").normalize("NFD").replace(UNSEEN, "")) {
    const own = table.get(c);
    if (own !== undefined) skeleton += own;
    else for (const folded of caseFold(c)) skeleton += table.get(folded) ?? folded;
  }
  return caseFold(skeleton).normalize("NFD").replace(UNSEEN, "").replace(/[_\- ]/g, "");
}
