/**
 * Interns the (file, line) pairs that user frames name, and resolves each stack once to its
 * self line (innermost user frame) and inclusive lines (every distinct user line in the stack).
 */
import type { LineNumber, Snapshot } from '../snapshot/model';
import type { UserFramePredicate } from './frameFilter';
import { StacksNotReadError } from '../snapshot/errors';

export const NO_LINE = -1;

export interface SourceLine {
  readonly file: string;
  readonly line: LineNumber;
}

export interface LineIndex {
  /** Distinct user lines; a line id is an index here. */
  readonly lines: readonly SourceLine[];
  /** Per stack id: the self line id, or NO_LINE. */
  readonly selfLine: Int32Array;
  /** Per stack id: the distinct inclusive line ids (innermost first). */
  readonly inclusiveLines: readonly (readonly number[])[];
  /** Per frame id: its line id when it is a user frame, else NO_LINE. */
  readonly frameLine: Int32Array;
}

export function lineKey(file: string, line: LineNumber): string {
  return `${file}\u0000${String(line)}`;
}

export function buildLineIndex(snapshot: Snapshot, isUserFrame: UserFramePredicate): LineIndex {
  if (snapshot.stacksNotRead) throw new StacksNotReadError();
  const lines: SourceLine[] = [];
  const idByKey = new Map<string, number>();
  const frameLine = new Int32Array(snapshot.frames.length).fill(NO_LINE);
  snapshot.frames.forEach((frame, frameId) => {
    if (!isUserFrame(frame)) return;
    const key = lineKey(frame.filename, frame.line);
    let id = idByKey.get(key);
    if (id === undefined) {
      id = lines.length;
      lines.push({ file: frame.filename, line: frame.line });
      idByKey.set(key, id);
    }
    frameLine[frameId] = id;
  });

  const selfLine = new Int32Array(snapshot.stacks.length).fill(NO_LINE);
  const inclusiveLines: number[][] = new Array<number[]>(snapshot.stacks.length);
  const empty: number[] = [];
  for (let stackId = 0; stackId < snapshot.stacks.length; stackId++) {
    let inclusive: number[] = empty;
    for (const frameId of snapshot.stacks[stackId]) {
      const id = frameLine[frameId];
      if (id === NO_LINE) continue;
      if (inclusive === empty) {
        inclusive = [id];
        selfLine[stackId] = id;
      } else if (!inclusive.includes(id)) {
        inclusive.push(id);
      }
    }
    inclusiveLines[stackId] = inclusive;
  }
  return { lines, selfLine, inclusiveLines, frameLine };
}
