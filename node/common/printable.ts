import { escapeOf, unshownEscaped } from "../../contract/source.ts";

/**
 * Escape sequences, whole, in their 7-bit (ESC) and 8-bit (C1) forms: CSI, OSC/DCS/SOS/PM/APC strings (up to BEL or
 * ST, or the end), and two-character escapes; then any other C0 control, DEL and C1 control.
 */
const CONTROLS =
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]?|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d-\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -~]?|[\u0000-\u001f\u007f-\u009f]/g;

/**
 * `text` without terminal control characters (a value must not move the cursor, recolour the screen, set the window
 * title or hide what follows it): ESC sequences whole, every other C0 control but `keep`, DEL and every C1 control.
 *
 * @example
 * ```ts
 * const shown: string = printable("ok\u001b[2J\u001b]0;pwned\u0007 done"); // "ok done"
 * ```
 */
export function printable(text: string, keep = "\n\t"): string {
  return text.replace(CONTROLS, (match) => (match.length === 1 && keep.includes(match) ? match : ""));
}

/** JSON text with C1 controls and DEL as `\u` escapes (JSON.stringify leaves them raw; a terminal acts on them). */
export function escapeC1InJson(json: string): string {
  return json.replace(/[\u007f-\u009f]/g, escapeOf);
}

/**
 * `text`, a path or value a message names as it is (unquoted), with each newline as `\u000a`: terminalSafe keeps the
 * message's own line breaks, so a newline the value holds would otherwise start a line that reads as the command's.
 */
export function oneLine(text: string): string {
  return text.replace(/\n/g, escapeOf);
}

/** The most characters (code points) one line of a message shows; a longer line is cut, with `…`. */
export const MESSAGE_LINE_CHARS = 2000;

/**
 * A message as it reaches the terminal (every command's stderr goes through it): each character `quoted` escapes in a
 * source's messages (a control character, a bidirectional mark, an invisible or separator character; newline and tab
 * kept) as a visible `\u` escape, so no value quoted in it can hide, reorder or rewrite what is shown, and each line
 * at most MESSAGE_LINE_CHARS characters.
 *
 * @example
 * ```ts
 * const shown: string = terminalSafe("bad value \u001b[2J\u202e\n"); // "bad value \\u001b[2J\\u202e\n"
 * ```
 */
export function terminalSafe(text: string): string {
  return unshownEscaped(text, "\n\t").split("\n").map(cutLine).join("\n");
}

function cutLine(line: string): string {
  // Most lines are short: only a line that might pass the limit is split into code points.
  if (line.length <= MESSAGE_LINE_CHARS) return line;
  const chars = [...line];
  return chars.length <= MESSAGE_LINE_CHARS ? line : `${chars.slice(0, MESSAGE_LINE_CHARS).join("")}…`;
}
