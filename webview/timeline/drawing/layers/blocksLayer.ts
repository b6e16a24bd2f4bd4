/**
 * The chart's block layers: the allocated area hatched as merged smaller blocks (RestLayer), the
 * individual blocks over it (BlocksLayer: coloured by line; a block no line holds by its bucket
 * kind; separators between stacked blocks), and the outlines of the hovered and pinned blocks
 * (outlinesLayer, drawn over the step lines).
 */
import { PEAK_BUCKET_KINDS } from '../../../../src/engine/analysis/peakBreakdown';
import type { TimelineSpan } from '../../../../src/protocol/timeline';
import { mixColors, SHADE } from '../colorMix';
import { indexOfRecord } from '../plot';
import { addRunRects, blockRuns, runEnd } from '../runs';
import type { Theme } from '../theme';
import type { ChartLayer, LayerFrame } from './layer';

const DIM_ALPHA = 0.22;

export interface DrawnBlocks {
  readonly rects: number;
  readonly drawnRecords: number[];
  readonly drawnColors: number[];
  readonly drawnBuckets: number[];
}

/** A block's fill: its line's palette index (>= 0), else -2 - its bucket kind's index, else -1 (unattributed). */
function fillCode(w: TimelineSpan, lineColor: ReadonlyMap<number, number>, j: number): number {
  const line = w.blockLine[j];
  if (line >= 0) return lineColor.get(line) ?? -1;
  const bucket = w.blockBucket[j] ?? -1;
  return bucket >= 0 && bucket < PEAK_BUCKET_KINDS.length ? -2 - bucket : -1;
}

function fillOf(code: number, theme: Theme): string {
  if (code >= 0) return theme.palette[code % theme.palette.length];
  if (code <= -2) return theme.buckets[PEAK_BUCKET_KINDS[-2 - code]];
  return theme.unattributed;
}

const NOTHING_DRAWN: DrawnBlocks = { rects: 0, drawnRecords: [], drawnColors: [], drawnBuckets: [] };

/** The allocated area hatched as merged smaller blocks; the individual blocks cover their part of it. */
export class RestLayer implements ChartLayer {
  readonly area = 'plot';
  private pattern: { key: string; pattern: CanvasPattern | string } | undefined;

  draw({ ctx, span: w, theme, plot, scales: { px, sy } }: LayerFrame): void {
    if (!w) return;
    const { left, top, width, height } = plot;
    ctx.fillStyle = this.restFill(ctx, theme, plot.dpr);
    ctx.beginPath();
    for (let i = 0; i < w.stepState.length; i++) {
      const a = px(w.stepX[i]);
      const b = px(w.stepX[i + 1]);
      if (b <= left || a >= left + width || b <= a) continue;
      const y = Math.round(sy(w.envelope[i]));
      ctx.rect(a, y, b - a, top + height - y);
    }
    ctx.fill();
  }

  /** The merged blocks' fill: the rest colour with a diagonal hatch, cached per theme and scale. */
  private restFill(ctx: CanvasRenderingContext2D, theme: Theme, dpr: number): CanvasPattern | string {
    const key = `${theme.rest}@${dpr}`;
    if (this.pattern?.key === key) return this.pattern.pattern;
    const size = Math.max(4, Math.round(6 * dpr));
    const tile = document.createElement('canvas');
    tile.width = size;
    tile.height = size;
    const g = tile.getContext('2d');
    let pattern: CanvasPattern | string = theme.rest;
    if (g) {
      g.fillStyle = theme.rest;
      g.fillRect(0, 0, size, size);
      g.strokeStyle = theme.rest;
      g.lineWidth = Math.max(1, dpr);
      g.beginPath();
      for (const o of [-size, 0, size]) {
        g.moveTo(o, size);
        g.lineTo(o + size, 0);
      }
      g.stroke();
      pattern = ctx.createPattern(tile, 'repeat') ?? theme.rest;
    }
    this.pattern = { key, pattern };
    return pattern;
  }
}

/**
 * The individual blocks, one path per colour, dimmed state and shade: blocks allocated one after
 * the other (odd and even records) alternate between the line's colour and a shade of it, so that
 * neighbouring blocks of one line stay apart. `drawn` is what the last frame drew (the test hooks
 * read it).
 */
export class BlocksLayer implements ChartLayer {
  readonly area = 'plot';
  private readonly shades = new Map<string, string>();
  drawn: DrawnBlocks = NOTHING_DRAWN;

  draw({ ctx, span: w, scene, theme, plot, scales: { px, sy } }: LayerFrame): void {
    this.drawn = NOTHING_DRAWN;
    if (!w) return;
    const { dpr, left, width, height, yMin, yMax } = plot;
    let rects = 0;
    const drawnRecords: number[] = [];
    const drawnColors: number[] = [];
    const drawnBuckets: number[] = [];
    const lineColorIndex = new Map<number, number>();
    for (const l of w.lines) lineColorIndex.set(l.id, scene.lineColors?.get(l.id) ?? l.color);
    const groups = new Map<string, number[]>();
    for (let j = 0; j < w.blockRecord.length; j++) {
      const xa = px(w.stepX[w.blockFirstStep[j]]);
      const xb = px(w.stepX[w.blockLastStep[j] + 1]);
      if (xb <= left || xa >= left + width) continue;
      const dim = (scene.highlight !== undefined && !scene.highlight.has(w.blockLine[j])) || w.blockSize[j] < scene.minBytes;
      const code = fillCode(w, lineColorIndex, j);
      const key = `${code}:${dim ? 1 : 0}:${w.blockRecord[j] & 1}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = []));
      g.push(j);
      drawnRecords.push(w.blockRecord[j]);
      drawnColors.push(code >= 0 ? code : -1);
      drawnBuckets.push(w.blockLine[j] < 0 ? (w.blockBucket[j] ?? -1) : -1);
    }
    const separators = new Path2D();
    const minSeparated = 4 * dpr;
    const runs = blockRuns(w);
    const view = { px, sy, left, width };
    for (const [key, blocks] of groups) {
      const [color, dim, odd] = key.split(':').map(Number);
      const base = fillOf(color, theme);
      ctx.fillStyle = odd ? this.shade(base, theme) : base;
      ctx.globalAlpha = dim ? DIM_ALPHA : 1;
      ctx.beginPath();
      for (const j of blocks) {
        // A block at least minSeparated tall on the axis gets a separator on each of its runs.
        const separated = (w.blockSize[j] / (yMax - yMin)) * height >= minSeparated;
        rects += addRunRects(ctx, separators, runs, j, view, () => separated);
      }
      ctx.fill();
    }
    ctx.globalAlpha = 0.55;
    ctx.strokeStyle = theme.background;
    ctx.lineWidth = 1;
    ctx.stroke(separators);
    ctx.globalAlpha = 1;
    this.drawn = { rects, drawnRecords, drawnColors, drawnBuckets };
  }

  /** `color` moved SHADE of the way towards the background (opaque), cached per theme. */
  private shade(color: string, theme: Theme): string {
    const key = `${color}|${theme.background}`;
    let found = this.shades.get(key);
    if (found === undefined) {
      found = mixColors(color, theme.background, SHADE);
      this.shades.set(key, found);
    }
    return found;
  }
}

/** Outlines of the hovered and pinned blocks. */
export const outlinesLayer: ChartLayer = {
  area: 'plot',
  draw({ ctx, span: w, scene, theme, plot, scales: { px, sy } }: LayerFrame): void {
    if (!w) return;
    const { dpr } = plot;
    for (const [record, color, lineWidth] of [
      [scene.hovered, theme.foreground, 1 * dpr],
      [scene.pinned, theme.selection, 2 * dpr],
    ] as const) {
      if (record === undefined) continue;
      const j = indexOfRecord(w, record);
      if (j < 0) continue;
      ctx.strokeStyle = color;
      ctx.lineWidth = lineWidth;
      ctx.beginPath();
      const size = w.blockSize[j];
      const runs = blockRuns(w);
      for (let k = w.blockRunStart[j]; k < w.blockRunStart[j + 1]; k++) {
        const a = px(w.stepX[w.runStep[k]]);
        const b = px(w.stepX[runEnd(runs, j, k)]);
        const y0 = sy(w.runOffset[k] + size);
        ctx.rect(a + lineWidth / 2, y0, Math.max(1, b - a - lineWidth), Math.max(1, sy(w.runOffset[k]) - y0));
      }
      ctx.stroke();
    }
  },
};
