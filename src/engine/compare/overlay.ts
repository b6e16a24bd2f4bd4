/**
 * Two runs' totals on one axis, for drawing them over each other: by event index or by time
 * (both from each run's start, the shorter run ends early) or normalised (each run stretched to
 * 0-100% of its own length). Rebucketing keeps maxima: an input bucket that overlaps an output
 * bucket counts in it.
 */
import type { TotalsSeries } from './totals';

export type OverlayAxis = 'event' | 'time' | 'normalized';

export interface Overlay {
  readonly axis: OverlayAxis;
  /** Length of the common axis (events, microseconds, or 100). */
  readonly extent: number;
  /** Start of each output bucket on the common axis. */
  readonly x: readonly number[];
  /** Largest active bytes per bucket; null where that run has already ended. */
  readonly baseline: readonly (number | null)[];
  readonly current: readonly (number | null)[];
}

function rebucket(series: TotalsSeries, scale: number, extent: number, points: number): (number | null)[] {
  const out: (number | null)[] = new Array<number | null>(points).fill(null);
  const width = extent / points;
  const k = series.x.length;
  const sideEnd = series.extent * scale;
  for (let i = 0; i < k; i++) {
    const start = series.x[i] * scale;
    const end = i + 1 < k ? series.x[i + 1] * scale : sideEnd;
    const first = width > 0 ? Math.min(points - 1, Math.floor(start / width)) : 0;
    // A bucket touching [start, end): the end is exclusive unless the bucket has no width.
    let last = width > 0 ? Math.min(points - 1, Math.ceil(end / width) - 1) : 0;
    if (last < first) last = first;
    for (let j = first; j <= last; j++) {
      const v = series.active[i];
      const prev = out[j];
      out[j] = prev === null ? v : Math.max(prev, v);
    }
  }
  return out;
}

/** Aligns two series (both on the event axis, or both on the time axis) at `points` buckets. */
export function alignTotals(baseline: TotalsSeries, current: TotalsSeries, axis: OverlayAxis, points: number): Overlay {
  if (baseline.axis !== current.axis) throw new Error('both series must be on the same axis');
  if (axis !== 'normalized' && axis !== baseline.axis) throw new Error(`the series are on the ${baseline.axis} axis, not ${axis}`);
  const n = Math.max(1, Math.floor(points));
  const extent = axis === 'normalized' ? 100 : Math.max(baseline.extent, current.extent);
  const scaleOf = (s: TotalsSeries) => (axis === 'normalized' ? (s.extent > 0 ? 100 / s.extent : 1) : 1);
  const x = Array.from({ length: n }, (_, j) => (j * extent) / n);
  return {
    axis,
    extent,
    x,
    baseline: rebucket(baseline, scaleOf(baseline), extent, n),
    current: rebucket(current, scaleOf(current), extent, n),
  };
}
