/**
 * Text that came from a snapshot, a file name or a profiled program is shown as plain text everywhere.
 *
 * - `plainText`: for any UI label or message: control characters (C0, DEL, C1 such as U+009B, bidi
 *   overrides and isolates) removed, tabs and line breaks turned into spaces.
 * - `notificationText`: plain text that VS Code cannot turn into a link. Notifications and modal
 *   messages render `[label](command:ID)` (also `https://` and `file:` targets) as a clickable link,
 *   and a command link runs the command. VS Code's pattern (vs/base/common/linkedText.ts) needs the
 *   two characters `](` side by side, so a space is put between them: `[Show](command:x)` reads
 *   `[Show] (command:x)`, brackets and parentheses in file names stay as they are, and no invisible
 *   character is added. Long text is shortened in the middle so a message stays readable.
 * - `terminalText`: for stdout/stderr: every control character except line feed and tab is shown as
 *   a visible `\uXXXX` escape, so an ESC or CSI (U+009B) sequence from a file can never reach the
 *   terminal. The escape is valid inside a JSON string, so `--json` output stays valid JSON.
 * - `escapeMarkdown`: for text inside markdown (the hovers): every character markdown reads as syntax
 *   is escaped, line breaks become spaces, so a file name is never a link or emphasis.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Longest untrusted text put into one notification. */
export const MAX_NOTIFICATION_TEXT = 300;

/** Removes control characters; tabs and line breaks become spaces. */
export function plainText(text: string): string {
  return text.replace(/[\t\n\r\u2028\u2029]/g, ' ').replace(CONTROL, '');
}

/** Plain text safe inside a VS Code notification or message: no link can form, at most `maxLength` characters. */
export function notificationText(text: string, maxLength: number = MAX_NOTIFICATION_TEXT): string {
  const plain = shorten(plainText(text), maxLength);
  return plain.replace(/\](?=\()/g, '] ');
}

/** Text safe to write to a terminal: control characters other than \n and \t shown as `\uXXXX`. */
export function terminalText(text: string): string {
  return text.replace(TERMINAL_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `text` cut to `maxLength` characters by dropping its middle (both ends of a path say the most). */
function shorten(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  const keep = Math.max(0, maxLength - 1);
  const head = Math.ceil(keep / 2);
  return `${text.slice(0, head)}\u2026${text.slice(text.length - (keep - head))}`;
}

/** `text` as literal characters inside markdown: every character markdown reads as syntax escaped, line breaks as spaces. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~&"']/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}
