/**
 * Unknown keys that nearly spell a known one (docs/choices.md). An unknown key is internal and never
 * published, so a misspelled `suppressed` would publish a vault the operator meant to withhold:
 * when a key's name is in doubt, the source is refused. Web standards only.
 */

import { LOOKALIKES } from "./lookalikes.ts";

/**
 * What an unknown key nearly spells: a known key or a way of saying "suppressed" (both refused),
 * or, on a vault or an edge, a short known key within one edit (`notes`, `types`: a warning).
 */
export type NearMiss =
  | { readonly kind: "known"; readonly meant: string }
  | { readonly kind: "suppress" }
  | { readonly kind: "short"; readonly meant: string }
  | { readonly kind: "unjudged" };

/** What is left of MAX_UNKNOWN_KEY_CHARACTERS for one source, shared by its levels' judges. */
export interface JudgeBudget {
  left: number;
}

/** The word whose near spellings, anywhere in a vault's unknown key, are refused. */
const SUPPRESS = "suppress";
/** Edits (insert, delete, substitute, transpose) within which a key still "nearly spells" a word. */
const MAX_EDITS = 2;
/** Known keys shorter than this are matched only by their folded form, not by edit distance. */
const MIN_EDIT_LENGTH = 5;
/** Known keys of this many letters or more (and fewer than MIN_EDIT_LENGTH) are short: one edit warns. */
const MIN_SHORT_LENGTH = 3;

/**
 * What a key loses when folded: everything but letters and digits (punctuation, symbols, spaces,
 * combining marks: `śúṕṕŕéśśéd` is each letter and a mark once decomposed), and of those every
 * modifier letter (`ʼ`, `ˈ`: they draw as marks) and every default-ignorable one (Hangul fillers).
 * Control, format, private-use, unassigned and noncharacter code points go with the rest; a
 * surrogate half stays, so that two halves an ignored character kept apart can join (see
 * `stripIgnored`). Each would otherwise cost an edit, and three put a spelling of `suppressed` out
 * of reach.
 */
const IGNORED_IN_KEYS = /[^\p{L}\p{N}\p{Cs}]|[\p{Lm}\p{Default_Ignorable_Code_Point}]/gu;
/** Every character of LOOKALIKES, and the letter each reads as. */
const LOOKALIKE = new RegExp(classOf(Object.values(LOOKALIKES).join("")), "gu");
const LETTER_OF = new Map(Object.entries(LOOKALIKES).flatMap(([letter, chars]) => [...chars].map((c) => [c, letter] as const)));
/** A `u` regex character class of each code point of `chars`, each written `\u{…}` so none is special there. */
function classOf(chars: string): string {
  return `[${Array.from(chars, (c) => `\\u{${(c.codePointAt(0) as number).toString(16)}}`).join("")}]`;
}
/** A surrogate half that is not part of a pair (a `u` regex reads a pair as one code point). */
const LONE_HALF = /[\ud800-\udfff]/gu;

/**
 * A key as compared: Unicode NFKD, case folded (upper then lower, so `ß` is `ss`), each letter of
 * LOOKALIKES read as the letter it shows, and only letters and digits kept (not modifier letters
 * nor invisible ones), until none of that changes it; then without any lone surrogate half.
 *
 * @example
 * foldKey("Is_Suppressed") === "issuppressed"; foldKey("ｓｕｐｐｒｅｓｓｅｄ") === "suppressed";
 * foldKey("ꞩᵾᵽᵽressed") === "suppressed";
 */
export function foldKey(key: string): string {
  // Stripped and folded again until stable: a removed joiner (U+034F) may have kept a letter and
  // its mark apart, and a removed character the two halves of a pair, whose character then folds
  // (U+1D400 is "A"; U+1F11F is "(P)", whose parentheses go in the next round). Each round after
  // the first needs a pair joined in the one before, so the rounds are fewer than the key's halves
  // (no character of Unicode 17 needs a third).
  let folded = caseFold(key);
  for (;;) {
    const next = caseFold(stripIgnored(readLookalikes(folded)));
    if (next === folded) return next.replace(LONE_HALF, "");
    folded = next;
  }
}

/** `text` with each letter of LOOKALIKES replaced by the letter it shows. */
function readLookalikes(text: string): string {
  return text.replace(LOOKALIKE, (c) => LETTER_OF.get(c) as string);
}

/** Whether a character, once folded, is nothing but what folding strips (U+1BCA0 is; U+1F11F, `(P)`, is not). */
function foldsAway(character: string): boolean {
  return readLookalikes(caseFold(character)).replace(IGNORED_IN_KEYS, "") === "";
}

/** NFKD (a letter and its marks apart), then upper and lower case (so `ß` is `ss`), then NFKD again. */
function caseFold(text: string): string {
  return text.normalize("NFKD").toUpperCase().toLowerCase().normalize("NFKD");
}

// Stryker disable next-line Regex: it only picks the fast path below, and the loop gives the same text without surrogates
const SURROGATE = /[\ud800-\udfff]/;

/**
 * `text` without the characters IGNORED_IN_KEYS names. Two halves of a surrogate pair that only an
 * ignored character kept apart join once it is gone, and are judged as the character they make
 * (U+1BCA0 split by U+00AD is still invisible): in one pass, linear, as if stripped until stable.
 * Lone halves stay (foldKey drops them last). Exported for its law in `test/key-names.test.ts`.
 */
export function stripIgnored(text: string): string {
  if (!SURROGATE.test(text)) return text.replace(IGNORED_IN_KEYS, "");
  const kept: string[] = [];
  for (const unit of text.replace(IGNORED_IN_KEYS, "")) { // by code point: a pair, or a lone half
    const last = kept[kept.length - 1];
    const c = unit.charCodeAt(0);
    // The last code unit kept: a high half here is a lone one (a pair ends with its low half).
    const before = last === undefined ? NaN : last.charCodeAt(last.length - 1);
    const lowAfterHigh = c >= 0xdc00 && c <= 0xdfff && before >= 0xd800 && before <= 0xdbff;
    if (unit.length === 2) {
      if (!foldsAway(unit)) kept.push(unit); // a pair that a removed character kept apart
    } else if (lowAfterHigh) {
      // A lone low half after a lone high half, joined here so that nesting costs no extra round of
      // foldKey's loop: one pass is stripping until stable (its law in key-names.test.ts).
      kept.pop();
      if (!foldsAway(`${last}${unit}`)) kept.push(`${last}${unit}`);
    } else {
      kept.push(unit);
    }
  }
  return kept.join("");
}

/**
 * Whether a key's name reads plainly: once decomposed (NFD) and without its accents (the marks of
 * U+0300 to U+0362, which Latin letters decompose to), only printable ASCII, punctuation and
 * spaces (`geprüft`, `owner’s approval`). Not `größe`, `非公開`, a combining letter (U+0363 on, a
 * small letter drawn above another) nor a format control: such a name may say "suppressed" in a
 * way no table lists (another script or language, symbols drawn as letters, controls that reorder
 * what a reader sees), so a vault key so named that says yes is refused rather than guessed at.
 */
export function readsPlainly(key: string): boolean {
  return PLAIN.test(key.normalize("NFD"));
}
const PLAIN = /^[\x20-\x7e\p{P}\p{Zs}\u0300-\u0362]*$/u;

/** Whether a value says yes: `true`, `1`, or `"true"`, `"yes"`, `"y"`, `"on"` or `"1"` in any case, spaces around. */
export function saysYes(value: unknown): boolean {
  return value === true || value === 1 || (typeof value === "string" && /^\s*(?:true|yes|y|on|1)\s*$/i.test(value));
}

const UNJUDGED: NearMiss = { kind: "unjudged" };

/** Which further verdicts a level's judge gives besides "known". */
export interface JudgeOptions {
  /** Refuse a key whose folded form holds `suppress` within two edits (a vault's keys). */
  readonly suppress?: boolean;
  /** Warn of a key within one edit of a known key of 3 or 4 letters (a vault's and an edge's keys). */
  readonly short?: boolean;
}

/**
 * A judge of one level's unknown keys against that level's `known` keys, remembering each verdict,
 * so that a source whose 100,000 rows repeat a few internal key names computes each verdict once.
 * The cost of a verdict is linear in the key's decomposed length, which each new key takes from
 * `budget`: a key it cannot pay for is "unjudged" (and refused, since it might say "suppressed").
 */
export function nearMissJudge(known: readonly string[], options: JudgeOptions, budget: JudgeBudget): (key: string) => NearMiss | undefined {
  const folded = known.map((k) => [k, foldKey(k)] as const);
  // "none" stands for no verdict, so that a remembered key costs one lookup.
  const verdicts = new Map<string, NearMiss | "none">();
  return (key) => {
    const remembered = verdicts.get(key);
    if (remembered !== undefined) return remembered === "none" ? undefined : remembered;
    const cost = key.normalize("NFKD").length;
    if (cost > budget.left) {
      verdicts.set(key, UNJUDGED);
      return UNJUDGED;
    }
    budget.left -= cost;
    const verdict = judge(foldKey(key), folded, options);
    verdicts.set(key, verdict ?? "none");
    return verdict;
  };
}

function judge(key: string, known: readonly (readonly [string, string])[], options: JudgeOptions): NearMiss | undefined {
  // The distance is computed only where the lengths allow it, so a long key costs nothing here.
  const within = (fold: string, edits: number): boolean => Math.abs(key.length - fold.length) <= edits && editDistance(key, fold) <= edits;
  for (const [name, fold] of known) {
    if (key === fold || (fold.length >= MIN_EDIT_LENGTH && within(fold, MAX_EDITS))) return { kind: "known", meant: name };
  }
  if (options.suppress === true && holdsNearly(key, SUPPRESS)) return { kind: "suppress" };
  if (options.short === true) {
    for (const [name, fold] of known) {
      // A known key of MIN_EDIT_LENGTH letters or more within one edit was judged "known" above.
      if (fold.length >= MIN_SHORT_LENGTH && within(fold, 1)) return { kind: "short", meant: name };
    }
  }
  return undefined;
}

/**
 * True when some run of `text` is within two edits of `word` (`is_supprest_flag` holds `suppress`):
 * the distance below with a free start and end in `text` (Sellers), one row of `word.length + 1`
 * cells per character of `text`, so linear in it. Rows older than three are never read: a
 * transposition reaching further back costs more than two edits.
 */
export function holdsNearly(text: string, word: string): boolean {
  const m = word.length;
  const over = MAX_EDITS + 1; // every figure is capped here: only "within two" matters
  const rows = [0, 1, 2, 3].map(() => new Int32Array(m + 1));
  for (let j = 0; j <= m; j++) (rows[0] as Int32Array)[j] = Math.min(j, over); // the empty run
  if (m <= MAX_EDITS) return true;
  // A run within two edits keeps all but two of the word's letters: a text with fewer of them
  // anywhere holds none (a key in another script costs one pass, not the table).
  if ((text.match(lettersOf(word))?.length ?? 0) < m - MAX_EDITS) return false;
  // For each letter of `word`, the last row whose text character equals it (0: none yet).
  const lastRowOf = new Int32Array(m);
  for (let i = 1; i <= text.length; i++) {
    const row = rows[i & 3] as Int32Array;
    const up = rows[(i - 1) & 3] as Int32Array;
    const c = text.charCodeAt(i - 1);
    row[0] = 0; // a run may start anywhere
    let lastMatchColumn = 0;
    for (let j = 1; j <= m; j++) {
      const same = word.charCodeAt(j - 1) === c;
      let best = Math.min((up[j - 1] as number) + (same ? 0 : 1), (up[j] as number) + 1, (row[j - 1] as number) + 1);
      const k = lastRowOf[j - 1] as number;
      const l = lastMatchColumn;
      if (k > 0 && l > 0 && i - k <= MAX_EDITS) best = Math.min(best, ((rows[(k - 1) & 3] as Int32Array)[l - 1] as number) + (i - k - 1) + 1 + (j - l - 1));
      row[j] = Math.min(best, over);
      if (same) lastMatchColumn = j;
    }
    if ((row[m] as number) <= MAX_EDITS) return true;
    for (let j = 1; j <= m; j++) if (word.charCodeAt(j - 1) === c) lastRowOf[j - 1] = i;
  }
  return false;
}

/** Per word, a pattern of each of its letters. */
const LETTERS_OF = new Map<string, RegExp>();

function lettersOf(word: string): RegExp {
  return LETTERS_OF.get(word) ?? rememberLettersOf(word);
}

function rememberLettersOf(word: string): RegExp {
  const pattern = new RegExp(classOf(word), "gu");
  LETTERS_OF.set(word, pattern);
  return pattern;
}

/** Damerau-Levenshtein distance, unrestricted (see `prefixDistances`). */
export function editDistance(a: string, b: string): number {
  return prefixDistances(a, b)[a.length] as number;
}

/**
 * The Damerau-Levenshtein distance, unrestricted (an edit may touch a transposed pair: "uasppressed"
 * is 2 from "suppressed"), from each prefix of `a` (index: its length) to `b`, by Lowrance and
 * Wagner's algorithm: each cell of its table is the distance between two prefixes.
 */
function prefixDistances(a: string, b: string): number[] {
  const inf = a.length + b.length;
  const width = b.length + 2;
  // Stryker disable next-line ArrayDeclaration: every cell read is written first; the size only keeps the array packed
  const d = new Array<number>((a.length + 2) * width).fill(0);
  const at = (i: number, j: number): number => i * width + j;
  d[at(0, 0)] = inf;
  for (let i = 0; i <= a.length; i++) {
    // Stryker disable next-line ArithmeticOperator: the last two cells of this column are never read
    d[at(i + 1, 0)] = inf;
    d[at(i + 1, 1)] = i;
  }
  for (let j = 0; j <= b.length; j++) {
    // Stryker disable next-line ArithmeticOperator: the last two cells of this row are never read
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
  return Array.from({ length: a.length + 1 }, (_, i) => d[at(i + 1, b.length + 1)]!);
}
