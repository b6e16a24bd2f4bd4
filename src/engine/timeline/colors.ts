/**
 * The colour of a source line in every view: a stable hash of `file:line` into a fixed-size
 * categorical palette, so one line keeps its colour across zooms, snapshots and sessions.
 */
import type { LineNumber } from '../snapshot/model';

/** Number of colours in the categorical palette the views define. */
export const PALETTE_SIZE = 12;

/** FNV-1a over the UTF-16 code units of `file:line`, reduced into the palette. */
export function lineColor(file: string, line: LineNumber): number {
  const key = `${file}:${String(line)}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % PALETTE_SIZE;
}
