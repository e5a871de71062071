/**
 * Unknown keys that nearly spell a known one (docs/choices.md). An unknown key is internal and never
 * published, so a misspelled `suppressed` would publish a vault the operator meant to withhold:
 * when a key's name is in doubt, the source is refused. Web standards only.
 */

/** What an unknown key nearly spells: a known key, or a way of saying "suppressed". */
export type NearMiss = { readonly kind: "known"; readonly meant: string } | { readonly kind: "suppress" };

/** The word whose near spellings, anywhere in a vault's unknown key, are refused. */
const SUPPRESS = "suppress";
/** Edits (insert, delete, substitute, transpose) within which a key still "nearly spells" a word. */
const MAX_EDITS = 2;
/** Known keys shorter than this are matched only by their folded form, not by edit distance. */
const MIN_EDIT_LENGTH = 5;

/**
 * A key as compared: Unicode NFKC, case folded (upper then lower, so `ß` is `ss`), without `_`,
 * `-`, spaces, other dashes and connectors, and invisible format characters.
 *
 * @example
 * foldKey("Is_Suppressed") === "issuppressed"; foldKey("ｓｕｐｐｒｅｓｓｅｄ") === "suppressed";
 */
export function foldKey(key: string): string {
  return key.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC").replace(/[\p{Pd}\p{Pc}\p{Cf}\s]/gu, "");
}

/**
 * A judge of one level's unknown keys against that level's `known` keys, remembering each verdict,
 * so that a source whose 100,000 rows repeat a few internal key names computes each verdict once.
 * With `refuseSuppress`, a key whose folded form holds `suppress` within two edits is refused too.
 */
export function nearMissJudge(known: readonly string[], refuseSuppress: boolean): (key: string) => NearMiss | undefined {
  const folded = known.map((k) => [k, foldKey(k)] as const);
  const verdicts = new Map<string, NearMiss | undefined>();
  return (key) => {
    if (verdicts.has(key)) return verdicts.get(key);
    const verdict = judge(foldKey(key), folded, refuseSuppress);
    verdicts.set(key, verdict);
    return verdict;
  };
}

function judge(key: string, known: readonly (readonly [string, string])[], refuseSuppress: boolean): NearMiss | undefined {
  for (const [name, fold] of known) {
    if (key === fold) return { kind: "known", meant: name };
    if (fold.length >= MIN_EDIT_LENGTH && Math.abs(key.length - fold.length) <= MAX_EDITS && editDistance(key, fold) <= MAX_EDITS) return { kind: "known", meant: name };
  }
  if (refuseSuppress && holdsNearly(key, SUPPRESS)) return { kind: "suppress" };
  return undefined;
}

/** True when some run of `text` is within two edits of `word` (`is_supprest_flag` holds `suppress`). */
export function holdsNearly(text: string, word: string): boolean {
  if (text.includes(word)) return true;
  const longest = word.length + MAX_EDITS;
  const letters = letterCounts(word);
  for (let start = 0; start < text.length; start++) {
    // Each edit costs at most one of the word's letters, so a run within reach keeps all but two:
    // a cheap count that spares the distance on almost every run of a long key.
    if (sharedLetters(text.slice(start, start + longest), letters) < word.length - MAX_EDITS) continue;
    for (let length = word.length - MAX_EDITS; length <= longest && start + length <= text.length; length++) {
      if (editDistance(text.slice(start, start + length), word) <= MAX_EDITS) return true;
    }
  }
  return false;
}

function letterCounts(word: string): ReadonlyMap<string, number> {
  const counts = new Map<string, number>();
  for (const c of word) counts.set(c, (counts.get(c) ?? 0) + 1);
  return counts;
}

/** How many letters of a word, given as its `letters` counts, `run` holds. */
function sharedLetters(run: string, letters: ReadonlyMap<string, number>): number {
  const left = new Map(letters);
  let shared = 0;
  for (const c of run) {
    const n = left.get(c) ?? 0;
    if (n > 0) {
      left.set(c, n - 1);
      shared++;
    }
  }
  return shared;
}

/**
 * Damerau-Levenshtein distance, unrestricted (an edit may touch a transposed pair: "uasppressed"
 * is 2 from "suppressed"), by Lowrance and Wagner's algorithm.
 */
export function editDistance(a: string, b: string): number {
  const inf = a.length + b.length;
  const width = b.length + 2;
  const d = new Array<number>((a.length + 2) * width).fill(0);
  const at = (i: number, j: number): number => i * width + j;
  d[at(0, 0)] = inf;
  for (let i = 0; i <= a.length; i++) {
    d[at(i + 1, 0)] = inf;
    d[at(i + 1, 1)] = i;
  }
  for (let j = 0; j <= b.length; j++) {
    d[at(0, j + 1)] = inf;
    d[at(1, j + 1)] = j;
  }
  const lastRow = new Map<string, number>();
  for (let i = 1; i <= a.length; i++) {
    let lastMatchColumn = 0;
    for (let j = 1; j <= b.length; j++) {
      const i1 = lastRow.get(b[j - 1] as string) ?? 0;
      const j1 = lastMatchColumn;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      if (cost === 0) lastMatchColumn = j;
      d[at(i + 1, j + 1)] = Math.min(
        d[at(i, j)]! + cost,
        d[at(i + 1, j)]! + 1,
        d[at(i, j + 1)]! + 1,
        d[at(i1, j1)]! + (i - i1 - 1) + 1 + (j - j1 - 1),
      );
    }
    lastRow.set(a[i - 1] as string, i);
  }
  return d[at(a.length + 1, b.length + 1)]!;
}
