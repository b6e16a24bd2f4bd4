/**
 * What the editor draws on each line of a source file: a heat bucket for the gutter mark, the quiet
 * inline text, whether the line gets an overview-ruler mark, and whether it is stale. Pure and cheap
 * (a 10,000-line file is benchmarked in bench/annotate.mjs), so the extension only turns the result
 * into decoration ranges.
 */
import type { LineFigures } from '../analysis/lines';
import type { LineFigureKey } from '../analysis/lineFigures';
import { FIGURE } from '../analysis/lineFigures';
import { HEAT_STEPS, lineHeat } from './heat';
import { DEFAULT_INLINE_FIGURES, DEFAULT_INLINE_MAX_LENGTH, inlineTextBuilder } from './inlineFigures';
import type { Relocation, RelocationKind } from './relocation';

export interface AnnotationOptions {
  /** Which of the registry's figures the inline text shows, in this order. */
  readonly figures: readonly LineFigureKey[];
  /** The inline text's budget in characters: figures that do not fit are dropped. */
  readonly maxLength: number;
  /** Lines whose memory is below this fraction of the peak show nothing (0.01 = 1%). */
  readonly thresholdFraction: number;
  /** How many of the file's heaviest lines get an overview-ruler mark. */
  readonly overviewLines: number;
}

export const DEFAULT_ANNOTATION_OPTIONS: AnnotationOptions = {
  figures: DEFAULT_INLINE_FIGURES,
  maxLength: DEFAULT_INLINE_MAX_LENGTH,
  thresholdFraction: 0.01,
  overviewLines: 5,
};

/** Where an original (recorded) line is now; undefined when it is gone. */
export type Placement = (originalLine: number) => { readonly line: number; readonly stale: boolean } | undefined;

export interface LineAnnotation {
  /** 0-based line in the document as it is now. */
  readonly line: number;
  /** 0-based line as recorded in the snapshot. */
  readonly originalLine: number;
  /** Whether the recorded line is inside the function its frames name (see relocation.ts). */
  readonly relocation: RelocationKind;
  /** Heat step, 0 (coolest) .. HEAT_STEPS-1: the share of the peak the line holds at the peak. */
  readonly bucket: number;
  readonly text: string;
  readonly stale: boolean;
  readonly overview: boolean;
  readonly figures: LineFigures;
}

export interface FileAnnotations {
  /** Every shown line, by ascending document line. */
  readonly lines: readonly LineAnnotation[];
  /** The same lines grouped by heat step (fresh lines only); index = step. */
  readonly byBucket: readonly (readonly LineAnnotation[])[];
  readonly stale: readonly LineAnnotation[];
  /** Document lines that get an overview-ruler mark. */
  readonly overview: readonly number[];
}

/** How much memory the line stands for: what it (and its callees) allocated, or held at the peak. */
export function lineWeight(f: LineFigures): number {
  return Math.max(f[FIGURE.allocatedWithCalls], f[FIGURE.heldAtPeakWithCalls]);
}

const STALE_MARK = ' (stale)';
const NOT_FOUND_MARK = ' (changed?)';
const MOVED_MARK = ' (moved)';

/** Where the recorded line of `f` (0-based) goes in the file as first annotated, and why. */
export type Relocate = (f: LineFigures, recordedLine: number) => Relocation;
const NO_RELOCATION: Relocate = (_f, line) => ({ line, kind: 'inside' });

const IDENTITY: Placement = (line) => ({ line, stale: false });

/**
 * Builds the annotations of one file from its lines' figures. `lineCount` drops lines past the end
 * of the document (a file that changed since the recording); `placement` follows edits.
 */
export function buildFileAnnotations(
  figures: readonly LineFigures[],
  peakBytes: number,
  lineCount: number,
  options: AnnotationOptions = DEFAULT_ANNOTATION_OPTIONS,
  placement: Placement = IDENTITY,
  relocate: Relocate = NO_RELOCATION,
): FileAnnotations {
  const minimum = options.thresholdFraction * peakBytes;
  const text = inlineTextBuilder(options.figures);
  // Indexed by document line: placing is also sorting.
  const byLine: (LineAnnotation | undefined)[] = [];
  for (const f of figures) {
    if (typeof f.line !== 'number' || f.line < 1) continue;
    const weight = lineWeight(f);
    if (weight <= 0 || weight < minimum) continue;
    const originalLine = f.line - 1;
    const relocation = relocate(f, originalLine);
    const placed = placement(relocation.line);
    if (!placed || placed.line < 0 || placed.line >= lineCount) continue;
    const existing = byLine[placed.line];
    // Two recorded paths can map to one file: the heavier line wins.
    if (existing && lineWeight(existing.figures) >= weight) continue;
    const mark =
      (relocation.kind === 'relocated' ? MOVED_MARK : relocation.kind === 'notFound' ? NOT_FOUND_MARK : '') + (placed.stale ? STALE_MARK : '');
    const inline = text(f, peakBytes, options.maxLength - mark.length);
    // The figures do not fit beside the mark: the mark alone (the hover has the figures).
    const shown = inline !== '' ? `${inline}${mark}` : mark !== '' && text(f, peakBytes, options.maxLength) !== '' ? mark.trim() : '';
    byLine[placed.line] = {
      line: placed.line,
      originalLine,
      relocation: relocation.kind,
      bucket: lineHeat(f, peakBytes),
      text: shown,
      stale: placed.stale,
      overview: false,
      figures: f,
    };
  }

  const lines: LineAnnotation[] = [];
  for (const l of byLine) if (l) lines.push(l);
  const heaviest = heaviestLines(lines, options.overviewLines);
  const byBucket: LineAnnotation[][] = Array.from({ length: HEAT_STEPS }, () => []);
  const stale: LineAnnotation[] = [];
  const overview: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    let l = lines[i];
    if (heaviest.has(l)) {
      l = lines[i] = { ...l, overview: true };
      overview.push(l.line);
    }
    if (l.stale) stale.push(l);
    else byBucket[l.bucket].push(l);
  }
  return { lines, byBucket, stale, overview };
}

/** Ranks by memory held at the peak, then by weight: the `count` heaviest, without sorting them all. */
function heaviestLines(lines: readonly LineAnnotation[], count: number): Set<LineAnnotation> {
  const heavier = (a: LineAnnotation, b: LineAnnotation) =>
    a.figures[FIGURE.heldAtPeakWithCalls] - b.figures[FIGURE.heldAtPeakWithCalls] || lineWeight(a.figures) - lineWeight(b.figures);
  const top: LineAnnotation[] = [];
  if (count <= 0) return new Set();
  for (const l of lines) {
    if (top.length === count && heavier(l, top[top.length - 1]) <= 0) continue;
    let i = Math.min(top.length, count - 1);
    top[i] = l;
    while (i > 0 && heavier(top[i], top[i - 1]) > 0) {
      [top[i], top[i - 1]] = [top[i - 1], top[i]];
      i--;
    }
  }
  return new Set(top);
}
