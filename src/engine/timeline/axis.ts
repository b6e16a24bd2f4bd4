/**
 * The timeline's x axes: where each state of a device's replay begins, by event index or by wall
 * time, and the inverse look-ups the span summariser needs (which states a pixel column covers).
 */
import type { AxisInfo, AxisKind } from './types';

export interface TimelineAxis {
  readonly kind: AxisKind;
  /** n + 1 states for n events. */
  readonly states: number;
  /** x where state s begins, for s in [0, states]; start(states) is the end of the domain. */
  start(s: number): number;
  /** The first state whose span ends after x (states - 1 when none does). */
  firstEndingAfter(x: number): number;
  /** The last state whose span begins before x (-1 when none does). */
  lastStartingBefore(x: number): number;
  info(): AxisInfo;
}

/** Event-index axis: state s spans [s, s + 1). */
export function eventAxis(states: number): TimelineAxis {
  return {
    kind: 'event',
    states,
    start: (s) => s,
    firstEndingAfter: (x) => Math.min(states - 1, Math.max(0, Math.floor(x))),
    lastStartingBefore: (x) => Math.min(states - 1, Math.ceil(x) - 1),
    info: () => ({ kind: 'event', start: 0, end: states, states }),
  };
}

/**
 * Wall-time axis over `time_us`: state s >= 1 spans [t(s - 1), t(s)), the last state as wide as the
 * mean gap between events (at least 1 µs). Times are made non-decreasing (a missing or earlier
 * time takes the previous one), and state 0 has no width.
 */
export function timeAxis(timeUs: Float64Array): TimelineAxis {
  const n = timeUs.length;
  const states = n + 1;
  const starts = new Float64Array(states + 1);
  let last = 0;
  for (let i = 0; i < n; i++) {
    if (!Number.isNaN(timeUs[i])) {
      last = timeUs[i];
      break;
    }
  }
  for (let i = 0; i < n; i++) {
    const t = timeUs[i];
    if (t > last) last = t;
    starts[i + 1] = last;
  }
  const first = n > 0 ? starts[1] : 0;
  starts[0] = first;
  const gap = n > 1 ? (starts[n] - first) / (n - 1) : 1;
  starts[states] = (n > 0 ? starts[n] : 0) + Math.max(1, gap);

  /** Smallest s in [lo, hi] with starts[s] > x, or hi + 1. */
  function upperBound(x: number, lo: number, hi: number): number {
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid] > x) hi = mid - 1;
      else lo = mid + 1;
    }
    return lo;
  }
  /** Smallest s in [lo, hi] with starts[s] >= x, or hi + 1. */
  function lowerBound(x: number, lo: number, hi: number): number {
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid] >= x) hi = mid - 1;
      else lo = mid + 1;
    }
    return lo;
  }
  return {
    kind: 'time',
    states,
    start: (s) => starts[s],
    // state s ends at starts[s + 1]; the first s with starts[s + 1] > x.
    firstEndingAfter: (x) => Math.min(states - 1, upperBound(x, 1, states) - 1),
    lastStartingBefore: (x) => lowerBound(x, 0, states - 1) - 1,
    info: () => ({ kind: 'time', start: starts[0], end: starts[states], states }),
  };
}

/** True when at least one event of the trace carries a time. */
export function hasTimes(timeUs: Float64Array): boolean {
  for (let i = 0; i < timeUs.length; i++) if (!Number.isNaN(timeUs[i])) return true;
  return false;
}
