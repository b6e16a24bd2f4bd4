/** The JSON form of a comparison (`vram-lens diff --json`, and what the results panel is sent). */
import type { Comparison, FigureValues, LineDelta } from './diff';
import type { LineNumber } from '../snapshot/model';
import type { MatchKind } from './lineMatch';
import type { Overlay } from './overlay';
import type { CellPlaces, PlacedLine } from '../paths/places';
import { placeLine } from '../paths/places';

/** Where a side's line is: a file's line, or a notebook cell's (`placeLine`). */
export type LineDeltaReport = PlacedLine<LineNumber> & {
  /** 'line' / 'text': paired (by line number, or by moved source text); 'baseline' / 'current': on one side only. */
  match: MatchKind | 'baseline' | 'current';
  baseline: (PlacedLine<LineNumber> & { figures: FigureValues }) | null;
  current: (PlacedLine<LineNumber> & { figures: FigureValues }) | null;
  delta: FigureValues;
};

export interface ComparisonReport {
  baseline: Comparison['baseline'];
  current: Comparison['current'];
  totalsDelta: Comparison['totalsDelta'];
  /** Lines with any change, ranked by change in live-at-peak bytes. */
  lines: LineDeltaReport[];
  /** Changed lines in all (`lines` may be cut to the top N). */
  changedLineCount: number;
  /** [baseline file, current file] for files recorded in both runs. */
  files: [string, string][];
  overlay?: Overlay;
}

/** `places`: the notebook cells of both runs' recorded cell files (a cell name stands for the same text, whichever run). */
export function lineDeltaReport(l: LineDelta, places?: CellPlaces): LineDeltaReport {
  const side = (s: { file: string; line: LineNumber; figures: FigureValues } | undefined) =>
    s ? { ...placeLine(s.file, s.line, places), figures: s.figures } : null;
  return {
    ...placeLine(l.file, l.line, places),
    match: l.match ?? (l.current ? 'current' : 'baseline'),
    baseline: side(l.baseline),
    current: side(l.current),
    delta: l.delta,
  };
}

export function toComparisonReport(c: Comparison, changed: readonly LineDelta[], top?: number, overlay?: Overlay, places?: CellPlaces): ComparisonReport {
  return {
    baseline: c.baseline,
    current: c.current,
    totalsDelta: c.totalsDelta,
    lines: (top === undefined ? changed : changed.slice(0, top)).map((l) => lineDeltaReport(l, places)),
    changedLineCount: changed.length,
    files: [...c.files],
    ...(overlay ? { overlay } : {}),
  };
}
