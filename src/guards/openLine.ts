/** The host's check of the one `openLine` message every page sends (src/protocol/openLine.ts). */
import type { OpenLine } from '../protocol/openLine';

/**
 * Whether a message is a well-formed `openLine`: the pages' guards admit the type, this checks the
 * fields (a path that is a non-empty string, a whole line number).
 */
export function isOpenLine(value: unknown): value is OpenLine {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  return m.type === 'openLine' && typeof m.file === 'string' && m.file.length > 0 && typeof m.line === 'number' && Number.isInteger(m.line);
}
