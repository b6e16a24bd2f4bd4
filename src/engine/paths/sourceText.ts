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
