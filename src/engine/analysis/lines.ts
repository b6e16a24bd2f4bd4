/**
 * Per-line figures (spec: "Per-line figures"): each figure of the registry (lineFigures.ts) folded
 * over the trace and the blocks live at the peak by its `rule`, crediting the self line or every
 * user line of each stack.
 */
import type { DeviceTrace, LineNumber, Snapshot } from '../snapshot/model';
import { NO_STACK } from '../snapshot/model';
import type { LineIndex } from './lineIndex';
import { NO_LINE } from './lineIndex';
import type { DeviceReplay } from './replay';
import { activeDelta, traceOf } from './replay';
import { RunningSum } from '../base/runningSum';
import type { LiveBlock } from './liveAtPeak';
import type { FigureRegistry, FigureRule, FigureValues } from './lineFigures';
import { LINE_FIGURES } from './lineFigures';
import { liveAtPeak } from './liveAtPeak';

export type { FigureValues };

export interface LineFigures extends FigureValues {
  readonly file: string;
  readonly line: LineNumber;
  /** Id of the line in the analysis' LineIndex (not part of the spec's JSON). */
  readonly lineId: number;
}

const ONE = 0;
const SIZE = 1;
const ACTIVE_AFTER = 2;
const VALUES: Readonly<Record<FigureRule['value'], number>> = { one: ONE, size: SIZE, activeAfter: ACTIVE_AFTER };

/** One figure's accumulator: a value per line. */
interface Counted {
  readonly column: Float64Array;
  readonly value: number;
  readonly max: boolean;
}

/** Adds (or takes the maximum of) one event's value into a line. */
function credit(c: Counted, line: number, size: number, activeAfter: number): void {
  const v = c.value === ONE ? 1 : c.value === SIZE ? size : activeAfter;
  if (!c.max) c.column[line] += v;
  else if (v > c.column[line]) c.column[line] = v;
}

/** `c` writing into the column of `folded` that stands where `c.column` stands in `columns`. */
function retarget(c: Counted, columns: readonly Float64Array[], folded: readonly Float64Array[]): Counted {
  return { column: folded[columns.indexOf(c.column)], value: c.value, max: c.max };
}

/** The figures one kind of event counts: those crediting its self line, and those crediting every line of its stack. */
interface Plan {
  readonly self: Counted[];
  readonly inclusive: Counted[];
}

/**
 * The figures of a registry folded per line by their rules: `columns[k][line]` is figure k's value of
 * a line. The analysis credits lines; `rangeFigures` credits one slot per block of lines.
 */
export class FigureFold {
  readonly columns: Float64Array[];
  /** By trace action: the figures its events count. */
  private readonly byAction: (Plan | undefined)[] = [];
  private readonly live: Plan = { self: [], inclusive: [] };

  constructor(
    readonly figures: FigureRegistry,
    lineCount: number,
  ) {
    this.columns = figures.map(() => new Float64Array(lineCount));
    figures.forEach((spec, k) => {
      const counted: Counted = { column: this.columns[k], value: VALUES[spec.rule.value], max: spec.rule.fold === 'max' };
      const add = (plan: Plan) => (spec.inclusive ? plan.inclusive : plan.self).push(counted);
      if (spec.rule.from === 'liveAtPeak') {
        if (counted.value === ACTIVE_AFTER) throw new Error(`${spec.key}: the blocks live at the peak have no active bytes after them`);
        add(this.live);
      } else for (const action of spec.rule.from) add((this.byAction[action] ??= { self: [], inclusive: [] }));
    });
  }

  /** Whether any figure counts events of this trace action. */
  counts(action: number): boolean {
    return this.byAction[action] !== undefined;
  }

  /** Credits a trace event: `self` its self line (or NO_LINE), `lines` every user line of its stack. */
  event(action: number, size: number, activeAfter: number, self: number, lines: readonly number[]): void {
    const plan = this.byAction[action];
    if (plan !== undefined) FigureFold.credit(plan, size, activeAfter, self, lines);
  }

  /** Credits a block live at the peak. */
  liveBlock(size: number, self: number, lines: readonly number[]): void {
    FigureFold.credit(this.live, size, Number.NaN, self, lines);
  }

  /**
   * Credits every event of a trace with a stack to the lines of `index` (the analysis' hot loop). Each
   * figure is folded per stack first, then each stack's value credited to its lines once: the work is
   * the events plus the stacks' lines, not the events times their stacks' depth (a file whose million
   * events share one stack of ten thousand lines costs a million steps, not ten billion). A sum of sums
   * and a maximum of maxima are the same figures (byte counts are integers below 2^53: exact in any order).
   * The active bytes after each event are followed as the events are walked, from `initialActiveBytes`
   * (the replay's), by the replay's rule (`activeDelta`).
   */
  trace(trace: DeviceTrace, initialActiveBytes: number, index: LineIndex): void {
    const { action, size, stack } = trace;
    const stacks = index.selfLine.length;
    // Per stack, one column per figure counted from events (the columns start at 0, as the lines' do).
    const perStack = this.figures.map((spec) => (spec.rule.from === 'liveAtPeak' ? undefined : new Float64Array(stacks)));
    const folded = this.columns.map((column, k) => perStack[k] ?? column);
    const plans = this.byAction.map((plan) => plan && { self: plan.self.map((c) => retarget(c, this.columns, folded)), inclusive: plan.inclusive.map((c) => retarget(c, this.columns, folded)) });
    const active = new RunningSum(initialActiveBytes);
    for (let i = 0; i < trace.length; i++) {
      const act = action[i];
      const activeBytes = active.add(activeDelta(act, size[i]));
      const s = stack[i];
      if (s === NO_STACK) continue;
      const plan = plans[act];
      if (plan === undefined) continue;
      for (let k = 0; k < plan.self.length; k++) credit(plan.self[k], s, size[i], activeBytes);
      for (let k = 0; k < plan.inclusive.length; k++) credit(plan.inclusive[k], s, size[i], activeBytes);
    }
    this.creditStacks(perStack, index);
  }

  /** Credits the blocks live at the peak, folded per stack first like {@link trace}. */
  liveBlocks(live: readonly LiveBlock[], index: LineIndex): void {
    const stacks = index.selfLine.length;
    const perStack = this.figures.map((spec) => (spec.rule.from === 'liveAtPeak' ? new Float64Array(stacks) : undefined));
    const folded = this.columns.map((column, k) => perStack[k] ?? column);
    const self = this.live.self.map((c) => retarget(c, this.columns, folded));
    const inclusive = this.live.inclusive.map((c) => retarget(c, this.columns, folded));
    for (const block of live) {
      if (block.stack === NO_STACK) continue;
      for (let k = 0; k < self.length; k++) credit(self[k], block.stack, block.size, NaN);
      for (let k = 0; k < inclusive.length; k++) credit(inclusive[k], block.stack, block.size, NaN);
    }
    this.creditStacks(perStack, index);
  }

  /** Each stack's folded value of each figure, credited to its self line or every user line of it. */
  private creditStacks(perStack: readonly (Float64Array | undefined)[], index: LineIndex): void {
    const { selfLine, inclusiveLines } = index;
    this.figures.forEach((spec, k) => {
      const values = perStack[k];
      if (values === undefined) return;
      const into: Counted = { column: this.columns[k], value: SIZE, max: spec.rule.fold === 'max' };
      for (let s = 0; s < values.length; s++) {
        const v = values[s];
        if (v === 0) continue;
        if (!spec.inclusive) {
          if (selfLine[s] !== NO_LINE) credit(into, selfLine[s], v, NaN);
        } else {
          const lines = inclusiveLines[s];
          for (let j = 0; j < lines.length; j++) credit(into, lines[j], v, NaN);
        }
      }
    });
  }

  private static credit(plan: Plan, size: number, activeAfter: number, self: number, lines: readonly number[]): void {
    if (self !== NO_LINE) for (let k = 0; k < plan.self.length; k++) credit(plan.self[k], self, size, activeAfter);
    if (plan.inclusive.length === 0) return;
    for (let j = 0; j < lines.length; j++) for (let k = 0; k < plan.inclusive.length; k++) credit(plan.inclusive[k], lines[j], size, activeAfter);
  }

  hasFigures(line: number): boolean {
    for (let k = 0; k < this.columns.length; k++) if (this.columns[k][line] !== 0) return true;
    return false;
  }

  /** Every figure's value of one line (slot), in registry order, added to `into`. */
  values<T extends object>(line: number, into: T = {} as T): T & FigureValues {
    const out = into as Record<string, unknown>;
    for (let k = 0; k < this.columns.length; k++) out[this.figures[k].key] = this.columns[k][line];
    return out as T & FigureValues;
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
  figures: FigureRegistry = LINE_FIGURES,
): LineFigures[] {
  const fold = new FigureFold(figures, index.lines.length);
  fold.trace(traceOf(snapshot, replay.device), replay.initialActiveBytes, index);
  fold.liveBlocks(live, index);

  const rows: LineFigures[] = [];
  for (let l = 0; l < index.lines.length; l++) {
    if (!fold.hasFigures(l)) continue;
    const source = index.lines[l];
    rows.push(fold.values(l, { file: source.file, line: source.line, lineId: l }));
  }
  return rows.sort(compareLines);
}
