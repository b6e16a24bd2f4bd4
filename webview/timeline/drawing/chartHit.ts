/**
 * What is under a point of the chart, and where a block can be pointed at: pure geometry over the
 * last frame's plot, scene and finding spots (no drawing).
 */
import type { TimelineOverview, TimelineSpan } from '../../../src/protocol/timeline';
import type { Hit } from './hit';
import type { FindingSpot } from './layers/markersLayer';
import type { Plot } from './plot';
import { indexOfRecord, LANE_HEIGHT, scalesOf } from './plot';
import { blockRuns, offsetAt, runEnd } from './runs';

/** What the last frame drew, as hit testing needs it. */
export interface DrawnFrame {
  readonly plot: Plot;
  readonly overview: TimelineOverview;
  /** The span drawn (undefined when it was for another axis). */
  readonly span: TimelineSpan | undefined;
  readonly findingSpots: readonly FindingSpot[];
}

/** What is under a point given in CSS pixels relative to the canvas. */
export function hitTest(frame: DrawnFrame, cssX: number, cssY: number): Hit | undefined {
  const { plot, overview, span: w } = frame;
  const x = cssX * plot.dpr;
  const y = cssY * plot.dpr;
  const toX = (p: number) => plot.x0 + ((p - plot.left) / plot.width) * (plot.x1 - plot.x0);
  const { sx } = scalesOf(plot);
  if (x < plot.left || x > plot.left + plot.width) return undefined;
  if (y < plot.top) {
    const lane = Math.floor((y - plot.lanesTop) / (LANE_HEIGHT * plot.dpr));
    const at = toX(x);
    const index = overview.annotations.findIndex((a) => a.lane === lane && a.x0 <= at && at <= a.x1);
    return index >= 0 ? { kind: 'annotation', index } : undefined;
  }
  const near = 3 * plot.dpr;
  if (y > plot.top + plot.height) {
    if (!w || y > plot.top + plot.height + 8 * plot.dpr) return undefined;
    const release = Array.from(w.releaseX).findIndex((rx) => Math.abs(sx(rx) - x) <= near);
    return release >= 0 ? { kind: 'release', index: release } : undefined;
  }
  const spot = frame.findingSpots.find((f) => Math.abs(f.y - y) <= 6 * plot.dpr && x >= f.x0 && x <= f.x1);
  if (spot) return { kind: 'finding', marker: spot.marker };
  const oom = overview.ooms.findIndex((o) => Math.abs(sx(o.x) - x) <= near);
  if (oom >= 0) return { kind: 'oom', index: oom };
  if (!w || w.stepState.length === 0) return undefined;
  const at = toX(x);
  let lo = 0;
  let hi = w.stepState.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (w.stepX[mid] <= at) lo = mid;
    else hi = mid - 1;
  }
  const step = lo;
  if (at < w.stepX[step] || at >= w.stepX[step + 1]) return undefined;
  const bytes = plot.yMin + ((plot.top + plot.height - y) / plot.height) * (plot.yMax - plot.yMin);
  // The block under the point, or else the largest block crossing the pixel row under it (blocks
  // thinner than a pixel can still be pointed at).
  const rowBytes = (plot.yMax - plot.yMin) / plot.height;
  let best = -1;
  const runs = blockRuns(w);
  for (let j = 0; j < w.blockRecord.length; j++) {
    if (step < w.blockFirstStep[j] || step > w.blockLastStep[j]) continue;
    const offset = offsetAt(runs, j, step);
    const end = offset + w.blockSize[j];
    if (bytes >= offset && bytes < end) {
      best = j;
      break;
    }
    if (end > bytes - rowBytes / 2 && offset < bytes + rowBytes / 2 && (best < 0 || w.blockSize[j] > w.blockSize[best])) best = j;
  }
  if (best >= 0) return { kind: 'block', index: best, record: w.blockRecord[best], step };
  if (Math.abs(sx(overview.peak.x) - x) <= near) return { kind: 'peak' };
  if (bytes < w.envelope[step]) return { kind: 'rest', step };
  if (overview.reservedUnknown === undefined && bytes < w.reserved[step]) return { kind: 'reserved', step };
  return undefined;
}

/**
 * A CSS-pixel point inside block `record` (relative to the canvas) away from the peak and OOM
 * markers and the findings, with the block's height there in CSS pixels; undefined when it is not on screen.
 */
export function pointOfRecord(
  frame: Omit<DrawnFrame, 'span'>,
  w: TimelineSpan,
  record: number,
): { x: number; y: number; height: number } | undefined {
  const { plot, overview } = frame;
  const j = indexOfRecord(w, record);
  if (j < 0) return undefined;
  const { sx } = scalesOf(plot);
  const markers = [overview.peak.x, ...overview.ooms.map((o) => o.x)].map(sx);
  const height = (w.blockSize[j] / (plot.yMax - plot.yMin)) * plot.height;
  const runs = blockRuns(w);
  for (let k = w.blockRunStart[j]; k < w.blockRunStart[j + 1]; k++) {
    const a = Math.max(plot.left, sx(w.stepX[w.runStep[k]]));
    const b = Math.min(plot.left + plot.width, sx(w.stepX[runEnd(runs, j, k)]));
    if (b - a < 4 * plot.dpr) continue;
    for (const f of [0.5, 0.3, 0.7, 0.15, 0.85]) {
      const x = a + (b - a) * f;
      if (markers.some((m) => Math.abs(m - x) < 6 * plot.dpr)) continue;
      const mid = w.runOffset[k] + w.blockSize[j] / 2;
      const y = plot.top + plot.height - ((mid - plot.yMin) / (plot.yMax - plot.yMin)) * plot.height;
      if (y < plot.top || y > plot.top + plot.height) continue;
      if (frame.findingSpots.some((s) => Math.abs(s.y - y) <= 7 * plot.dpr && x >= s.x0 - plot.dpr && x <= s.x1 + plot.dpr)) continue;
      return { x: x / plot.dpr, y: y / plot.dpr, height: height / plot.dpr };
    }
  }
  return undefined;
}
