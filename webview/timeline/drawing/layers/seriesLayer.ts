/** The chart's lines over the blocks: allocated and reserved memory as step lines, measured memory as segments. */
import type { MeasuredLine, TimelineSpan } from '../../../../src/protocol/timeline';
import type { Scales } from '../plot';
import type { ChartLayer } from './layer';

/** The allocated total (the blocks' envelope, solid) and the reserved memory (dashed) as step lines; the measured memory. */
export const seriesLayer: ChartLayer = {
  area: 'plot',
  draw({ ctx, span: w, scene, theme, plot: { dpr }, scales }) {
    if (!w) return;
    drawStepLine(ctx, w, (i) => w.envelope[i], scales, theme.allocated, 1.25 * dpr, []);
    // Where the snapshot does not record reserved memory, no line claims a figure for it.
    if (scene.overview.reservedUnknown === undefined) drawStepLine(ctx, w, (i) => w.reserved[i], scales, theme.reserved, 1.25 * dpr, [4 * dpr, 3 * dpr]);
    if (scene.overview.measured) drawMeasuredLine(ctx, scene.overview.measured, scales, theme.measured, 1.5 * dpr);
  },
};

/** One value per step of the span, as a step line. */
function drawStepLine(
  ctx: CanvasRenderingContext2D,
  w: TimelineSpan,
  value: (i: number) => number,
  { px, sy }: Scales,
  color: string,
  lineWidth: number,
  dash: number[],
): void {
  ctx.strokeStyle = color;
  ctx.lineWidth = lineWidth;
  ctx.setLineDash(dash);
  ctx.beginPath();
  for (let i = 0; i < w.stepState.length; i++) {
    const y = Math.round(sy(value(i))) + 0.5;
    if (i === 0) ctx.moveTo(px(w.stepX[i]), y);
    else ctx.lineTo(px(w.stepX[i]), y);
    ctx.lineTo(px(w.stepX[i + 1]), y);
  }
  ctx.stroke();
  ctx.setLineDash([]);
}

/** The measured device memory (NVML samples), straight segments between samples. */
function drawMeasuredLine(ctx: CanvasRenderingContext2D, m: MeasuredLine, { px, sy }: Scales, color: string, lineWidth: number): void {
  ctx.strokeStyle = color;
  ctx.lineWidth = lineWidth;
  ctx.beginPath();
  for (let k = 0; k < m.x.length; k++) {
    if (k === 0) ctx.moveTo(px(m.x[k]), sy(m.bytes[k]));
    else ctx.lineTo(px(m.x[k]), sy(m.bytes[k]));
  }
  ctx.stroke();
}
