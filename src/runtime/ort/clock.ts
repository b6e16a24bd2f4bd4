/** Microseconds since the Unix epoch with sub-millisecond resolution (the unit of PyTorch's `time_us`). */
export function epochMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}
