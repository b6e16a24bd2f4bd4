/**
 * Source changed since the recording: each recorded frame names its function, so a recorded line that
 * is not inside a function of that name in the file as it is now was recorded from other code. When a
 * function of that name is close by (lines were inserted or removed above it), the figures move onto
 * the nearest line of its body; otherwise they stay where they were, marked. A light scan of the
 * file's `def`s (`findPythonFunctions`) is enough; module-level code (`<module>`) and unnamed code
 * (`<lambda>`, `<listcomp>`, ...) are not checked.
 */
import { findPythonFunctions } from './pythonFunctions';

export type RelocationKind =
  /** The line is inside a function of the recorded name (or there is nothing to check). */
  | 'inside'
  /** It was not; a function of that name is close by and the figures moved into it. */
  | 'relocated'
  /** It was not, and no function of that name is close by. */
  | 'notFound';

export interface Relocation {
  /** 0-based line the figures go on, in the file as scanned. */
  readonly line: number;
  readonly kind: RelocationKind;
}

/** How far (in lines) a function of the recorded name may be for the figures to move into it. */
export const RELOCATION_DISTANCE = 30;

const IDENTIFIER = /^[A-Za-z_]\w*$/;

export type Relocator = (recordedLine: number, functionName: string | undefined) => Relocation;

/** Relocates recorded lines (0-based) against the current text of a Python file. */
export function relocator(sourceLines: readonly string[], maxDistance = RELOCATION_DISTANCE): Relocator {
  const functions = findPythonFunctions(sourceLines);
  return (recordedLine, functionName) => {
    if (functionName === undefined || !IDENTIFIER.test(functionName)) return { line: recordedLine, kind: 'inside' };
    let best: { line: number; distance: number } | undefined;
    for (const f of functions) {
      if (f.name !== functionName) continue;
      // Frames of a function point into its body; a decorator or default argument can point at the `def` line itself.
      if (recordedLine >= f.line && recordedLine <= f.endLine) return { line: recordedLine, kind: 'inside' };
      const bodyStart = firstCodeLine(sourceLines, f.line + 1, f.endLine);
      const target = recordedLine < f.line ? bodyStart : f.endLine;
      const distance = Math.abs(target - recordedLine);
      if (distance <= maxDistance && (best === undefined || distance < best.distance)) best = { line: target, distance };
    }
    return best ? { line: best.line, kind: 'relocated' } : { line: recordedLine, kind: 'notFound' };
  };
}

/** The first line in `from..to` with code (not blank, not a comment); `to` when none. */
function firstCodeLine(lines: readonly string[], from: number, to: number): number {
  for (let n = from; n < to; n++) {
    const text = lines[n].trim();
    if (text !== '' && !text.startsWith('#')) return n;
  }
  return to;
}
