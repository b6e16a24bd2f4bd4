/**
 * Inclusive figures of a block of lines (a function's body): the memory allocated by any call stack
 * that passes through one of its lines, the peak while it allocated, and what it holds at the peak.
 * Summing per-line inclusive figures would count a block once per line of the function it went
 * through; here each allocation counts once.
 */
import type { LineNumber } from '../snapshot/model';
import { Action, NO_STACK } from '../snapshot/model';
import type { Analysis, DeviceAnalysis } from './analyze';
import { traceOf } from './replay';

export interface LineRange {
  /** The recorded file names the range is in (one local file can be recorded under several). */
  readonly files: readonly string[];
  /** 1-based, inclusive. */
  readonly startLine: number;
  readonly endLine: number;
}

export interface RangeFigures {
  readonly allocCount: number;
  readonly allocBytes: number;
  readonly peakBytes: number;
  readonly liveAtPeakBytes: number;
}

function inRange(line: LineNumber, range: LineRange): boolean {
  return typeof line === 'number' && line >= range.startLine && line <= range.endLine;
}

export function rangeFigures(analysis: Analysis, device: DeviceAnalysis, ranges: readonly LineRange[]): RangeFigures[] {
  const { lineIndex, snapshot } = analysis;
  const trace = traceOf(snapshot, device.device);
  const live = device.liveAtPeak;
  return ranges.map((range) => {
    const files = new Set(range.files);
    const ids = new Set<number>();
    lineIndex.lines.forEach((l, id) => {
      if (files.has(l.file) && inRange(l.line, range)) ids.add(id);
    });
    const through = new Int8Array(snapshot.stacks.length).fill(-1);
    const passes = (stack: number): boolean => {
      if (stack === NO_STACK || ids.size === 0) return false;
      if (through[stack] < 0) through[stack] = lineIndex.inclusiveLines[stack].some((l) => ids.has(l)) ? 1 : 0;
      return through[stack] === 1;
    };
    let allocCount = 0;
    let allocBytes = 0;
    let peakBytes = 0;
    for (let i = 0; i < trace.length; i++) {
      if (trace.action[i] !== Action.Alloc || !passes(trace.stack[i])) continue;
      allocCount++;
      allocBytes += trace.size[i];
      if (device.active[i] > peakBytes) peakBytes = device.active[i];
    }
    let liveAtPeakBytes = 0;
    for (const block of live) if (passes(block.stack)) liveAtPeakBytes += block.size;
    return { allocCount, allocBytes, peakBytes, liveAtPeakBytes };
  });
}
