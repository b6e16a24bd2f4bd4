/**
 * The per-line figures, declared once (spec: "Per-line figures"). The CLI, compare, the summary, the
 * timeline's table, the inline text, the hover and the settings' enum derive their lists from here, so a
 * new figure is one edit.
 */
import type { LineFigures } from './lines';

export type LineFigureKey = Exclude<keyof LineFigures, 'file' | 'line' | 'lineId'>;

export interface LineFigureSpec {
  readonly key: LineFigureKey;
  /** Words for tables and hovers. */
  readonly label: string;
  readonly unit: 'bytes' | 'count';
  /** Counted on every user frame of the stack (inclusive) rather than the innermost one (self). */
  readonly inclusive: boolean;
  readonly description: string;
}

export const LINE_FIGURES: readonly LineFigureSpec[] = [
  { key: 'liveAtPeakBytes', label: 'live at peak', unit: 'bytes', inclusive: false, description: 'Bytes this line allocated that are live at the device peak.' },
  { key: 'allocBytes', label: 'allocated', unit: 'bytes', inclusive: false, description: 'Bytes this line allocated over the whole recording.' },
  { key: 'allocCount', label: 'allocations', unit: 'count', inclusive: false, description: 'Number of allocations made by this line.' },
  { key: 'freedBytes', label: 'freed', unit: 'bytes', inclusive: false, description: 'Bytes whose free was requested from this line.' },
  { key: 'peakBytes', label: 'peak while allocating', unit: 'bytes', inclusive: false, description: 'The highest active memory right after an allocation of this line.' },
  { key: 'inclusiveLiveAtPeakBytes', label: 'live at peak (incl. callees)', unit: 'bytes', inclusive: true, description: 'Bytes live at the device peak allocated by this line or anything it called.' },
  { key: 'inclusiveAllocBytes', label: 'allocated (incl. callees)', unit: 'bytes', inclusive: true, description: 'Bytes allocated by this line or anything it called.' },
  { key: 'inclusivePeakBytes', label: 'peak while allocating (incl. callees)', unit: 'bytes', inclusive: true, description: 'The highest active memory right after an allocation by this line or anything it called.' },
];

export const LINE_FIGURE_KEYS: readonly LineFigureKey[] = LINE_FIGURES.map((f) => f.key);

export function lineFigure(key: LineFigureKey): LineFigureSpec {
  const spec = LINE_FIGURES.find((f) => f.key === key);
  if (spec === undefined) throw new Error(`unknown line figure ${key}`);
  return spec;
}
