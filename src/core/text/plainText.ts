/**
 * Text that came from a snapshot, a file name or a profiled program is shown as plain text everywhere:
 * no control characters (C0, DEL, C1 such as U+009B, bidi overrides) for terminals and UI alike, and no
 * markdown link syntax where VS Code would render one (notifications turn `[x](command:...)` into a link).
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Removes control characters; tabs and newlines become spaces. */
export function plainText(text: string): string {
  return text.replace(/[\t\n\r]/g, ' ').replace(CONTROL, '');
}

/** Plain text safe inside a VS Code notification or message: markdown link syntax cannot form. */
export function notificationText(text: string): string {
  return plainText(text).replace(/[[\]()]/g, (c) => ({ '[': '\u2768', ']': '\u2769', '(': '\u2772', ')': '\u2773' })[c] ?? c);
}
