/**
 * Text a server sent, made safe to print on a terminal: a hostile deployment must not be able to
 * move the cursor, rewrite earlier lines, set the window title or hide a FAIL row.
 */

/**
 * ESC sequences whole (CSI `ESC [ … final`, OSC / DCS / SOS / PM / APC strings up to BEL or ST,
 * any other `ESC x`), their 8-bit forms (CSI with its parameters, OSC and the other strings), then every other C0 control, DEL and C1
 * control. A newline and a tab stay only when `keep` says so.
 */
const SEQUENCES = /\x1b\[[0-?]*[ -/]*[@-~]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d-\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x9b[0-?]*[ -/]*[@-~]?|\x1b[\s\S]?/g;
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
const LINE_CONTROLS = /[\t\n]/g;

/**
 * `text` without terminal control characters: each removed, ESC sequences as a whole. Newline and
 * tab are removed too unless `keep` is `"lines"`.
 *
 * @example
 * printable("\x1b]0;title\x07\x1b[31mFAIL\x1b[0m\r") // "FAIL"
 */
export function printable(text: string, keep: "lines" | "none" = "none"): string {
  const stripped = text.replace(SEQUENCES, "").replace(CONTROLS, "");
  return keep === "lines" ? stripped : stripped.replace(LINE_CONTROLS, " ");
}
