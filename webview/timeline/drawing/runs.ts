/**
 * What a span's blocks and an allocator span's segments have in common: each item j is drawn as runs
 * over the span's steps, run k (for k in [runStart[j], runStart[j + 1])) holding the item's bottom offset
 * in bytes from step runStep[k] on, until the next run or past the item's last step. The look-ups and the
 * drawing of runs, written once for both (`blockRuns`, `pieceRuns`). No DOM beyond the canvas calls.
 */
import type { AllocatorSpan, TimelineSpan } from '../../../src/protocol/timeline';

export interface Runs {
  readonly stepX: Float64Array;
  readonly runStep: Int32Array;
  readonly runOffset: Float64Array;
  /** Item j's runs are [runStart[j], runStart[j + 1]). */
  readonly runStart: Int32Array;
  readonly lastStep: Int32Array;
  readonly size: Float64Array;
}

/** A span's blocks as runs. */
export function blockRuns(w: TimelineSpan): Runs {
  return { stepX: w.stepX, runStep: w.runStep, runOffset: w.runOffset, runStart: w.blockRunStart, lastStep: w.blockLastStep, size: w.blockSize };
}

/** An allocator span's segments as runs. */
export function pieceRuns(w: AllocatorSpan): Runs {
  return { stepX: w.stepX, runStep: w.runStep, runOffset: w.runOffset, runStart: w.pieceRunStart, lastStep: w.pieceLastStep, size: w.pieceSize };
}

/** Index of the last run of item j starting at or before `step`. */
function runAt(r: Runs, j: number, step: number): number {
  let lo = r.runStart[j];
  let hi = r.runStart[j + 1] - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (r.runStep[mid] <= step) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Bottom offset (bytes) of item j at `step`. */
export function offsetAt(r: Runs, j: number, step: number): number {
  return r.runOffset[runAt(r, j, step)];
}

/** The step after run k of item j ends (the next run's step, else one past the item's last). */
export function runEnd(r: Runs, j: number, k: number): number {
  return k + 1 < r.runStart[j + 1] ? r.runStep[k + 1] : r.lastStep[j] + 1;
}

/** Where runs are drawn: device-pixel x of an axis x, y of a byte count, and the plot's x extent. */
export interface RunView {
  readonly px: (x: number) => number;
  readonly sy: (bytes: number) => number;
  readonly left: number;
  readonly width: number;
}

/**
 * Adds item j's runs on screen to the path being filled, a rectangle each with its edges on whole device
 * pixels (neighbours share them, so nothing shows through seams), and the top edge of each to `edges`
 * where `edged(height)` says so (height: the rectangle's, in device pixels). How many rectangles it added.
 */
export function addRunRects(ctx: CanvasRenderingContext2D, edges: Path2D, r: Runs, j: number, view: RunView, edged: (height: number) => boolean): number {
  const { px, sy, left, width } = view;
  const size = r.size[j];
  let rects = 0;
  for (let k = r.runStart[j]; k < r.runStart[j + 1]; k++) {
    const a = px(r.stepX[r.runStep[k]]);
    const b = px(r.stepX[runEnd(r, j, k)]);
    if (b <= left || a >= left + width || b <= a) continue;
    const y = Math.round(sy(r.runOffset[k] + size));
    const yBottom = Math.round(sy(r.runOffset[k]));
    if (yBottom <= y) continue;
    ctx.rect(a, y, b - a, yBottom - y);
    rects++;
    if (edged(yBottom - y)) {
      edges.moveTo(a, y + 0.5);
      edges.lineTo(b, y + 0.5);
    }
  }
  return rects;
}
