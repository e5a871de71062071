/**
 * The near-miss machinery of `contract/key-names.ts` against references written apart from it:
 * edit distance by search over single edits, "holds nearly" over every run of the text, folding
 * by its stated invariances, and each judge's verdicts at the edges of its length rules.
 */
import fc from "fast-check";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { editDistance, foldKey, holdsNearly, nearMissJudge, readsPlainly, saysYes, stripIgnored } from "../contract/key-names.ts";
import { LOOKALIKES } from "../contract/lookalikes.ts";
import { fcParams } from "./arbitraries.ts";

/** Every string one edit from `s`: insert, delete, replace (letters of `alphabet`), swap neighbours. */
function oneEdit(s: string, alphabet: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i <= s.length; i++) {
    for (const c of alphabet) {
      out.add(s.slice(0, i) + c + s.slice(i));
      if (i < s.length) out.add(s.slice(0, i) + c + s.slice(i + 1));
    }
    if (i < s.length) out.add(s.slice(0, i) + s.slice(i + 1));
    if (i + 1 < s.length) out.add(s.slice(0, i) + s[i + 1] + s[i] + s.slice(i + 2));
  }
  return out;
}

/**
 * The fewest edits (insert, delete, replace, swap of neighbours, in any order) from `a` to `b`,
 * capped at 4: breadth-first from both ends, two edits from `a` and one from `b`. Every edit can be
 * undone by one, so the two balls meet exactly when the distance is within their radii.
 */
function cappedDistance(a: string, b: string): number {
  if (a === b) return 0;
  const alphabet = [...new Set(a + b)];
  const fromA = [new Set([a])];
  for (let r = 1; r <= 2; r++) fromA.push(new Set([...fromA[r - 1]!].flatMap((s) => [...oneEdit(s, alphabet)])));
  const fromB = [new Set([b]), oneEdit(b, alphabet)];
  for (let d = 1; d <= 3; d++) {
    for (let i = 0; i <= Math.min(d, 2); i++) {
      const j = d - i;
      if (j > 1) continue;
      for (const s of fromA[i]!) if (fromB[j]!.has(s)) return d;
    }
  }
  return 4;
}

const small = (letters: string, maxLength: number) => fc.string({ unit: fc.constantFrom(...letters), maxLength });

test("law: editDistance is the fewest single edits in any order (unrestricted Damerau-Levenshtein), symmetric", () => {
  fc.assert(
    fc.property(small("abc", 6), small("abc", 6), (a, b) => {
      assert.is(Math.min(editDistance(a, b), 4), cappedDistance(a, b), `${a} / ${b}`);
      assert.is(editDistance(a, b), editDistance(b, a));
    }),
    { ...fcParams, numRuns: fcParams.numRuns * 4 },
  );
  // Whole distances past the cap, and an edit inside a transposed pair (unrestricted).
  assert.is(editDistance("", "abcdef"), 6);
  assert.is(editDistance("abcdef", "fedcba"), 5);
  assert.is(editDistance("ca", "abc"), 2);
  assert.is(editDistance("uasppressed", "suppressed"), 2);
});

/** `word` with `edits` applied in turn (positions taken modulo the length): the region where "within two" is decided. */
const edited = fc
  .tuple(small("abcd", 7), fc.array(fc.tuple(fc.constantFrom("swap", "swap", "delete", "insert", "replace"), fc.nat(), fc.constantFrom("a", "b", "c", "d")), { maxLength: 3 }))
  .map(([word, edits]) => {
    let text = word;
    for (const [edit, at, c] of edits) {
      const i = at % (text.length + 1);
      if (edit === "swap" && i + 1 < text.length) text = text.slice(0, i) + text[i + 1] + text[i] + text.slice(i + 2);
      else if (edit === "delete") text = text.slice(0, i) + text.slice(i + 1);
      else if (edit === "insert") text = text.slice(0, i) + c + text.slice(i);
      else if (edit === "replace") text = text.slice(0, i) + c + text.slice(i + 1);
    }
    return { word, text };
  });

test("law: holdsNearly(text, word) exactly when some run of the text is within two edits of the word", () => {
  const holdsByRuns = (text: string, word: string): boolean => {
    for (let i = 0; i <= text.length; i++) for (let j = i; j <= text.length; j++) if (cappedDistance(text.slice(i, j), word) <= 2) return true;
    return false;
  };
  fc.assert(
    fc.property(small("abc", 9), small("abc", 6), (text, word) => assert.is(holdsNearly(text, word), holdsByRuns(text, word), `${text} / ${word}`)),
    { ...fcParams, numRuns: fcParams.numRuns * 4 },
  );
  fc.assert(
    fc.property(edited, ({ word, text }) => {
      assert.is(holdsNearly(text, word), holdsByRuns(text, word), `${text} / ${word}`);
      assert.is(Math.min(editDistance(text, word), 4), cappedDistance(text, word), `${text} / ${word}`);
    }),
    { ...fcParams, numRuns: fcParams.numRuns * 4 },
  );
  // Near spellings that only a transposition brings within two edits (found by search against the rule without it).
  for (const text of ["spupess", "spuprees", "spuperss", "suprspess", "ssuppeurss"]) assert.ok(holdsNearly(text, "suppress"), text);
  // Far spellings that a transposition term with the wrong row or column would bring within two (found by search against such copies).
  for (const text of ["seuppprsess", "sruprssr", "exsxuperss", "psupspepsx"]) {
    assert.not.ok(holdsByRuns(text, "suppress"), text);
    assert.not.ok(holdsNearly(text, "suppress"), text);
  }
  assert.ok(holdsNearly("is_supprest_flag", "suppress"));
  assert.ok(holdsNearly("xxsupresxx", "suppress"));
  assert.not.ok(holdsNearly("xxsuprxx", "suppress"));
  assert.not.ok(holdsNearly("", "abc"));
  assert.ok(holdsNearly("", "ab"), "a word of two letters is two deletions from any run, the empty one too");
});

/** Characters a key loses when folded, one of each kind, a pair among them (U+E0100). */
const IGNORED = ["_", "-", " ", "\t", "\u2014", "\u203f", "\u00ad", "\u200b", "\u034f", "\u115f", "\u3164", "\ufe0f", "\u{e0100}", "\u17b4", "\u007f", "\u0085", "\u0001"];

test("law: folding ignores every ignorable character inserted anywhere, even between the halves of a pair, and is idempotent", () => {
  const key = fc.string({ unit: fc.constantFrom("s", "U", "p", "ß", "ｅ", "\u{1d400}", "\u{1f600}", "é", "e\u0301", "1"), maxLength: 8 });
  fc.assert(
    fc.property(key, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...IGNORED)), { maxLength: 4 }), (k, inserts) => {
      let spread = k;
      for (const [at, c] of inserts) {
        const i = at % (spread.length + 1); // a UTF-16 index: may split a surrogate pair
        spread = spread.slice(0, i) + c + spread.slice(i);
      }
      assert.is(foldKey(spread), foldKey(k), JSON.stringify(spread));
      assert.is(foldKey(foldKey(k)), foldKey(k));
    }),
    { ...fcParams, numRuns: fcParams.numRuns * 4 },
  );
  assert.is(foldKey("Is_Suppressed"), "issuppressed");
  assert.is(foldKey("ｓｕｐｐｒｅｓｓｅｄ"), "suppressed");
  assert.is(foldKey("STRASSE"), foldKey("straße"));
  assert.is(foldKey("\ud835\u00ad\udc00"), foldKey("\u{1d400}"), "a pair split by a soft hyphen is the letter it makes");
  assert.is(foldKey("\udb40\u00ad\udd00a"), "a", "a pair split by a soft hyphen that makes an ignorable character is dropped");
  assert.is(foldKey("\udb40\udb40\u00ad\udd00\udd00a"), "a", "pairs nested around a soft hyphen, each ignorable once joined, go one after the other");
  assert.is(foldKey("\ud835\udb40\u00ad\udd00\udc00x"), "ax", "an ignorable pair nested in a letter's pair goes, and the letter joins");
  assert.is(foldKey("\ud835x"), "x", "a lone half is no letter, and goes");
  assert.is(foldKey("x\udc00"), "x", "a lone low half goes");
  assert.is(foldKey("\udc00\ud835"), "", "halves in the wrong order make nothing");
  assert.is(foldKey("s\ue000u\ue000p\ue000pressed"), "suppressed", "private use goes");
  assert.is(foldKey("s\uffffu\u0378p\u{10ffff}pressed"), "suppressed", "noncharacters and unassigned code points go");
});

/** Calls `check` on every string of 1 to `maxLength` of `units`, and says how many there were. */
function everyString(units: readonly string[], maxLength: number, check: (s: string) => void): number {
  let strings = [""];
  let checked = 0;
  for (let length = 1; length <= maxLength; length++) {
    strings = strings.flatMap((s) => units.map((u) => s + u));
    for (const s of strings) check(s);
    checked += strings.length;
  }
  return checked;
}

test("law: over every string of up to six halves and soft hyphens, folding strips ignorable characters as if until none is left, then lone halves", () => {
  // The pairs these halves make, and whether each is ignorable: U+E0000, U+E0100 and U+E03FF are
  // default-ignorable, U+10100 is punctuation, U+103FF unassigned; U+10000 is a letter.
  const ignorable = new Set(["\u00ad", "\u{e0000}", "\u{e0100}", "\u{e03ff}", "\u{10100}", "\u{103ff}"]);
  const stripOnce = (text: string): string => [...text].filter((c) => !ignorable.has(c)).join("");
  const stripUntilStable = (text: string): string => {
    for (let next = stripOnce(text); next !== text; next = stripOnce(text)) text = next;
    return [...text].filter((c) => c.length === 2 || c < "\ud800" || c > "\udfff").join("");
  };
  const checked = everyString(["\ud800", "\udb40", "\udc00", "\udd00", "\udfff", "\u00ad"], 6, (s) => {
    const want = stripUntilStable(s);
    if (foldKey(s) !== want) assert.is(JSON.stringify(foldKey(s)), JSON.stringify(want), JSON.stringify(s));
  });
  assert.is(checked, 6 + 36 + 216 + 1296 + 7776 + 46656);
  assert.is(foldKey("\ud800\udb40\udb40\u00ad\udd00\udd00"), "", "a lone half keeps apart from a half that is not its pair, and goes");
});

test("law: over every string of up to five halves (the ends of both ranges among them) and soft hyphens, one pass of stripIgnored is stripping until stable, lone halves kept", () => {
  // The pairs: U+10000 is a letter; U+10100 punctuation; U+103FF unassigned; U+E0000, U+E0100 and
  // U+E03FF default-ignorable; U+10FC00, U+10FD00 private use and U+10FFFF a noncharacter.
  const kept = new Set(["\u{10000}"]);
  const stripOnce = (text: string): string => [...text].filter((c) => kept.has(c) || (c.length === 1 && c >= "\ud800" && c <= "\udfff")).join("");
  const stripUntilStable = (text: string): string => {
    for (let next = stripOnce(text); next !== text; next = stripOnce(text)) text = next;
    return text;
  };
  const checked = everyString(["\ud800", "\udb40", "\udbff", "\udc00", "\udd00", "\udfff", "\u00ad"], 5, (s) => {
    const want = stripUntilStable(s);
    if (stripIgnored(s) !== want) assert.is(JSON.stringify(stripIgnored(s)), JSON.stringify(want), JSON.stringify(s));
  });
  assert.is(checked, 7 + 49 + 343 + 2401 + 16807);
  assert.is(stripIgnored("a\u00adb"), "ab", "no halves: the same");
});

test("law: every character beyond the first plane that folding changes folds the same with a soft hyphen between its halves", () => {
  // Such a character is joined only once the hyphen is stripped, and must then be folded and
  // stripped again: U+1F11F, PARENTHESIZED LATIN CAPITAL LETTER P, is "(p)" and then "p".
  // Those the fold may change: every character that NFKD, case folding or stripping changes, the
  // unassigned and private-use ones (all stripped alike) only in the first supplementary plane.
  const stripped = /\p{Co}|\p{Cn}/u;
  let checked = 0;
  for (let cp = 0x10000; cp <= 0x10ffff; cp++) {
    const c = String.fromCodePoint(cp);
    if (foldKey(c) === c || (cp >= 0x20000 && stripped.test(c))) continue;
    const split = `${c[0]}\u00ad${c[1]}`;
    if (foldKey(split) !== foldKey(c)) assert.is(foldKey(split), foldKey(c), `U+${cp.toString(16).toUpperCase()}`);
    checked++;
  }
  assert.ok(checked > 30_000, `${checked} checked`);
  for (const c of ["\u{1d400}", "\u{1f11f}", "\u{10400}", "\u{e0100}", "\u{1d15e}", "\u{1d216}", "\u{10783}", "\u{1f600}"]) assert.is.not(foldKey(c), c, c);
  assert.is(foldKey("\ud834\u00ad\ude16"), "r", "U+1D216, a symbol drawn as R, joined and then read as r");
  assert.is(foldKey("\ud801\u00ad\udf83"), "æ", "U+10783, a modifier letter, joined and then decomposed before it could be stripped");
  assert.is(foldKey("su\ud83c\u00ad\udd1f\ud83c\u00ad\udd1f\ud83c\u00ad\udd21essed"), "suppressed");
});

test("a letter drawn with a stroke or a hook, a letter of another script or a symbol that shows as a letter of `suppress`, and a modifier letter or symbol between letters, fold to the letters shown", () => {
  const shown: [string, string][] = [
    ["ꞩᵾᵽᵽressed", "suppressed"], // S with oblique stroke, small capital U with stroke, P with stroke: no decomposition
    ["ʉɍɇȿʂ", "uress"], ["ѕuррrеѕѕеd", "suppressed"], // Cyrillic dze, er, ie
    ["ʂᴜᴘᴘʀᴇꜱꜱᴇd", "suppressed"], // small capitals and S with hook
    ["ΡΥΕ", "pue"], ["ꓢꓴꓑꓣꓰ", "supre"], ["∪⍴℮", "upe"], ["ꮪꮜꮲꮢꭼ", "supre"], ["𐊖𑣘𐊕𝈖𐊆", "supre"],
    ["sup\u02bcpre\ua78fss\u2219ed", "suppressed"], // modifier apostrophe, sinological dot, bullet operator
    ["s\u2800u%p+p~r^e`s\u02c8s\u0294e\ua78cd", "suppressed"], // Braille blank, symbols, modifier letters, Latin letters drawn as ' and ?
    ["$uppre$$ed", "suppressed"], ["§UPPRE§§€D", "suppressed"], // symbols drawn as s and e
    [" \u1de4 \u0367 \u1dee \u1dee \u036c \u0364 \u1de4 \u1de4 \u0364 \u0369", "suppresse"], // combining small letters, each above a space (d is not in the table)
    ["note", "note"], ["статус", "статус"], ["значение", "значeниe"],
  ];
  for (const [key, folded] of shown) assert.is(foldKey(key), folded, key);
});

test("law: any letter of `suppressed` written as any lookalike of it, in either case, folds to that letter", () => {
  const word = "suppressed";
  const lookalikes = Object.entries(LOOKALIKES).filter(([letter]) => letter !== "").flatMap(([letter, chars]) => [...chars].map((c) => [letter, c] as const));
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(word.length - 1), fc.constantFrom(...lookalikes), fc.boolean()), { maxLength: word.length }), (swaps) => {
      const letters = [...word];
      for (const [at, [letter, c], upper] of swaps) {
        const i = letters.findIndex((l, k) => k >= at && l === letter);
        if (i >= 0) letters[i] = upper ? c.toUpperCase() : c;
      }
      assert.is(foldKey(letters.join("")), word, letters.join(""));
    }),
    fcParams,
  );
  for (const [letter, c] of lookalikes) assert.is(foldKey(c), letter, `U+${c.codePointAt(0)?.toString(16)}`);
  for (const c of LOOKALIKES[""]) assert.is(foldKey(`a${c}b`), "ab", `U+${c.codePointAt(0)?.toString(16)}`);
  assert.ok(lookalikes.length > 100, `${lookalikes.length} lookalikes`);
});

test("a judge takes each new key's decomposed length from a budget shared by judges, and a key it cannot pay for is unjudged, remembered so", () => {
  const budget = { left: 28 };
  const vault = nearMissJudge(["vwxyz"], { suppress: true }, budget);
  const edge = nearMissJudge(["vwxyz"], {}, budget);
  assert.is(vault("qqqqq"), undefined);
  assert.is(budget.left, 23);
  assert.is(vault("qqqqq"), undefined, "a remembered key costs nothing");
  assert.is(budget.left, 23);
  assert.is(edge("\ufdfa"), undefined, "one character, eighteen once decomposed");
  assert.is(budget.left, 5);
  assert.equal(vault("vwxyq"), { kind: "known", meant: "vwxyz" }, "a key of exactly what is left is judged");
  assert.is(budget.left, 0);
  assert.equal(edge("a"), { kind: "unjudged" });
  assert.equal(vault("qqqqq"), undefined, "judged before the budget ran out, still judged");
  assert.equal(nearMissJudge(["vwxyz"], {}, { left: 17 })("\ufdfa"), { kind: "unjudged" });
  assert.equal(nearMissJudge(["vwxyz"], {}, { left: Infinity })("x".repeat(100_000)), undefined, "no limit: every key judged");
});

test("a judge: a known key by folding or (five letters and more) within two edits; a suppress spelling; a short key within one edit", () => {
  const known = ["ab", "abc", "abcd", "vwxyz", "suppressed"];
  const judge = nearMissJudge(known, { suppress: true, short: true }, { left: Infinity });
  const plain = nearMissJudge(known, {}, { left: Infinity });
  const cases: [string, unknown, unknown][] = [
    ["A-B", { kind: "known", meant: "ab" }, { kind: "known", meant: "ab" }],
    ["vwxqz", { kind: "known", meant: "vwxyz" }, { kind: "known", meant: "vwxyz" }],
    ["vqqyz", { kind: "known", meant: "vwxyz" }, { kind: "known", meant: "vwxyz" }],
    ["vqqqz", undefined, undefined],
    ["vwxyzab", { kind: "known", meant: "vwxyz" }, { kind: "known", meant: "vwxyz" }],
    ["vwxyzabc", undefined, undefined],
    ["abxd", { kind: "short", meant: "abcd" }, undefined],
    ["abxy", undefined, undefined],
    ["abx", { kind: "short", meant: "abc" }, undefined],
    ["ax", undefined, undefined],
    ["qqq", undefined, undefined],
    ["is_supprest", { kind: "suppress" }, undefined],
    ["supressed", { kind: "known", meant: "suppressed" }, { kind: "known", meant: "suppressed" }],
  ];
  for (const [key, withOptions, without] of cases) {
    assert.equal(judge(key), withOptions, key);
    assert.equal(judge(key), withOptions, `${key}, remembered`);
    assert.equal(plain(key), without, `${key}, no options`);
  }
  assert.equal(nearMissJudge(known, { short: true }, { left: Infinity })("is_supprest"), undefined, "suppress only where asked");
  assert.equal(nearMissJudge(known, { suppress: true }, { left: Infinity })("abxd"), undefined, "short only where asked");
});

test("foldKey drops a lone half wherever it stands, the first unit of a key included, and joins only a lone high half with the low half after it", () => {
  for (const [key, folded] of [["\udc00status", "status"], ["\udfffs\ud800", "s"], ["\ud800\u00ad", ""], ["a\udc00\ud800b", "ab"], ["\ud835\u00ad\udc00", "a"]]) {
    assert.is(foldKey(key as string), folded, JSON.stringify(key));
  }
});

test("saysYes: true, 1, and the strings true, yes, y, on, 1 in any case with spaces around; nothing else, not a list or an object holding one", () => {
  for (const value of [true, 1, "true", " YES ", "y", "On", "1", "\ttrue\n"]) assert.ok(saysYes(value), JSON.stringify(value));
  for (const value of [false, 0, 2, null, "", "no", "yess", "t rue", "10", ["yes"], ["1"], [true], { toString: () => "yes" }]) {
    assert.not.ok(saysYes(value), String(JSON.stringify(value)));
  }
});

test("readsPlainly: printable ASCII, punctuation and spaces once the accents U+0300 to U+0362 are off", () => {
  for (const name of ["", "owner notes", "geprüft", "owner\u2019s approval", "e\u0301", "\u00a0", "Ångström"]) assert.ok(readsPlainly(name), name);
  for (const name of ["größe", "非公開", "a\u0363", "\u202esuppressed", "ѕuррrеѕѕеd", "\u{1f142}", "\t"]) assert.not.ok(readsPlainly(name), name);
});

test.run();
