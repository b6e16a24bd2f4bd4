/** Reading the source a snapshot's frames point at, without the core touching any file system. */

/**
 * The text of a 1-based source line (of a file as named in the snapshot), or undefined when it is
 * not known. The CLI reads files from disk, the extension from the workspace; tests pass literals.
 */
export type LineTextProvider = (file: string, line: number) => string | undefined;
