/**
 * The chart's frame: the y grid and its byte labels, the x axis with its ticks (events or time),
 * the segment releases under the baseline, and the `external_annotations` spans in lanes above the plot.
 */
import { LANE_HEIGHT, laneCount, MAX_LANES } from '../plot';
import type { Tick } from '../ticks';
import { byteTicks, eventTicks, timeTicks } from '../ticks';
import type { ChartLayer, LayerFrame } from './layer';

/** The y grid across the plot and its byte labels left of it. */
export const gridLayer: ChartLayer = { area: 'frame', draw: drawYGrid };

/** Segment releases: small marks under the plot's baseline. */
export const releasesLayer: ChartLayer = { area: 'frame', draw: drawReleases };

/** `external_annotations` spans in lanes above the plot. */
export const lanesLayer: ChartLayer = { area: 'frame', draw: drawAnnotationLanes };

/** X axis ticks and labels, and the axis' name left of them. */
export const xAxisLayer: ChartLayer = { area: 'frame', draw: drawXAxis };

function drawYGrid({ ctx, theme, plot, scales: { sy } }: LayerFrame): void {
  const { dpr, left, width, height, yMin, yMax } = plot;
  const yTicks = byteTicks(yMin, yMax, Math.max(2, Math.floor(height / (36 * dpr))));
  ctx.strokeStyle = theme.grid;
  ctx.lineWidth = 1;
  ctx.fillStyle = theme.muted;
  ctx.textAlign = 'right';
  ctx.beginPath();
  for (const t of yTicks) {
    const y = Math.round(sy(t.value)) + 0.5;
    ctx.moveTo(left, y);
    ctx.lineTo(left + width, y);
  }
  ctx.stroke();
  for (const t of yTicks) ctx.fillText(t.label, left - 6 * dpr, sy(t.value));
}

function drawReleases({ ctx, span: w, theme, plot, scales: { px } }: LayerFrame): void {
  if (!w || w.releaseX.length === 0) return;
  const { dpr, left, top, width, height } = plot;
  ctx.fillStyle = theme.release;
  ctx.beginPath();
  for (let q = 0; q < w.releaseX.length; q++) {
    const x = px(w.releaseX[q]);
    if (x < left || x > left + width) continue;
    ctx.moveTo(x, top + height + 1 * dpr);
    ctx.lineTo(x + 3 * dpr, top + height + 6 * dpr);
    ctx.lineTo(x - 3 * dpr, top + height + 6 * dpr);
    ctx.closePath();
  }
  ctx.fill();
}

function drawAnnotationLanes({ ctx, scene: { overview }, theme, plot, scales: { sx } }: LayerFrame): void {
  if (laneCount(overview) <= 0) return;
  const { dpr, left, top, width, lanesTop } = plot;
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, 0, width, top);
  ctx.clip();
  ctx.font = `${10 * dpr}px ${theme.fontFamily}`;
  ctx.textAlign = 'left';
  for (const a of overview.annotations) {
    if (a.lane >= MAX_LANES) continue;
    const xa = Math.max(left, sx(a.x0));
    const xb = Math.min(left + width, sx(a.x1));
    if (xb < left || xa > left + width) continue;
    const y = lanesTop + a.lane * LANE_HEIGHT * dpr;
    const wSpan = Math.max(1 * dpr, xb - xa);
    ctx.globalAlpha = 0.3;
    ctx.fillStyle = theme.annotation;
    ctx.fillRect(xa, y, wSpan, (LANE_HEIGHT - 2) * dpr);
    ctx.globalAlpha = 1;
    ctx.fillRect(xa, y, Math.min(wSpan, 2 * dpr), (LANE_HEIGHT - 2) * dpr);
    if (wSpan > 24 * dpr) {
      ctx.fillStyle = theme.foreground;
      ctx.save();
      ctx.beginPath();
      ctx.rect(xa, y, wSpan - 2 * dpr, LANE_HEIGHT * dpr);
      ctx.clip();
      ctx.fillText(a.name, xa + 4 * dpr, y + ((LANE_HEIGHT - 2) * dpr) / 2);
      ctx.restore();
    }
  }
  ctx.restore();
}

function drawXAxis({ ctx, scene: { overview }, theme, plot, scales: { sx } }: LayerFrame): void {
  const { dpr, left, top, width, height } = plot;
  const xTicks: Tick[] =
    overview.axis.kind === 'time'
      ? timeTicks(plot.x0, plot.x1, overview.axis.start, Math.max(2, Math.floor(width / (90 * dpr))))
      : eventTicks(plot.x0, plot.x1, Math.max(2, Math.floor(width / (70 * dpr))), overview.window?.firstEvent ?? 0);
  ctx.fillStyle = theme.muted;
  ctx.textAlign = 'right';
  ctx.fillText(overview.axis.kind === 'time' ? 'time' : 'events', left - 6 * dpr, top + height + 12 * dpr);
  ctx.strokeStyle = theme.grid;
  ctx.textAlign = 'center';
  ctx.beginPath();
  for (const t of xTicks) {
    const x = Math.round(sx(t.value)) + 0.5;
    ctx.moveTo(x, top + height);
    ctx.lineTo(x, top + height + 4 * dpr);
  }
  ctx.stroke();
  const canvasWidth = ctx.canvas.width;
  for (const t of xTicks) {
    const x = sx(t.value);
    const half = ctx.measureText(t.label).width / 2;
    ctx.fillText(t.label, Math.min(canvasWidth - half - 2, Math.max(left + half, x)), top + height + 12 * dpr);
  }
}
