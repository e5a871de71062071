import { escapeOf } from "../../contract/source.ts";

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
