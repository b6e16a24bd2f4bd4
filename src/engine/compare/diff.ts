/**
 * What changed between two runs: device totals and per-line figures of a baseline and a current
 * analysis (one device each), lines paired across edits, ranked by the change in memory live at
 * the peak. Works on the plain data a worker returns, so both sides may live in different workers.
 */
import type { LineFigures } from '../analysis/lines';
import type { FigureRegistry, FigureValues, LineFigureKey } from '../analysis/lineFigures';
import { LINE_FIGURES, LINE_RANKING, figureValues, zeroFigures } from '../analysis/lineFigures';
import type { LineNumber } from '../snapshot/model';
import { matchFiles } from './fileMatch';
import type { CellPlaces } from '../paths/places';
import { placeOf } from '../paths/places';
import type { LineTextProvider, MatchKind } from './lineMatch';
import { matchLines } from './lineMatch';

/** The device totals compared. */
export interface DeviceTotals {
  readonly events: number;
  readonly peakBytes: number;
  /** Null where the snapshot does not record the device's reserved memory (`DeviceSummary.reservedUnknown`). */
  readonly peakReservedBytes: number | null;
  readonly allocations: number;
  readonly oomCount: number;
}

export interface ComparisonSide {
  readonly label: string;
  readonly device: number;
  readonly totals: DeviceTotals;
  readonly lines: readonly LineFigures[];
  /** Source text of a line as it was for this run (moved lines are matched by it). */
  readonly lineText?: LineTextProvider;
  /** The notebook cells of this run's recorded cell files: a cell is the same cell in both runs, whatever name it ran under. */
  readonly places?: CellPlaces;
}

/** The per-line figures that are compared: every figure of the registry, so none is silently left out. */
export type LineFigureName = LineFigureKey;
export type { FigureValues };

export interface LineDelta {
  /** Where the line is in the current run, or in the baseline when it only ran there. */
  readonly file: string;
  readonly line: LineNumber;
  readonly baseline?: { readonly file: string; readonly line: LineNumber; readonly figures: FigureValues };
  readonly current?: { readonly file: string; readonly line: LineNumber; readonly figures: FigureValues };
  /** How the two sides were paired; absent when the line has figures on one side only. */
  readonly match?: MatchKind;
  /** current - baseline for every figure (a missing side counts as zero). */
  readonly delta: FigureValues;
}

export interface Comparison {
  readonly baseline: { readonly label: string; readonly device: number; readonly totals: DeviceTotals };
  readonly current: { readonly label: string; readonly device: number; readonly totals: DeviceTotals };
  readonly totalsDelta: DeviceTotals;
  /** Every line with figures on either side, largest change in live-at-peak bytes first. */
  readonly lines: readonly LineDelta[];
  /** Baseline file -> current file, for the files recorded in both runs. */
  readonly files: ReadonlyMap<string, string>;
}

function subtract(current: FigureValues, baseline: FigureValues, figures: FigureRegistry): FigureValues {
  const values: Partial<Record<LineFigureKey, number>> = {};
  for (const { key } of figures) values[key] = current[key] - baseline[key];
  return values as FigureValues;
}

function totalsDelta(b: DeviceTotals, c: DeviceTotals): DeviceTotals {
  return {
    events: c.events - b.events,
    peakBytes: c.peakBytes - b.peakBytes,
    peakReservedBytes: c.peakReservedBytes === null || b.peakReservedBytes === null ? null : c.peakReservedBytes - b.peakReservedBytes,
    allocations: c.allocations - b.allocations,
    oomCount: c.oomCount - b.oomCount,
  };
}

function groupByFile(lines: readonly LineFigures[]): Map<string, LineFigures[]> {
  const byFile = new Map<string, LineFigures[]>();
  for (const l of lines) {
    const list = byFile.get(l.file);
    if (list) list.push(l);
    else byFile.set(l.file, [l]);
  }
  return byFile;
}

/** Largest absolute change by each figure of `LINE_RANKING` in turn (live at the peak first), then by place. */
export function compareByChange(x: LineDelta, y: LineDelta): number {
  for (const key of LINE_RANKING) {
    const d = Math.abs(y.delta[key]) - Math.abs(x.delta[key]);
    if (d !== 0) return d;
  }
  return (x.file < y.file ? -1 : x.file > y.file ? 1 : 0) || Number(x.line) - Number(y.line);
}

/**
 * Baseline file -> current file: the code of one notebook cell in both runs (each run names it by its
 * own kernel and text), then the rest by path (`matchFiles`).
 */
function pairFiles(baseline: ComparisonSide, b: readonly string[], current: ComparisonSide, c: readonly string[]): Map<string, string> {
  const cellKey = (file: string, places: CellPlaces | undefined) => {
    const place = placeOf(file, places);
    return place ? `${place.notebook}\u0000${place.cell}` : undefined;
  };
  const currentByCell = new Map<string, string[]>();
  for (const file of c) {
    const key = cellKey(file, current.places);
    if (key !== undefined) currentByCell.set(key, [...(currentByCell.get(key) ?? []), file]);
  }
  const paired = new Map<string, string>();
  const restB: string[] = [];
  const taken = new Set<string>();
  const baselineByCell = new Map<string, string[]>();
  for (const file of b) {
    const key = cellKey(file, baseline.places);
    if (key === undefined) restB.push(file);
    else baselineByCell.set(key, [...(baselineByCell.get(key) ?? []), file]);
  }
  for (const [key, files] of baselineByCell) {
    const counterparts = currentByCell.get(key) ?? [];
    // One name per cell on each side pairs; a cell that ran under several names is paired by name below.
    if (files.length === 1 && counterparts.length === 1) {
      paired.set(files[0], counterparts[0]);
      taken.add(counterparts[0]);
    } else {
      restB.push(...files);
    }
  }
  for (const [x, y] of matchFiles(restB, c.filter((f) => !taken.has(f)))) paired.set(x, y);
  return paired;
}

/** `figures`: the per-line figures compared (the registry's; tests plant more). */
export function compareRuns(baseline: ComparisonSide, current: ComparisonSide, figures: FigureRegistry = LINE_FIGURES): Comparison {
  const figuresOf = (l: LineFigures) => figureValues(l, figures);
  const side = (l: LineFigures) => ({ file: l.file, line: l.line, figures: figuresOf(l) });
  const zero = zeroFigures(figures);
  const baselineFiles = groupByFile(baseline.lines);
  const currentFiles = groupByFile(current.lines);
  const files = pairFiles(baseline, [...baselineFiles.keys()], current, [...currentFiles.keys()]);
  const deltas: LineDelta[] = [];
  const pairedCurrentFiles = new Set(files.values());

  for (const [file, lines] of baselineFiles) {
    const counterpart = files.get(file);
    const matching = matchLines(lines, counterpart ? currentFiles.get(counterpart)! : [], baseline.lineText, current.lineText);
    for (const p of matching.pairs) {
      const b = figuresOf(p.baseline);
      const c = figuresOf(p.current);
      deltas.push({
        file: p.current.file,
        line: p.current.line,
        baseline: side(p.baseline),
        current: side(p.current),
        match: p.match,
        delta: subtract(c, b, figures),
      });
    }
    for (const b of matching.baselineOnly) deltas.push({ file: b.file, line: b.line, baseline: side(b), delta: subtract(zero, figuresOf(b), figures) });
    for (const c of matching.currentOnly) deltas.push({ file: c.file, line: c.line, current: side(c), delta: figuresOf(c) });
  }
  for (const [file, lines] of currentFiles) {
    if (pairedCurrentFiles.has(file)) continue;
    for (const c of lines) deltas.push({ file: c.file, line: c.line, current: side(c), delta: figuresOf(c) });
  }
  deltas.sort(compareByChange);
  return {
    baseline: { label: baseline.label, device: baseline.device, totals: baseline.totals },
    current: { label: current.label, device: current.device, totals: current.totals },
    totalsDelta: totalsDelta(baseline.totals, current.totals),
    lines: deltas,
    files,
  };
}

/** Lines whose figures changed at all (lines with identical figures on both sides are left out). */
export function changedLines(comparison: Comparison): LineDelta[] {
  return comparison.lines.filter((l) => Object.values(l.delta).some((d) => d !== 0));
}
