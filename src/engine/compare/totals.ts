/**
 * A device's active and reserved totals, downsampled to a few thousand points without losing
 * peaks: each point is the maximum over its bucket. Positions are on an event axis (position 0 is
 * the state before the first event, position i+1 the state after event i) or a time axis
 * (microseconds since the first event, where the trace has times).
 */
import type { DeviceReplay } from '../analysis/replay';

export type SeriesAxis = 'event' | 'time';

export interface TotalsSeries {
  readonly axis: SeriesAxis;
  /** Length of the axis: events + 1 positions, or microseconds from the first to the last event. */
  readonly extent: number;
  /** Start of each bucket on the axis (ascending, first is 0); a bucket ends where the next starts. */
  readonly x: readonly number[];
  /** Largest active bytes within each bucket. */
  readonly active: readonly number[];
  /** Largest reserved bytes within each bucket. */
  readonly reserved: readonly number[];
}

type Totals = Pick<DeviceReplay, 'active' | 'reserved' | 'initialActiveBytes' | 'initialReservedBytes'>;

/** Thrown when a time axis is asked of a trace without `time_us` (PyTorch 2.0). */
export class NoTimesError extends Error {
  override readonly name = 'NoTimesError';
}

/**
 * Downsamples to at most `points` buckets of equal width on the axis. On the time axis a bucket
 * with no event holds the state that entered it (memory stays where it was between events).
 */
export function downsampleTotals(replay: Totals, timeUs: Float64Array, axis: SeriesAxis, points: number): TotalsSeries {
  const n = replay.active.length;
  const buckets = Math.max(1, Math.floor(points));
  // position p -> value: p = 0 is the initial state, p = i + 1 is after event i.
  const activeAt = (p: number) => (p === 0 ? replay.initialActiveBytes : replay.active[p - 1]);
  const reservedAt = (p: number) => (p === 0 ? replay.initialReservedBytes : replay.reserved[p - 1]);
  const x: number[] = [];
  const active: number[] = [];
  const reserved: number[] = [];

  if (axis === 'event') {
    const positions = n + 1;
    const count = Math.min(buckets, positions);
    for (let k = 0; k < count; k++) {
      const from = Math.floor((k * positions) / count);
      const to = Math.floor(((k + 1) * positions) / count);
      let a = -Infinity;
      let r = -Infinity;
      for (let p = from; p < to; p++) {
        a = Math.max(a, activeAt(p));
        r = Math.max(r, reservedAt(p));
      }
      x.push(from);
      active.push(a);
      reserved.push(r);
    }
    return { axis, extent: positions, x, active, reserved };
  }

  if (n > 0 && timeUs.some((t) => Number.isNaN(t))) throw new NoTimesError('this trace has no timestamps (PyTorch 2.0); use the event axis');
  const t0 = n > 0 ? timeUs[0] : 0;
  // Times are non-decreasing in practice; clamp so a stray earlier stamp cannot go backwards.
  const at = new Float64Array(n);
  let last = 0;
  for (let i = 0; i < n; i++) {
    last = Math.max(last, timeUs[i] - t0);
    at[i] = last;
  }
  const extent = last;
  const width = extent / buckets;
  let p = 0; // next position to consume (1..n)
  let enteringActive = activeAt(0);
  let enteringReserved = reservedAt(0);
  const count = extent === 0 ? 1 : buckets;
  for (let k = 0; k < count; k++) {
    const end = k === count - 1 ? Infinity : (k + 1) * width;
    let a = enteringActive;
    let r = enteringReserved;
    while (p < n && at[p] < end) {
      a = Math.max(a, replay.active[p]);
      r = Math.max(r, replay.reserved[p]);
      enteringActive = replay.active[p];
      enteringReserved = replay.reserved[p];
      p++;
    }
    x.push(k * width);
    active.push(a);
    reserved.push(r);
  }
  return { axis, extent, x, active, reserved };
}
