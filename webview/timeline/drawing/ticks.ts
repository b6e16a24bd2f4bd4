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

function compactCount(n: number): string {
  const a = Math.abs(n);
  if (a >= 1e6) return `${+(n / 1e6).toFixed(a >= 1e7 ? 1 : 2)}M`;
  if (a >= 1e3) return `${+(n / 1e3).toFixed(a >= 1e4 ? 0 : 1)}k`;
  return String(Math.round(n));
}

/** Ticks on the event axis (x = state index; labelled by event number). */
export function eventTicks(x0: number, x1: number, count: number): Tick[] {
  const step = Math.max(1, niceDecimalStep(x1 - x0, count));
  const ticks: Tick[] = [];
  // Compact labels (12k) only when the step is round enough for them not to repeat.
  const label = (v: number) => (step >= 1000 || v < 1000 ? compactCount(v) : formatCount(v));
  for (let v = Math.ceil(x0 / step) * step; v <= x1; v += step) ticks.push({ value: v, label: label(v) });
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
