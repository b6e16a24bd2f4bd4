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

/** Longer cells than this (lines, either side) are aligned line by line without a diff. */
const MAX_DIFF_LINES = 2000;

/**
 * Relocates lines of a notebook cell's code as it ran (0-based lines of `ranLines`) onto the cell's
 * text now, by a line diff (longest common subsequence of trimmed lines): a line the diff keeps goes
 * where it is now (`inside` when that is where it was, else `relocated`); a line edited since it ran
 * (`notFound`) goes where the lines around it went (after the kept line above it).
 */
export function ranTextRelocator(ranLines: readonly string[], currentLines: readonly string[]): (ranLine: number) => Relocation {
  const a = ranLines.map((l) => l.trim());
  const b = currentLines.map((l) => l.trim());
  /** For each line of the code that ran: its line now, or -1 when the diff did not keep it. */
  const kept = new Int32Array(a.length).fill(-1);
  if (a.length <= MAX_DIFF_LINES && b.length <= MAX_DIFF_LINES) {
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    const width = b.length + 1;
    const lcs = new Uint16Array((a.length + 1) * width);
    for (let i = a.length - 1; i >= 0; i--) {
      for (let j = b.length - 1; j >= 0; j--) {
        lcs[i * width + j] = a[i] === b[j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
      }
    }
    for (let i = 0, j = 0; i < a.length && j < b.length; ) {
      if (a[i] === b[j]) kept[i++] = j++;
      else if (lcs[(i + 1) * width + j] >= lcs[i * width + j + 1]) i++;
      else j++;
    }
  } else {
    for (let i = 0; i < a.length; i++) if (a[i] === b[i]) kept[i] = i;
  }
  return (ranLine) => {
    if (ranLine >= 0 && ranLine < a.length && kept[ranLine] >= 0) {
      return { line: kept[ranLine], kind: kept[ranLine] === ranLine ? 'inside' : 'relocated' };
    }
    // Edited (or past the end): after the nearest kept line above it, as far below it as it was.
    let above = Math.min(ranLine, a.length) - 1;
    while (above >= 0 && kept[above] < 0) above--;
    const line = above < 0 ? ranLine : kept[above] + (ranLine - above);
    return { line, kind: 'notFound' };
  };
}
