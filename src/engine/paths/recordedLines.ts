/** Small rules for showing and opening what a snapshot recorded, shared by every view that opens a line. */
import { pathSegments } from './recordedPath';

/** A recorded 1-based line number as a line of a file that now has `lineCount` lines. */
export function clampLine(line: number, lineCount: number): number {
  const whole = Number.isFinite(line) ? Math.trunc(line) : 1;
  return Math.min(Math.max(1, whole), Math.max(1, lineCount));
}

/** The first `shown` recorded files under `root`, relative to it, and how many more there are. */
export function filesUnderRoot(root: string, files: readonly string[], shown = 3): { names: string[]; more: number } {
  const depth = pathSegments(root).length;
  return { names: files.slice(0, shown).map((f) => pathSegments(f).slice(depth).join('/')), more: Math.max(0, files.length - shown) };
}
