/** The x span the chart shows, how zooming and panning move it inside the domain, and the y range. */
import type { TimelineOverview } from '../../../src/protocol/timeline';

export interface Domain {
  readonly start: number;
  readonly end: number;
  /** Narrowest span allowed (a few states on the event axis). */
  readonly minWidth: number;
}

export interface Viewport {
  readonly x0: number;
  readonly x1: number;
}

/** The x range of an overview's axis, and the narrowest span: four events, or four states' worth of time. */
export function domainOf(o: TimelineOverview): Domain {
  const span = o.axis.end - o.axis.start;
  const minWidth = o.axis.kind === 'event' ? Math.min(span, 4) : Math.min(span, Math.max(4, (span / o.axis.states) * 4));
  return { start: o.axis.start, end: o.axis.end, minWidth };
}

/** Keeps a span inside the domain, at least `minWidth` wide, moving rather than shrinking it. */
export function clampViewport(v: Viewport, d: Domain): Viewport {
  const full = d.end - d.start;
  let width = Math.min(full, Math.max(d.minWidth, v.x1 - v.x0));
  if (!(width > 0)) width = full;
  let x0 = v.x0;
  if (!Number.isFinite(x0)) x0 = d.start;
  x0 = Math.min(Math.max(x0, d.start), d.end - width);
  return { x0, x1: x0 + width };
}

/** Zooms by `factor` (> 1 zooms in) keeping the x at `anchor` (0..1 across the span) in place. */
export function zoom(v: Viewport, factor: number, anchor: number, d: Domain): Viewport {
  const width = v.x1 - v.x0;
  const at = v.x0 + width * anchor;
  const next = Math.min(d.end - d.start, Math.max(d.minWidth, width / factor));
  return clampViewport({ x0: at - next * anchor, x1: at - next * anchor + next }, d);
}

/** Pans by a fraction of the span's width (negative: to the left). */
export function pan(v: Viewport, fraction: number, d: Domain): Viewport {
  const dx = (v.x1 - v.x0) * fraction;
  return clampViewport({ x0: v.x0 + dx, x1: v.x1 + dx }, d);
}

export function sameViewport(a: Viewport, b: Viewport): boolean {
  const eps = (a.x1 - a.x0) * 1e-9;
  return Math.abs(a.x0 - b.x0) <= eps && Math.abs(a.x1 - b.x1) <= eps;
}

/**
 * The y range after zooming `current` by `factor` (> 1 zooms in) keeping the bytes at `anchor`
 * (0 bottom .. 1 top) in place: undefined (fit to the span again) when it shows all of [0, fitted].
 */
export function zoomYRange(current: { min: number; max: number }, factor: number, anchor: number, fitted: number): { min: number; max: number } | undefined {
  const at = current.min + (current.max - current.min) * anchor;
  const span = Math.max(1024, (current.max - current.min) / factor);
  let min = Math.max(0, at - span * anchor);
  const max = min + span;
  if (min === 0 && max >= fitted) return undefined;
  min = Math.min(min, Math.max(0, fitted - span));
  return { min, max: min + span };
}

/** Highest bytes the overview shows inside the viewport, with the chart's headroom (to size the offset quantum). */
export function estimateYMax(o: TimelineOverview | undefined, v: Viewport | undefined): number {
  if (!o) return 0;
  const s = o.summary;
  let max = 0;
  for (let i = 0; i < s.stepState.length; i++) {
    if (v && (s.stepX[i + 1] <= v.x0 || s.stepX[i] >= v.x1)) continue;
    max = Math.max(max, s.reserved[i], s.envelope[i]);
  }
  return max * 1.06;
}
