/**
 * The measured device-memory line (NVML samples of a workload run) placed on a timeline axis, thinned
 * to a bounded number of points that keeps every bucket's lowest and highest sample.
 */
import type { MeasuredDeviceMemory } from '../snapshot/model';

/** Samples as the chart draws them: x on the axis, bytes, in time order. */
export interface MeasuredLine {
  /** Where the samples come from, e.g. `nvml`. */
  readonly source: string;
  readonly x: Float64Array;
  readonly bytes: Float64Array;
}

/** The samples of `measured` at `toX(timeUs)`; above `maxPoints`, the min and max of each of `maxPoints / 2` buckets. */
export function measuredLine(measured: MeasuredDeviceMemory, toX: (timeUs: number) => number, maxPoints = 4096): MeasuredLine {
  const n = Math.min(measured.timeUs.length, measured.bytes.length);
  const keep: number[] = [];
  if (n <= maxPoints) {
    for (let i = 0; i < n; i++) keep.push(i);
  } else {
    const buckets = Math.max(1, Math.floor(maxPoints / 2));
    for (let b = 0; b < buckets; b++) {
      const from = Math.floor((b * n) / buckets);
      const to = Math.floor(((b + 1) * n) / buckets);
      let lo = from;
      let hi = from;
      for (let i = from; i < to; i++) {
        if (measured.bytes[i] < measured.bytes[lo]) lo = i;
        if (measured.bytes[i] > measured.bytes[hi]) hi = i;
      }
      if (lo === hi) keep.push(lo);
      else keep.push(Math.min(lo, hi), Math.max(lo, hi));
    }
  }
  const x = new Float64Array(keep.length);
  const bytes = new Float64Array(keep.length);
  keep.forEach((i, k) => {
    x[k] = toX(measured.timeUs[i]);
    bytes[k] = measured.bytes[i];
  });
  return { source: measured.source, x, bytes };
}
