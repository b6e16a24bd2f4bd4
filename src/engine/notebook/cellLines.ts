/**
 * Where a cell's lines are in the code IPython compiles from it. IPython's first input transform
 * (`leading_empty_lines` in IPython/core/inputtransformer2.py) drops the blank lines at the top of a
 * cell, so a frame's line 1 is the cell's first line with text on it; the other transforms (magics,
 * `!` commands, prompts, indentation) keep every line where it is.
 */

/** Python's `str.isspace` characters (JavaScript's `\s` differs: it has U+FEFF, lacks U+001C-U+001F). */
const PY_SPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;
/** Python's `str.splitlines` boundaries. */
const PY_LINE_BREAK = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/g;
/** The line ends the Python compiler counts. */
const COMPILER_LINE_BREAK = /\r\n|\r|\n/g;

/** How many lines of `source` come before the line a frame numbers 1 (the blank lines IPython drops). */
export function ipythonLineOffset(source: string): number {
  let first = -1;
  for (let i = 0; i < source.length; i++) {
    if (!PY_SPACE.test(source[i])) {
      first = i;
      break;
    }
  }
  if (first <= 0) return 0;
  // The dropped lines end at the last `splitlines` boundary before the first character with text.
  let cut = 0;
  for (const m of source.slice(0, first).matchAll(PY_LINE_BREAK)) cut = m.index + m[0].length;
  return source.slice(0, cut).match(COMPILER_LINE_BREAK)?.length ?? 0;
}

/** The lines of a cell's text as an editor shows them (`\r\n`, `\r` and `\n` end a line). */
export function cellLines(source: string): string[] {
  return source.split(/\r\n|\r|\n/);
}
