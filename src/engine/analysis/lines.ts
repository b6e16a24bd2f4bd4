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

  for (let i = 0; i < trace.length; i++) {
    const s = stack[i];
    if (s === NO_STACK) continue;
    const act = action[i];
    if (act === Action.Alloc) {
      const after = active[i];
      const self = index.selfLine[s];
      if (self !== NO_LINE) {
        acc.allocCount[self] += 1;
        acc.allocBytes[self] += size[i];
        if (after > acc.peakBytes[self]) acc.peakBytes[self] = after;
      }
      for (const l of index.inclusiveLines[s]) {
        acc.inclusiveAllocBytes[l] += size[i];
        if (after > acc.inclusivePeakBytes[l]) acc.inclusivePeakBytes[l] = after;
      }
    } else if (act === Action.FreeRequested) {
      const self = index.selfLine[s];
      if (self !== NO_LINE) acc.freedBytes[self] += size[i];
    }
  }

  for (const block of live) acc.addLive(index, block.stack, block.size);

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
