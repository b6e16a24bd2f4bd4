/**
 * Everything a hover says about one source line beyond its figures: the sizes of the allocations it
 * made itself, its largest allocation (to find in the timeline), the blocks it holds at the peak, and
 * the call stacks that reached it, heaviest first.
 */
import type { LineNumber } from '../snapshot/model';
import { Action, NO_STACK } from '../snapshot/model';
import type { Analysis, DeviceAnalysis } from './analyze';
import { isSourceFrame } from './frameFilter';
import { NO_LINE, lineKey } from './lineIndex';
import { traceOf } from './replay';

export interface DetailFrame {
  readonly filename: string;
  readonly line: LineNumber;
  readonly name: string;
  /** A user frame under the current filter (the code the editor annotates). */
  readonly user: boolean;
}

export interface DetailStack {
  /** Bytes allocated through this stack (alloc events whose stack passes through the line). */
  readonly bytes: number;
  readonly count: number;
  /** The stack's Python source frames, innermost first (C++ frames left out). */
  readonly frames: readonly DetailFrame[];
}

export interface LargestAllocation {
  /** Index into the device's allocation records. */
  readonly record: number;
  /** Trace index of its `alloc` event. */
  readonly allocEvent: number;
  readonly bytes: number;
  /** False when the line allocated nothing itself and this is the largest made through it. */
  readonly self: boolean;
}

export interface LineDetail {
  readonly file: string;
  readonly line: LineNumber;
  /** Sizes of the allocations whose innermost user frame is this line, largest first (capped). */
  readonly allocationSizes: readonly number[];
  /** How many such allocations there are in all. */
  readonly allocationCount: number;
  /** Sizes of the blocks live at the peak that this line allocated itself, largest first (capped). */
  readonly liveBlockSizes: readonly number[];
  readonly liveBlockCount: number;
  readonly largest: LargestAllocation | undefined;
  /** Distinct Python call stacks through this line, by bytes allocated (capped). */
  readonly stacks: readonly DetailStack[];
  readonly stackCount: number;
}

export interface LineDetailOptions {
  readonly maxSizes?: number;
  readonly maxStacks?: number;
}

function largestFirst(sizes: number[], max: number): number[] {
  return sizes.sort((a, b) => b - a).slice(0, max);
}

export function lineDetail(
  analysis: Analysis,
  device: DeviceAnalysis,
  file: string,
  line: LineNumber,
  options: LineDetailOptions = {},
): LineDetail {
  const maxSizes = options.maxSizes ?? 12;
  const maxStacks = options.maxStacks ?? 3;
  const { lineIndex, snapshot } = analysis;
  const key = lineKey(file, line);
  const lineId = lineIndex.lines.findIndex((l) => lineKey(l.file, l.line) === key);
  const empty: LineDetail = {
    file,
    line,
    allocationSizes: [],
    allocationCount: 0,
    liveBlockSizes: [],
    liveBlockCount: 0,
    largest: undefined,
    stacks: [],
    stackCount: 0,
  };
  if (lineId === NO_LINE) return empty;

  const isSelf = (stack: number) => stack !== NO_STACK && lineIndex.selfLine[stack] === lineId;
  const reaches = (stack: number) => stack !== NO_STACK && lineIndex.inclusiveLines[stack].includes(lineId);

  // Own allocations and the largest one (own first, else the largest made through the line).
  const records = device.allocations;
  const sizes: number[] = [];
  let largest: LargestAllocation | undefined;
  for (let r = 0; r < records.count; r++) {
    const event = records.allocEvent[r];
    if (event < 0) continue;
    const stack = records.stackOf(r);
    const self = isSelf(stack);
    if (!self && !reaches(stack)) continue;
    const bytes = records.sizeOf(r);
    if (self) sizes.push(bytes);
    if (!largest || (self && !largest.self) || (self === largest.self && bytes > largest.bytes)) {
      largest = { record: r, allocEvent: event, bytes, self };
    }
  }

  const live = device.liveAtPeak
    .filter((b) => isSelf(b.stack))
    .map((b) => b.size);

  // Stacks through the line, grouped by their Python frames (stacks that differ only in C++ frames merge).
  const trace = traceOf(snapshot, device.device);
  const byStack = new Map<number, { bytes: number; count: number }>();
  for (let i = 0; i < trace.length; i++) {
    if (trace.action[i] !== Action.Alloc) continue;
    const stack = trace.stack[i];
    if (!reaches(stack)) continue;
    const entry = byStack.get(stack);
    if (entry) {
      entry.bytes += trace.size[i];
      entry.count++;
    } else byStack.set(stack, { bytes: trace.size[i], count: 1 });
  }
  const grouped = new Map<string, { bytes: number; count: number; frames: DetailFrame[] }>();
  for (const [stack, totals] of byStack) {
    const frames: DetailFrame[] = [];
    for (const frameId of snapshot.stacks[stack]) {
      const frame = snapshot.frames[frameId];
      if (!isSourceFrame(frame)) continue;
      frames.push({ filename: frame.filename, line: frame.line, name: frame.name, user: lineIndex.frameLine[frameId] !== NO_LINE });
    }
    const signature = frames.map((f) => lineKey(f.filename, f.line)).join('\u0001');
    const group = grouped.get(signature);
    if (group) {
      group.bytes += totals.bytes;
      group.count += totals.count;
    } else grouped.set(signature, { ...totals, frames });
  }
  const stacks = [...grouped.values()].sort((a, b) => b.bytes - a.bytes || b.count - a.count);

  return {
    file,
    line,
    allocationSizes: largestFirst(sizes, maxSizes),
    allocationCount: sizes.length,
    liveBlockSizes: largestFirst(live, maxSizes),
    liveBlockCount: live.length,
    largest,
    stacks: stacks.slice(0, maxStacks),
    stackCount: stacks.length,
  };
}
