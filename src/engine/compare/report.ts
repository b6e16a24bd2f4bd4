/** The JSON form of a comparison (`vram-lens diff --json`, and what the results panel is sent). */
import type { Comparison, FigureValues, LineDelta } from './diff';
import type { LineNumber } from '../snapshot/model';
import type { MatchKind } from './lineMatch';
import type { Overlay } from './overlay';

export interface LineDeltaReport {
  file: string;
  line: LineNumber;
  /** 'line' / 'text': paired (by line number, or by moved source text); 'baseline' / 'current': on one side only. */
  match: MatchKind | 'baseline' | 'current';
  baseline: { file: string; line: LineNumber; figures: FigureValues } | null;
  current: { file: string; line: LineNumber; figures: FigureValues } | null;
  delta: FigureValues;
}

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

export function lineDeltaReport(l: LineDelta): LineDeltaReport {
  return {
    file: l.file,
    line: l.line,
    match: l.match ?? (l.current ? 'current' : 'baseline'),
    baseline: l.baseline ?? null,
    current: l.current ?? null,
    delta: l.delta,
  };
}

export function toComparisonReport(c: Comparison, changed: readonly LineDelta[], top?: number, overlay?: Overlay): ComparisonReport {
  return {
    baseline: c.baseline,
    current: c.current,
    totalsDelta: c.totalsDelta,
    lines: (top === undefined ? changed : changed.slice(0, top)).map(lineDeltaReport),
    changedLineCount: changed.length,
    files: [...c.files],
    ...(overlay ? { overlay } : {}),
  };
}
