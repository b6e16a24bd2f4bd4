/**
 * The chart's geometry: where the plot sits on the canvas, the bytes range of its y axis, and the
 * conversions between axis x, bytes and device pixels; plus the look-ups into a span's blocks
 * that drawing and hit testing share.
 */
import type { TimelineOverview, TimelineSpan } from '../../../src/protocol/timeline';
import type { Viewport } from '../state/viewport';

export const MAX_LANES = 4;
export const LANE_HEIGHT = 14;
export const LEFT = 60;
export const RIGHT = 10;
export const BOTTOM = 20;

/** The plot of one frame, in device pixels. */
export interface Plot {
  readonly dpr: number;
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
  readonly x0: number;
  readonly x1: number;
  readonly yMin: number;
  readonly yMax: number;
  readonly lanesTop: number;
}

/** Axis x and bytes to device pixels (`px` rounds to whole pixels). */
export interface Scales {
  readonly sx: (x: number) => number;
  readonly px: (x: number) => number;
  readonly sy: (bytes: number) => number;
}

export function scalesOf(plot: Plot): Scales {
  const { left, top, width, height, x0, x1, yMin, yMax } = plot;
  const sx = (x: number) => left + ((x - x0) / (x1 - x0)) * width;
  return { sx, px: (x) => Math.round(sx(x)), sy: (b) => top + height - ((b - yMin) / (yMax - yMin)) * height };
}

/** The annotation lanes the overview needs (at most MAX_LANES). */
export function laneCount(overview: TimelineOverview): number {
  return Math.min(MAX_LANES, overview.annotations.reduce((m, a) => Math.max(m, a.lane + 1), 0));
}

/**
 * The plot of a frame: the canvas less the margins and the annotation lanes; the y range the
 * user set, else [0, 1.06 x the highest memory in the viewport].
 */
export function layoutPlot(
  canvas: { readonly width: number; readonly height: number },
  dpr: number,
  overview: TimelineOverview,
  w: TimelineSpan | undefined,
  viewport: Viewport,
  yRange: { readonly min: number; readonly max: number } | undefined,
  /** Bytes the y axis must reach besides the span's (the allocator view's reserved memory). */
  alsoMax = 0,
): Plot {
  const lanes = laneCount(overview);
  const lanesTop = 4 * dpr;
  const top = lanesTop + (lanes > 0 ? lanes * LANE_HEIGHT * dpr + 4 * dpr : 6 * dpr);
  const left = LEFT * dpr;
  const width = Math.max(1, canvas.width - left - RIGHT * dpr);
  const height = Math.max(1, canvas.height - top - BOTTOM * dpr);
  let yMax = 0;
  if (w) {
    for (let i = 0; i < w.stepState.length; i++) {
      if (w.stepX[i + 1] <= viewport.x0 || w.stepX[i] >= viewport.x1) continue;
      yMax = Math.max(yMax, w.reserved[i], w.envelope[i]);
    }
  }
  const measured = overview.measured;
  if (measured) {
    for (let k = 0; k < measured.x.length; k++) if (measured.x[k] >= viewport.x0 && measured.x[k] <= viewport.x1) yMax = Math.max(yMax, measured.bytes[k]);
  }
  yMax = Math.max(yMax, alsoMax);
  if (!(yMax > 0)) yMax = Math.max(overview.peakReservedBytes, overview.peak.bytes, 1);
  yMax *= 1.06;
  let yMin = 0;
  if (yRange && yRange.max > yRange.min) ({ min: yMin, max: yMax } = yRange);
  return { dpr, left, top, width, height, x0: viewport.x0, x1: viewport.x1, yMin, yMax, lanesTop };
}

export function indexOfRecord(w: TimelineSpan, record: number): number {
  for (let j = 0; j < w.blockRecord.length; j++) if (w.blockRecord[j] === record) return j;
  return -1;
}
