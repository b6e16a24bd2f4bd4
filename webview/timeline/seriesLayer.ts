/** The chart's lines over the blocks: allocated and reserved memory as step lines, measured memory as segments. */
import type { MeasuredLine } from '../../src/engine/timeline/measuredLine';
import type { TimelineWindow } from '../../src/engine/timeline/types';
import type { Scales } from './plot';

/** One value per step of the window, as a step line. */
export function drawStepLine(
  ctx: CanvasRenderingContext2D,
  w: TimelineWindow,
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
export function drawMeasuredLine(ctx: CanvasRenderingContext2D, m: MeasuredLine, { px, sy }: Scales, color: string, lineWidth: number): void {
  ctx.strokeStyle = color;
  ctx.lineWidth = lineWidth;
  ctx.beginPath();
  for (let k = 0; k < m.x.length; k++) {
    if (k === 0) ctx.moveTo(px(m.x[k]), sy(m.bytes[k]));
    else ctx.lineTo(px(m.x[k]), sy(m.bytes[k]));
  }
  ctx.stroke();
}
