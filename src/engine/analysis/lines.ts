/**
 * Per-line figures (spec: "Per-line figures"): allocations, frees, the peak while the line
 * allocates, and the memory live at the global peak, each in self and inclusive form.
 */
import type { LineNumber, Snapshot } from '../snapshot/model';
import { Action, NO_STACK } from '../snapshot/model';
import type { LineIndex } from './lineIndex';
import { NO_LINE } from './lineIndex';
import type { DeviceReplay } from './replay';
import { traceOf } from './replay';
import type { LiveBlock } from './liveAtPeak';
import { LINE_FIGURE_KEYS } from './lineFigures';
import { liveAtPeak } from './liveAtPeak';

export interface LineFigures {
  readonly file: string;
  readonly line: LineNumber;
  /** Id of the line in the analysis' LineIndex (not part of the spec's JSON). */
  readonly lineId: number;
  readonly allocCount: number;
  readonly allocBytes: number;
  readonly freedBytes: number;
  readonly peakBytes: number;
  readonly liveAtPeakBytes: number;
  readonly inclusiveAllocBytes: number;
  readonly inclusivePeakBytes: number;
  readonly inclusiveLiveAtPeakBytes: number;
}

class Accumulator {
  readonly allocCount: Float64Array;
  readonly allocBytes: Float64Array;
  readonly freedBytes: Float64Array;
  readonly peakBytes: Float64Array;
  readonly liveAtPeakBytes: Float64Array;
  readonly inclusiveAllocBytes: Float64Array;
  readonly inclusivePeakBytes: Float64Array;
  readonly inclusiveLiveAtPeakBytes: Float64Array;
  constructor(n: number) {
    this.allocCount = new Float64Array(n);
    this.allocBytes = new Float64Array(n);
    this.freedBytes = new Float64Array(n);
    this.peakBytes = new Float64Array(n);
    this.liveAtPeakBytes = new Float64Array(n);
    this.inclusiveAllocBytes = new Float64Array(n);
    this.inclusivePeakBytes = new Float64Array(n);
    this.inclusiveLiveAtPeakBytes = new Float64Array(n);
  }
  addLive(index: LineIndex, stack: number, size: number): void {
    if (stack === NO_STACK) return;
    const self = index.selfLine[stack];
    if (self !== NO_LINE) this.liveAtPeakBytes[self] += size;
    for (const l of index.inclusiveLines[stack]) this.inclusiveLiveAtPeakBytes[l] += size;
  }
  hasFigures(l: number): boolean {
    return LINE_FIGURE_KEYS.some((key) => this[key][l] !== 0);
  }
}

export function compareLines(a: { file: string; line: LineNumber }, b: { file: string; line: LineNumber }): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  if (a.line === b.line) return 0;
  return a.line < b.line ? -1 : 1;
}

export function attributeLines(
  snapshot: Snapshot,
  replay: DeviceReplay,
  index: LineIndex,
  live: readonly LiveBlock[] = liveAtPeak(replay),
): LineFigures[] {
  const trace = traceOf(snapshot, replay.device);
  const acc = new Accumulator(index.lines.length);
  const { action, size, stack } = trace;
  const { active } = replay;

  // Sums per stack first, then per line once per stack: the work is the events plus the stacks' lines,
  // not the events times their stacks' depth (a file whose million events share one stack of ten
  // thousand lines costs a million steps, not ten billion). Byte counts are integers below 2^53, so
  // the sums are exact in any order.
  const stacks = snapshot.stacks.length;
  const count = new Float64Array(stacks);
  const bytes = new Float64Array(stacks);
  const peak = new Float64Array(stacks);
  const freed = new Float64Array(stacks);
  for (let i = 0; i < trace.length; i++) {
    const s = stack[i];
    if (s === NO_STACK) continue;
    const act = action[i];
    if (act === Action.Alloc) {
      count[s] += 1;
      bytes[s] += size[i];
      if (active[i] > peak[s]) peak[s] = active[i];
    } else if (act === Action.FreeRequested) {
      freed[s] += size[i];
    }
  }
  for (let s = 0; s < stacks; s++) {
    const self = index.selfLine[s];
    if (self !== NO_LINE) {
      acc.freedBytes[self] += freed[s];
      if (count[s] === 0) continue;
      acc.allocCount[self] += count[s];
      acc.allocBytes[self] += bytes[s];
      if (peak[s] > acc.peakBytes[self]) acc.peakBytes[self] = peak[s];
    }
    if (count[s] === 0) continue;
    for (const l of index.inclusiveLines[s]) {
      acc.inclusiveAllocBytes[l] += bytes[s];
      if (peak[s] > acc.inclusivePeakBytes[l]) acc.inclusivePeakBytes[l] = peak[s];
    }
  }

  // Live at the peak, likewise summed per stack first.
  const liveBytes = new Float64Array(stacks);
  for (const block of live) if (block.stack !== NO_STACK) liveBytes[block.stack] += block.size;
  for (let s = 0; s < stacks; s++) if (liveBytes[s] !== 0) acc.addLive(index, s, liveBytes[s]);

  const rows: LineFigures[] = [];
  index.lines.forEach((source, l) => {
    if (!acc.hasFigures(l)) return;
    rows.push({
      file: source.file,
      line: source.line,
      lineId: l,
      allocCount: acc.allocCount[l],
      allocBytes: acc.allocBytes[l],
      freedBytes: acc.freedBytes[l],
      peakBytes: acc.peakBytes[l],
      liveAtPeakBytes: acc.liveAtPeakBytes[l],
      inclusiveAllocBytes: acc.inclusiveAllocBytes[l],
      inclusivePeakBytes: acc.inclusivePeakBytes[l],
      inclusiveLiveAtPeakBytes: acc.inclusiveLiveAtPeakBytes[l],
    });
  });
  return rows.sort(compareLines);
}
