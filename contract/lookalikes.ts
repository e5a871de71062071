/**
 * Letters that read as a letter of `suppress` (or as punctuation) but that Unicode does not
 * decompose to it, so that NFKD and case folding alone leave them apart: `ꞩᵾᵽᵽressed` with a
 * stroke on three letters, `ѕuррrеѕѕеd` with six Cyrillic letters. Key folding reads each as the letter it shows
 * (see `key-names.ts`), so that a withholding spelled with them is refused like any other.
 *
 * Each string holds the case-folded forms (small letters) of every character that
 * - Unicode 17's character names call a Latin letter `S`, `U`, `P`, `R` or `E` with something added
 *   (`LATIN SMALL LETTER S WITH OBLIQUE STROKE`, `LATIN LETTER SMALL CAPITAL R`), or
 * - Unicode's confusables (UTS #39, confusables.txt of Unicode 10) show as one of those letters
 *   (Cyrillic `р`, Greek `υ`, Armenian `ս`, Cherokee, Lisu, `∪`), or, under "", as punctuation only
 *   (a Latin letter drawn as `!`, `?`, `'`, `·` or a dash),
 * and that the folding would not already read so; then (the second string of each) what an
 * adversarial review found beyond those: `$`, `§` and `€`, letters of UTS #39's wider groups
 * (`ɛ`, `є`, `ᴩ`), more Latin letters (`ꞅ`, `ꭋ`), and the combining small letters drawn above
 * another (U+1DE4 s, U+0367 u, U+1DEE p, U+036C r, U+0364 e). Only these five letters need the table: a
 * misspelling of any other key leaves it internal, which publishes nothing; a misspelling of
 * `suppress` must never publish a vault in full.
 */
export const LOOKALIKES: Readonly<Record<"s" | "u" | "p" | "r" | "e" | "", string>> = {
  s: "ƽȿʂѕտᵴᶊꓢꜱꞩꟊꟍꮥꮪ𐊖𐑈𑣁𖼺𝼞𝼩" + "$§ʃẝꞅꟗꟙ\u1de4",
  u: "ʉʋυսሀᑌᑗᑘᑧᴜᵾᶙ∪⋃ꓴꞟꞹꭎꭒꮜ𐓶𑣘𖽂" + "ʊμᥙ\u0367\u1df0\u1df4",
  p: "ƥρрᑭᑶᑷᒆᴘᵱᵽᶈ⍴ⲣꓑꝑꝓꝕꮲ𐊕" + "þƿϸϼҏᴩ\u1dee",
  r: "ɍɼɽɾʀгґғᖇᴦᵲᵳᶉⲅꓣꞧꭆꭇꭈꭉꭱꮁꮢ𐓜𖼵𝈖𝼖𝼨" + "ꞃꭅꭋꭌ\u036c",
  e: "ɇεеҽҿᴇᶒ℮⋿ⱸⴹꓰꬲꬴꭼ𐊆𑣆𑣎" + "€ɛєԑⲉꬳ\u0364",
  "": "ǃɂʔꝸꞌꞏꟷ",
};
