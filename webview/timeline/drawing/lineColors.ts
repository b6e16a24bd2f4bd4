/**
 * Colours for the lines a user compares first: the ten lines holding the most at the peak get ten
 * different palette colours. Each line's colour is the stable hash of `file:line` (lineColor in the
 * core) unless a larger line already has it; then it takes the next free colour. Lines beyond the
 * ten keep their hash. No DOM: tested in Node.
 */
import type { LineRow } from '../../../src/protocol/timeline';
import { FIGURE } from '../../../src/engine/analysis/lineFigures';

export const DISTINCT_LINES = 10;

/** Line id -> palette index, for the lines whose colour differs from their hash (and the top ten). */
export function distinctLineColors(rows: readonly LineRow[], paletteSize: number, distinct = DISTINCT_LINES): Map<number, number> {
  const ranked = rows
    .filter((r) => r[FIGURE.heldAtPeak] > 0 || r[FIGURE.allocated] > 0)
    .sort((a, b) => b[FIGURE.heldAtPeak] - a[FIGURE.heldAtPeak] || b[FIGURE.allocated] - a[FIGURE.allocated] || a.id - b.id)
    .slice(0, Math.min(distinct, paletteSize));
  const taken = new Set<number>();
  const colors = new Map<number, number>();
  for (const r of ranked) {
    let c = ((r.color % paletteSize) + paletteSize) % paletteSize;
    while (taken.has(c)) c = (c + 1) % paletteSize;
    taken.add(c);
    colors.set(r.id, c);
  }
  return colors;
}
