/**
 * "Open a line": the one message every page (timeline, summary, comparison) sends to open a line
 * that a snapshot recorded, and its one guard. Each page's `<Page>ToHost` union includes it; every
 * host hands it to the one handler, `openLineOfPage` (src/extension/shared/openRecordedLine.ts),
 * which finds the local file of the recorded path (asking where its folder is when it is not found)
 * and clamps the line to the file as it is now.
 */

/** A recorded line: the path as the snapshot names it, and the 1-based line. */
export interface LineAt {
  readonly file: string;
  /** A recorded number beyond 2^53 arrives rounded: the host clamps it to the file anyway. */
  readonly line: number;
}

export interface OpenLine extends LineAt {
  readonly type: 'openLine';
}

/** The message that opens `at`. */
export function openLine(at: LineAt): OpenLine {
  return { type: 'openLine', file: at.file, line: at.line };
}

/**
 * Whether a message is a well-formed `openLine`: the pages' guards admit the type, this checks the
 * fields (a path that is a non-empty string, a whole line number).
 */
export function isOpenLine(value: unknown): value is OpenLine {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  return m.type === 'openLine' && typeof m.file === 'string' && m.file.length > 0 && typeof m.line === 'number' && Number.isInteger(m.line);
}
