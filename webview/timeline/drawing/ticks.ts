import { formatAxisBytes, formatCount } from '../../../src/engine/text/format';
/** Axis ticks and labels: bytes in binary units, event counts, and wall time relative to the start. */

export interface Tick {
  readonly value: number;
  readonly label: string;
}

/** 1, 2, 5 x 10^k: the smallest such step giving at most `count` intervals over `span`. */
function niceDecimalStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

/** Byte ticks every power of two (256 MiB, 512 MiB, 1 GiB, ...): about `count` intervals over [min, max]. */
export function byteTicks(min: number, max: number, count: number): Tick[] {
  if (!(max > min)) return [{ value: min, label: formatAxisBytes(min) }];
  const raw = (max - min) / Math.max(1, count);
  const step = Math.pow(2, Math.max(0, Math.ceil(Math.log2(raw))));
  const ticks: Tick[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max; v += step) ticks.push({ value: v, label: formatAxisBytes(v) });
  return ticks;
}

/** "12k", "1.385M": with the decimals the tick step needs, so that no two ticks read the same. */
function compactCount(n: number, step: number): string {
  const a = Math.abs(n);
  const [unit, suffix] = a >= 1e6 ? [1e6, 'M'] : a >= 1e3 ? [1e3, 'k'] : [1, ''];
  const decimals = Math.min(6, Math.max(0, Math.ceil(-Math.log10(step / unit) - 1e-9), a >= 10 * unit ? 0 : 1));
  return `${+(n / unit).toFixed(decimals)}${suffix}`;
}

/**
 * Ticks on the event axis (x = state index; labelled by event number), numbered as the recording
 * numbers its events: a loaded window's x = 0 is the recording's event `first`, and the ticks fall
 * on round numbers of the recording.
 */
export function eventTicks(x0: number, x1: number, count: number, first = 0): Tick[] {
  const step = Math.max(1, niceDecimalStep(x1 - x0, count));
  const ticks: Tick[] = [];
  // Compact labels (12k) only when the step is round enough for them not to repeat.
  const label = (v: number) => (step >= 1000 || v < 1000 ? compactCount(v, step) : formatCount(v));
  for (let v = Math.ceil((x0 + first) / step) * step; v <= x1 + first; v += step) ticks.push({ value: v - first, label: label(v) });
  return ticks;
}

/** A duration in µs, in the unit that reads best for a step of `stepUs`. */
export function formatDuration(us: number, stepUs = Math.abs(us)): string {
  if (stepUs < 1000) return `${+us.toFixed(0)} µs`;
  if (stepUs < 1e6) return `${+(us / 1000).toFixed(stepUs < 10_000 ? 1 : 0)} ms`;
  return `${+(us / 1e6).toFixed(stepUs < 1e7 ? 1 : 0)} s`;
}

/** Ticks on the time axis, labelled relative to `origin` (the first event). */
export function timeTicks(x0: number, x1: number, origin: number, count: number): Tick[] {
  const step = Math.max(1, niceDecimalStep(x1 - x0, count));
  const ticks: Tick[] = [];
  for (let v = Math.ceil((x0 - origin) / step) * step; origin + v <= x1; v += step) {
    ticks.push({ value: origin + v, label: formatDuration(v, step) });
  }
  return ticks;
}
