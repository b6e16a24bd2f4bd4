/**
 * The chart's markers: the peak (dashed, with its size and line), out-of-memory events, the
 * advisor's findings (diamonds, bars over ranges), and their text labels, placed together so that
 * none overlaps another (labelLayout).
 */
import { formatBytes } from '../../../../src/engine/text/format';
import type { FindingMarker } from '../../../../src/protocol/timeline';
import { placeLabels } from '../labelLayout';
import type { Plot } from '../plot';
import type { ChartLayer, Label, LayerFrame } from './layer';

/** Where a finding marker was drawn (device pixels), for hit testing. */
export interface FindingSpot {
  readonly marker: FindingMarker;
  readonly x0: number;
  readonly x1: number;
  readonly y: number;
}

export type DrawnLabel = { readonly text: string; readonly x0: number; readonly x1: number; readonly y0: number; readonly y1: number };
export type DrawnFinding = { readonly label: string; readonly x: number; readonly y: number };

/** The peak and OOM lines, with their labels. */
export const peakLayer: ChartLayer = { area: 'plot', draw: drawPeakAndOoms };

function drawPeakAndOoms({ ctx, scene: { overview }, theme, plot, scales: { px }, labels }: LayerFrame): void {
  const { dpr, left, top, width, height } = plot;
  const peakX = px(overview.peak.x);
  if (overview.peak.bytes > 0 && peakX >= left && peakX <= left + width) {
    ctx.strokeStyle = theme.peak;
    ctx.lineWidth = 1.5 * dpr;
    ctx.setLineDash([3 * dpr, 3 * dpr]);
    ctx.beginPath();
    ctx.moveTo(peakX + 0.5, top);
    ctx.lineTo(peakX + 0.5, top + height);
    ctx.stroke();
    ctx.setLineDash([]);
    const line = overview.peak.line;
    const label = `peak ${formatBytes(overview.peak.bytes)}${line ? ` · ${line.file.split(/[\\/]/).pop() ?? line.file}:${line.line}` : ''}`;
    const short = `peak ${formatBytes(overview.peak.bytes)}`;
    labels.push({
      request: {
        text: label,
        anchorX: peakX,
        width: ctx.measureText(label).width,
        rows: [top + 8 * dpr, top + 22 * dpr],
        priority: 0,
        shorter: line ? [{ text: short, width: ctx.measureText(short).width }] : [],
      },
      font: ctx.font,
      color: theme.peak,
    });
  }
  ctx.strokeStyle = theme.oom;
  ctx.lineWidth = 2 * dpr;
  for (const o of overview.ooms) {
    const x = px(o.x);
    if (x < left || x > left + width) continue;
    ctx.beginPath();
    ctx.moveTo(x, top);
    ctx.lineTo(x, top + height);
    ctx.stroke();
    labels.push({ request: { text: 'OOM', anchorX: x, width: ctx.measureText('OOM').width, rows: [top + 22 * dpr, top + 8 * dpr], priority: 1 }, font: ctx.font, color: theme.oom });
  }
}

/**
 * The advisor's findings: a diamond at a finding's event (a bar over its range) in rows under
 * the peak and OOM labels, with their labels. Keeps the markers on screen (`drawn`) and where they
 * are (`spots`, for hit testing).
 */
export class FindingsLayer implements ChartLayer {
  readonly area = 'plot';
  drawn: readonly DrawnFinding[] = [];
  spots: readonly FindingSpot[] = [];

  draw(frame: LayerFrame): void {
    ({ drawn: this.drawn, spots: this.spots } = drawFindings(frame));
  }
}

function drawFindings({ ctx, scene: { findings }, theme, plot, scales: { px }, labels }: LayerFrame): { drawn: DrawnFinding[]; spots: FindingSpot[] } {
  const { dpr, left, top, width } = plot;
  const rowEnds: number[] = [];
  const drawn: DrawnFinding[] = [];
  const spots: FindingSpot[] = [];
  ctx.save();
  ctx.font = `${10 * dpr}px ${theme.fontFamily}`;
  ctx.textAlign = 'left';
  ctx.fillStyle = theme.finding;
  ctx.strokeStyle = theme.finding;
  /** Labels already drawn at a pixel: the same finding at the same spot is labelled once. */
  const labelled = new Set<string>();
  for (const marker of findings) {
    const x0 = Math.max(left, px(marker.x0));
    const x1 = Math.min(left + width, px(marker.x1));
    if (x1 < left || x0 > left + width) continue;
    const spotKey = `${Math.round(x0)}:${Math.round(x1)}:${marker.label}`;
    const repeat = labelled.has(spotKey);
    labelled.add(spotKey);
    const labelWidth = repeat ? 0 : ctx.measureText(marker.label).width;
    // Near the right edge the label goes to the left of the diamond.
    const leftward = x0 + 8 * dpr + labelWidth > left + width;
    const labelStart = leftward ? x0 - 7 * dpr - labelWidth : x0;
    const labelEnd = leftward ? x0 + 4 * dpr : x0 + 8 * dpr + labelWidth;
    let row = rowEnds.findIndex((end) => end < labelStart - 4 * dpr);
    // With every row taken here, the diamond still shows (its hover names the finding) but no label.
    const crowded = row < 0 && rowEnds.length >= 3;
    if (row < 0) row = crowded ? 2 : rowEnds.length;
    if (!crowded) rowEnds[row] = Math.max(rowEnds[row] ?? 0, labelEnd, x1);
    const y = top + (34 + row * 13) * dpr;
    if (x1 - x0 >= 2 * dpr) {
      ctx.lineWidth = 3 * dpr;
      ctx.beginPath();
      ctx.moveTo(x0, y);
      ctx.lineTo(x1, y);
      ctx.stroke();
    }
    const r = 4 * dpr;
    ctx.beginPath();
    ctx.moveTo(x0, y - r);
    ctx.lineTo(x0 + r, y);
    ctx.lineTo(x0, y + r);
    ctx.lineTo(x0 - r, y);
    ctx.closePath();
    ctx.fill();
    const showLabel = !repeat && !crowded;
    if (showLabel) labels.push({ request: { text: marker.label, anchorX: x0, width: labelWidth, rows: [y], priority: 2 }, font: ctx.font, color: theme.finding });
    const hitEnd = showLabel ? labelEnd : x0 + r;
    spots.push({ marker, x0: Math.min(x0 - r, showLabel ? labelStart : x0 - r), x1: Math.max(x1, hitEnd), y });
    drawn.push({ label: marker.label, x: x0 / dpr, y: y / dpr });
  }
  ctx.restore();
  return { drawn, spots };
}

/** Places the labels so that none overlaps another (labelLayout) and draws those that fit; boxes in CSS pixels. */
export function drawLabels(ctx: CanvasRenderingContext2D, labels: readonly Label[], plot: Plot): DrawnLabel[] {
  const { dpr, left, width } = plot;
  const placed = placeLabels(
    labels.map((l) => l.request),
    { left, right: left + width, ascent: 6 * dpr, descent: 6 * dpr, gap: 6 * dpr },
  );
  ctx.save();
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  for (const p of placed) {
    const l = labels[p.request];
    if (l.backdrop !== undefined) {
      ctx.globalAlpha = 0.85;
      ctx.fillStyle = l.backdrop;
      ctx.fillRect(p.x0 - 3 * dpr, p.y0, p.x1 - p.x0 + 6 * dpr, p.y1 - p.y0);
      ctx.globalAlpha = 1;
    }
    ctx.font = l.font;
    ctx.fillStyle = l.color;
    ctx.fillText(p.text, p.x, p.y);
  }
  ctx.restore();
  return placed.map((p) => ({ text: p.text, x0: p.x0 / dpr, x1: p.x1 / dpr, y0: p.y0 / dpr, y1: p.y1 / dpr }));
}
