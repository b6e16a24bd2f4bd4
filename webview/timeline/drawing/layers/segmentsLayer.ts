/**
 * The allocator view's layers: reserved memory by segment (SegmentsLayer: each segment a band in the
 * colour of the line whose allocation made it, stacked as the core's allocator span says, over a
 * hatched fill for the segments not sent one by one), the allocator's lines (allocated, reserved,
 * reserved but unallocated, the largest free block), and the chosen moment (a band over its step).
 */
import type { AllocatorSpan } from '../../../../src/protocol/timeline';
import { mixColors, SHADE } from '../colorMix';
import type { Scales } from '../plot';
import type { ChartLayer, LayerFrame } from './layer';
import { addRunRects, offsetAt, pieceRuns } from '../runs';
import { formatCount } from '../../../../src/engine/text/format';

/** What the last frame drew of the segments (the test hooks read it). */
export interface DrawnSegments {
  readonly rects: number;
  /** Addresses of the segments with at least one rectangle on screen. */
  readonly addresses: readonly number[];
  /** Palette index of each (-1: no line of the user's made it; -2: there before recording began). */
  readonly colors: readonly number[];
}

const NONE: DrawnSegments = { rects: 0, addresses: [], colors: [] };

/** The segment under `bytes` at `step`, else -1. */
export function pieceAt(w: AllocatorSpan, step: number, bytes: number): number {
  const runs = pieceRuns(w);
  for (let j = 0; j < w.pieceSize.length; j++) {
    if (step < w.pieceFirstStep[j] || step > w.pieceLastStep[j] || w.pieceRunStart[j] === w.pieceRunStart[j + 1]) continue;
    const offset = offsetAt(runs, j, step);
    if (bytes >= offset && bytes < offset + w.pieceSize[j]) return j;
  }
  return -1;
}

/** The step of the span whose x range holds `x`, else -1. */
export function stepAt(w: AllocatorSpan, x: number): number {
  let lo = 0;
  let hi = w.stepState.length - 1;
  if (hi < 0 || x < w.stepX[0] || x >= w.stepX[hi + 1]) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (w.stepX[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The step holding state `s`, else -1. */
export function stepOfState(w: AllocatorSpan, s: number): number {
  for (let i = 0; i < w.stepState.length; i++) if (w.stepFirst[i] <= s && s <= w.stepLast[i]) return i;
  return -1;
}

/** A segment's colour code: its line's palette index, -2 for one there before recording began, else -1. */
function colorCode(w: AllocatorSpan, j: number, colorOf: ReadonlyMap<number, number>): number {
  const line = w.pieceLine[j];
  if (line >= 0) return colorOf.get(line) ?? -1;
  return w.pieceFromEvent[j] < 0 ? -2 : -1;
}

export class SegmentsLayer implements ChartLayer {
  readonly area = 'plot';
  drawn: DrawnSegments = NONE;
  private readonly shades = new Map<string, string>();
  private pattern: { key: string; pattern: CanvasPattern | string } | undefined;

  draw({ ctx, scene, theme, plot, scales }: LayerFrame): void {
    this.drawn = NONE;
    const w = scene.allocator;
    if (!w) return;
    const { px, sy } = scales;
    const { dpr, left, width, top, height } = plot;
    // The room of the segments not sent one by one: everything under the reserved line, hatched.
    ctx.fillStyle = this.hatch(ctx, theme.rest, dpr);
    ctx.beginPath();
    for (let i = 0; i < w.stepState.length; i++) {
      const a = px(w.stepX[i]);
      const b = px(w.stepX[i + 1]);
      if (b <= left || a >= left + width || b <= a) continue;
      const y = Math.round(sy(w.reserved[i]));
      ctx.rect(a, y, b - a, top + height - y);
    }
    ctx.fill();

    const colorOf = new Map<number, number>();
    for (const l of w.lines) colorOf.set(l.id, scene.lineColors?.get(l.id) ?? l.color);
    const fill = (code: number) =>
      code >= 0 ? theme.palette[code % theme.palette.length] : code === -2 ? theme.buckets.beforeRecording : theme.unattributed;
    const groups = new Map<string, number[]>();
    const addresses: number[] = [];
    const colors: number[] = [];
    for (let j = 0; j < w.pieceSize.length; j++) {
      const xa = px(w.stepX[w.pieceFirstStep[j]]);
      const xb = px(w.stepX[w.pieceLastStep[j] + 1]);
      if (xb <= left || xa >= left + width) continue;
      const code = colorCode(w, j, colorOf);
      const key = `${code}:${j & 1}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = []));
      g.push(j);
      addresses.push(w.pieceAddress[j]);
      colors.push(code);
    }
    let rects = 0;
    const edges = new Path2D();
    const runs = pieceRuns(w);
    const view = { px, sy, left, width };
    // A segment band at least four device pixels tall gets its top edge.
    const edged = (height: number) => height >= 4 * dpr;
    for (const [key, pieces] of groups) {
      const [code, odd] = key.split(':').map(Number);
      const base = fill(code);
      // Neighbouring segments alternate between the colour and a shade of it.
      ctx.fillStyle = odd ? this.shade(base, theme.background) : base;
      ctx.beginPath();
      for (const j of pieces) rects += addRunRects(ctx, edges, runs, j, view, edged);
      ctx.fill();
    }
    ctx.globalAlpha = 0.7;
    ctx.strokeStyle = theme.background;
    ctx.lineWidth = 1;
    ctx.stroke(edges);
    ctx.globalAlpha = 1;
    this.drawn = { rects, addresses, colors };
  }

  private shade(color: string, background: string): string {
    const key = `${color}|${background}`;
    let found = this.shades.get(key);
    if (found === undefined) {
      found = mixColors(color, background, SHADE);
      this.shades.set(key, found);
    }
    return found;
  }

  private hatch(ctx: CanvasRenderingContext2D, color: string, dpr: number): CanvasPattern | string {
    const key = `${color}@${dpr}`;
    if (this.pattern?.key === key) return this.pattern.pattern;
    const size = Math.max(4, Math.round(6 * dpr));
    const tile = document.createElement('canvas');
    tile.width = size;
    tile.height = size;
    const g = tile.getContext('2d');
    let pattern: CanvasPattern | string = color;
    if (g) {
      g.strokeStyle = color;
      g.lineWidth = Math.max(1, dpr);
      g.beginPath();
      for (const o of [-size, 0, size]) {
        g.moveTo(o, size);
        g.lineTo(o + size, 0);
      }
      g.stroke();
      pattern = ctx.createPattern(tile, 'repeat') ?? color;
    }
    this.pattern = { key, pattern };
    return pattern;
  }
}

/** The allocator's lines: allocated (solid), reserved (dashed), reserved but unallocated (solid, its own colour), largest free block (dotted). */
export const allocatorLinesLayer: ChartLayer = {
  area: 'plot',
  draw({ ctx, scene, theme, plot: { dpr }, scales }) {
    const w = scene.allocator;
    if (!w) return;
    stepLine(ctx, w, w.allocated, scales, theme.allocated, 1.25 * dpr, []);
    stepLine(ctx, w, w.reserved, scales, theme.reserved, 1.25 * dpr, [4 * dpr, 3 * dpr]);
    stepLine(ctx, w, w.unallocated, scales, theme.unallocated, 1.5 * dpr, []);
    stepLine(ctx, w, w.largestFree, scales, theme.largestFree, 1.5 * dpr, [1.5 * dpr, 2 * dpr]);
  },
};

function stepLine(ctx: CanvasRenderingContext2D, w: AllocatorSpan, values: Float64Array, { px, sy }: Scales, color: string, lineWidth: number, dash: number[]): void {
  ctx.strokeStyle = color;
  ctx.lineWidth = lineWidth;
  ctx.setLineDash(dash);
  ctx.beginPath();
  for (let i = 0; i < w.stepState.length; i++) {
    const y = Math.round(sy(values[i])) + 0.5;
    if (i === 0) ctx.moveTo(px(w.stepX[i]), y);
    else ctx.lineTo(px(w.stepX[i]), y);
    ctx.lineTo(px(w.stepX[i + 1]), y);
  }
  ctx.stroke();
  ctx.setLineDash([]);
}

/** The chosen moment: a band over the step that holds it (at least two pixels wide), with a label. */
export const momentLayer: ChartLayer = {
  area: 'plot',
  draw({ ctx, scene, theme, plot, scales: { px }, labels }) {
    const w = scene.allocator;
    const moment = scene.moment;
    if (!w || moment === undefined) return;
    const i = stepOfState(w, moment);
    if (i < 0) return;
    const { dpr, top, height } = plot;
    const a = px(w.stepX[i]);
    const b = Math.max(a + 2 * dpr, px(w.stepX[i + 1]));
    ctx.fillStyle = theme.selection;
    ctx.globalAlpha = 0.35;
    ctx.fillRect(a, top, b - a, height);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = theme.selection;
    ctx.lineWidth = 1.5 * dpr;
    ctx.strokeRect(a, top, b - a, height);
    const text = moment === 0 ? 'map: start' : `map: event ${formatCount(moment - 1)}`;
    // Near the top, under the peak's and the OOMs' rows, on a backdrop: not on the x axis among the bands
    // (where it sat at 300 px, issue 29), and readable over the segments.
    const rows = [top + 36 * dpr, top + 50 * dpr, top + 64 * dpr].filter((y) => y < top + height - 24 * dpr);
    labels.push({ request: { text, anchorX: b, width: ctx.measureText(text).width, rows, priority: 1 }, font: ctx.font, color: theme.selection, backdrop: theme.background });
  },
};

/** The largest reserved memory the allocator span shows in [x0, x1) (the y axis fits it). */
export function allocatorYMax(w: AllocatorSpan | undefined, x0: number, x1: number): number {
  let max = 0;
  if (!w) return max;
  for (let i = 0; i < w.stepState.length; i++) {
    if (w.stepX[i + 1] <= x0 || w.stepX[i] >= x1) continue;
    max = Math.max(max, w.reserved[i]);
  }
  return max;
}
