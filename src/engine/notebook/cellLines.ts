/**
 * Where a cell's lines are in the code IPython compiles from it. IPython's first input transform
 * (`leading_empty_lines` in IPython/core/inputtransformer2.py) drops the blank lines at the top of a
 * cell, so a frame's line 1 is the cell's first line with text on it; the other transforms (magics,
 * `!` commands, prompts, indentation) keep every line where it is.
 */

/** Python's `str.isspace` characters (JavaScript's `\s` differs: it has U+FEFF, lacks U+001C-U+001F). */
const PY_SPACE = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000]);
/** Python's `str.splitlines` boundaries (`\r\n` is one). */
const PY_LINE_BREAKS = new Set([0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029]);

function isPySpace(code: number): boolean {
  return PY_SPACE.has(code) || (code >= 0x2000 && code <= 0x200a);
}
/** The line ends the Python compiler counts. */
const COMPILER_LINE_BREAK = /\r\n|\r|\n/g;

/** How many lines of `source` come before the line a frame numbers 1 (the blank lines IPython drops). */
export function ipythonLineOffset(source: string): number {
  let first = -1;
  for (let i = 0; i < source.length; i++) {
    if (!isPySpace(source.charCodeAt(i))) {
      first = i;
      break;
    }
  }
  if (first <= 0) return 0;
  // The dropped lines end at the last `splitlines` boundary before the first character with text.
  let cut = 0;
  for (let i = 0; i < first; i++) if (PY_LINE_BREAKS.has(source.charCodeAt(i))) cut = i + 1;
  return source.slice(0, cut).match(COMPILER_LINE_BREAK)?.length ?? 0;
}

/** The lines of a cell's text as an editor shows them (`\r\n`, `\r` and `\n` end a line). */
export function cellLines(source: string): string[] {
  return source.split(/\r\n|\r|\n/);
}
