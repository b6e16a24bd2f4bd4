/** The one message every page opens a recorded line with (src/protocol/openLine.ts; the host checks it with src/guards/openLine.ts). */
import type { LineAt, OpenLine } from '../../src/protocol/openLine';

/** The message that opens `at`. */
export function openLine(at: LineAt): OpenLine {
  return { type: 'openLine', file: at.file, line: at.line };
}
