/** Binary search over sorted numeric columns. */

/** Smallest i in [0, length) with values[i] >= x, or length (values non-decreasing). */
export function lowerBound(values: ArrayLike<number>, x: number, length = values.length): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
