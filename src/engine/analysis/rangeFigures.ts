/**
 * Figures of a block of lines (a function's body): every self figure of the registry, counting each
 * event (allocation, free, block live at the peak) once when its call stack passes through one of the
 * block's lines. Summing per-line inclusive figures would count a block once per line of the function
 * it went through; here each counts once.
 */
import type { LineNumber } from '../snapshot/model';
import { NO_STACK } from '../snapshot/model';
import type { Analysis, DeviceAnalysis } from './analyze';
import type { FigureRegistry, LineFigureKey } from './lineFigures';
import { LINE_FIGURES } from './lineFigures';
import { FigureFold } from './lines';
import { traceOf } from './replay';

export interface LineRange {
  /** The recorded file names the range is in (one local file can be recorded under several). */
  readonly files: readonly string[];
  /** 1-based, inclusive. */
  readonly startLine: number;
  readonly endLine: number;
}

/** The block's value of each self figure of the registry. */
export type RangeFigures = Readonly<Partial<Record<LineFigureKey, number>>>;

const SLOT = 0;
const THE_SLOT: readonly number[] = [SLOT];

function inRange(line: LineNumber, range: LineRange): boolean {
  return typeof line === 'number' && line >= range.startLine && line <= range.endLine;
}

export function rangeFigures(analysis: Analysis, device: DeviceAnalysis, ranges: readonly LineRange[], figures: FigureRegistry = LINE_FIGURES): RangeFigures[] {
  const { lineIndex, snapshot } = analysis;
  const trace = traceOf(snapshot, device.device);
  const live = device.liveAtPeak;
  const selfFigures = figures.filter((f) => !f.inclusive);
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
    // The block is one slot, credited as the self line of every event passing through it.
    const fold = new FigureFold(selfFigures, 1);
    for (let i = 0; i < trace.length; i++) {
      if (fold.counts(trace.action[i]) && passes(trace.stack[i])) fold.event(trace.action[i], trace.size[i], device.active[i], SLOT, THE_SLOT);
    }
    for (const block of live) if (passes(block.stack)) fold.liveBlock(block.size, SLOT, THE_SLOT);
    return fold.values(SLOT);
  });
}
