/** Reading the source a snapshot's frames point at, without the core touching any file system. */

/**
 * The text of a 1-based source line (of a file as named in the snapshot), or undefined when it is
 * not known. The CLI reads files from disk, the extension from the workspace; tests pass literals.
 */
export type LineTextProvider = (file: string, line: number) => string | undefined;

/** The whole text of a source file (as named in the snapshot), or undefined when it is not known. */
export type FileTextProvider = (file: string) => string | undefined;

/** Lines past this are not read when a file's text is rebuilt from its lines. */
const MAX_LINES = 200_000;

/** A file's text rebuilt from a line provider (lines 1, 2, ... until one is unknown). */
export function fileTextFromLines(lineText: LineTextProvider): FileTextProvider {
  return (file) => {
    const lines: string[] = [];
    for (let line = 1; line <= MAX_LINES; line++) {
      const text = lineText(file, line);
      if (text === undefined) break;
      lines.push(text);
    }
    return lines.length === 0 ? undefined : lines.join('\n');
  };
}

/**
 * A source file's text, held once as read; its lines (split at `\n`, a `\r` just before it dropped) are
 * found on demand from offsets worked out on first use, so nobody keeps a copy split into lines.
 */
export class SourceText {
  #starts: Int32Array | undefined;

  constructor(readonly text: string) {}

  /** Where each line starts, and one past the end of the text. */
  private starts(): Int32Array {
    if (this.#starts) return this.#starts;
    let count = 1;
    for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1)) count++;
    const starts = new Int32Array(count + 1);
    let n = 1;
    for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1)) starts[n++] = i + 1;
    starts[count] = this.text.length + 1;
    this.#starts = starts;
    return starts;
  }

  get lineCount(): number {
    return this.starts().length - 1;
  }

  /** The text of 1-based line `line` without its line break; undefined past the end. */
  line(line: number): string | undefined {
    const starts = this.starts();
    if (!Number.isInteger(line) || line < 1 || line >= starts.length) return undefined;
    // The break is at `end` (or the text ends there); a `\r` just before a `\n` belongs to the break.
    const end = starts[line] - 1;
    const text = this.text.slice(starts[line - 1], end);
    return end < this.text.length && text.endsWith('\r') ? text.slice(0, -1) : text;
  }
}
