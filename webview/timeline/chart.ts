/**
 * The main plot: a canvas drawing one level-of-detail window (the merged rest as the allocated
 * area, the individual blocks over it coloured by line, reserved memory as a line, markers and
 * annotation spans), scaled for devicePixelRatio, and hit testing for hover and clicks.
 */
import { formatBytes } from '../../src/core/format';
import type { FindingMarker } from '../../src/core/timeline/findingMarkers';
import type { MeasuredLine } from '../../src/core/timeline/measuredLine';
import type { TimelineOverview, TimelineWindow } from '../../src/core/timeline/types';
import { fitToDisplay, paintBackground } from './canvas';
import type { Theme } from './theme';
import type { Hit } from './hit';
import type { LabelRequest } from './labelLayout';
import { placeLabels } from './labelLayout';
import type { Tick } from './ticks';
import { byteTicks, eventTicks, timeTicks } from './ticks';
import type { Viewport } from './viewport';

export interface ChartScene {
  readonly overview: TimelineOverview;
  /** The latest summary; may cover another window than `viewport` while a new one is on its way. */
  readonly window: TimelineWindow | undefined;
  readonly viewport: Viewport;
  /** The advisor's findings placed on this axis (empty until the host has sent them). */
  readonly findings: readonly FindingMarker[];
  /** The bytes range of the y axis; undefined fits [0, highest in the window]. */
  readonly yRange: { readonly min: number; readonly max: number } | undefined;
  /** Lines drawn at full strength (the others dimmed); undefined: every line. */
  readonly highlight: ReadonlySet<number> | undefined;
  /** Blocks smaller than this are dimmed. */
  readonly minBytes: number;
  readonly pinned: number | undefined;
  readonly hovered: number | undefined;
  /** Colours that replace the lines' own (the ten largest lines get distinct ones: lineColors). */
  readonly lineColors?: ReadonlyMap<number, number>;
}



/** What the last frame drew (read by the browser tests through the test hooks). */
export interface DrawStats {
  readonly ms: number;
  readonly steps: number;
  readonly rects: number;
  /** Records of the blocks with at least one rectangle on screen. */
  readonly drawnRecords: readonly number[];
  /** Palette index (or -1) of each of those blocks. */
  readonly drawnColors: readonly number[];
  /** The finding markers on screen: label and the CSS-pixel centre of the marker's diamond. */
  readonly drawnFindings: readonly { readonly label: string; readonly x: number; readonly y: number }[];
  /** The text labels drawn over the plot (peak, OOMs, findings), their boxes in CSS pixels: they never intersect. */
  readonly drawnLabels: readonly { readonly text: string; readonly x0: number; readonly x1: number; readonly y0: number; readonly y1: number }[];
  readonly yMax: number;
}

const MAX_LANES = 4;
const LANE_HEIGHT = 14;
const LEFT = 60;
const RIGHT = 10;
const BOTTOM = 20;
const DIM_ALPHA = 0.22;
/** How far the alternate shade of a line's colour moves towards the background. */
export const SHADE = 0.2;

/** `#rrggbb` components of a `#rgb`/`#rrggbb(aa)` colour, or undefined. */
export function hexComponents(color: string): [number, number, number] | undefined {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(color.trim());
  if (!m) return undefined;
  const h = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1].slice(0, 6);
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
}

/** `a` moved `t` of the way towards `b`, as `#rrggbb`; `a` unchanged when either is not a hex colour. */
export function mixColors(a: string, b: string, t: number): string {
  const x = hexComponents(a);
  const y = hexComponents(b);
  if (!x || !y) return a;
  return `#${x.map((v, i) => Math.round(v + (y[i] - v) * t).toString(16).padStart(2, '0')).join('')}`;
}

interface Plot {
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

/** Index of the last run of block j starting at or before `step`. */
function runAt(w: TimelineWindow, j: number, step: number): number {
  let lo = w.blockRunStart[j];
  let hi = w.blockRunStart[j + 1] - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (w.runStep[mid] <= step) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Bottom offset (bytes) of block j at `step`. */
export function blockOffsetAt(w: TimelineWindow, j: number, step: number): number {
  return w.runOffset[runAt(w, j, step)];
}

export class Chart {
  private readonly ctx: CanvasRenderingContext2D;
  private plot: Plot | undefined;
  private scene: ChartScene | undefined;
  private lanes = 0;
  /** Where the finding markers were drawn (device pixels), for hit testing. */
  private findingSpots: { marker: FindingMarker; x0: number; x1: number; y: number }[] = [];
  private pattern: { key: string; pattern: CanvasPattern | string } | undefined;
  private readonly shades = new Map<string, string>();
  stats: DrawStats | undefined;

  constructor(readonly canvas: HTMLCanvasElement) {
    const ctx = canvas.getContext('2d', { alpha: false });
    if (!ctx) throw new Error('no 2D canvas');
    this.ctx = ctx;
  }

  /** Paints the background only (nothing to show yet). */
  clear(theme: Theme): void {
    paintBackground(this.ctx, theme);
  }

  /** Matches the backing store to the element's CSS size at the current devicePixelRatio. */
  resize(): boolean {
    return fitToDisplay(this.canvas);
  }

  /** Plot width in CSS pixels: the number of columns to ask the host for. */
  plotColumns(): number {
    const rect = this.canvas.getBoundingClientRect();
    return Math.max(1, Math.round(rect.width - LEFT - RIGHT));
  }

  /** Plot height in device pixels. */
  plotHeightPixels(): number {
    return this.plot?.height ?? Math.max(1, this.canvas.height - BOTTOM * (window.devicePixelRatio || 1));
  }

  draw(scene: ChartScene, theme: Theme): DrawStats {
    const started = performance.now();
    this.scene = scene;
    const { ctx, canvas } = this;
    const dpr = window.devicePixelRatio || 1;
    const { overview, viewport } = scene;
    const w = scene.window && scene.window.axis === overview.axis.kind ? scene.window : undefined;
    this.lanes = Math.min(MAX_LANES, overview.annotations.reduce((m, a) => Math.max(m, a.lane + 1), 0));
    const lanesTop = 4 * dpr;
    const top = lanesTop + (this.lanes > 0 ? this.lanes * LANE_HEIGHT * dpr + 4 * dpr : 6 * dpr);
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
    if (!(yMax > 0)) yMax = Math.max(overview.peakReservedBytes, overview.peak.bytes, 1);
    yMax *= 1.06;
    let yMin = 0;
    if (scene.yRange && scene.yRange.max > scene.yRange.min) ({ min: yMin, max: yMax } = scene.yRange);
    const plot: Plot = { dpr, left, top, width, height, x0: viewport.x0, x1: viewport.x1, yMin, yMax, lanesTop };
    this.plot = plot;
    const sx = (x: number) => left + ((x - plot.x0) / (plot.x1 - plot.x0)) * width;
    const px = (x: number) => Math.round(sx(x));
    const sy = (b: number) => top + height - ((b - yMin) / (yMax - yMin)) * height;

    ctx.save();
    ctx.fillStyle = theme.background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.font = `${11 * dpr}px ${theme.fontFamily}`;
    ctx.textBaseline = 'middle';

    // Y grid and labels.
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

    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, width, height);
    ctx.clip();

    let rects = 0;
    const drawnRecords: number[] = [];
    const drawnColors: number[] = [];
    if (w) {
      const m = w.stepState.length;
      // The allocated area hatched as merged smaller blocks; the individual blocks cover their part of it.
      ctx.fillStyle = this.restFill(theme, dpr);
      ctx.beginPath();
      for (let i = 0; i < m; i++) {
        const a = px(w.stepX[i]);
        const b = px(w.stepX[i + 1]);
        if (b <= left || a >= left + width || b <= a) continue;
        const y = Math.round(sy(w.envelope[i]));
        ctx.rect(a, y, b - a, top + height - y);
      }
      ctx.fill();

      // Blocks, one path per colour, dimmed state and shade: blocks allocated one after the other
      // (odd and even records) alternate between the line's colour and a shade of it, so that
      // neighbouring blocks of one line stay apart.
      const lineColorIndex = new Map<number, number>();
      for (const l of w.lines) lineColorIndex.set(l.id, scene.lineColors?.get(l.id) ?? l.color);
      const colorOf = (j: number) => (w.blockLine[j] < 0 ? -1 : (lineColorIndex.get(w.blockLine[j]) ?? -1));
      const groups = new Map<string, number[]>();
      for (let j = 0; j < w.blockRecord.length; j++) {
        const xa = px(w.stepX[w.blockFirstStep[j]]);
        const xb = px(w.stepX[w.blockLastStep[j] + 1]);
        if (xb <= left || xa >= left + width) continue;
        const dim = (scene.highlight !== undefined && !scene.highlight.has(w.blockLine[j])) || w.blockSize[j] < scene.minBytes;
        const key = `${colorOf(j)}:${dim ? 1 : 0}:${w.blockRecord[j] & 1}`;
        let g = groups.get(key);
        if (!g) groups.set(key, (g = []));
        g.push(j);
        drawnRecords.push(w.blockRecord[j]);
        drawnColors.push(colorOf(j));
      }
      const separators = new Path2D();
      const minSeparated = 4 * dpr;
      for (const [key, blocks] of groups) {
        const [color, dim, odd] = key.split(':').map(Number);
        const base = color < 0 ? theme.unattributed : theme.palette[color % theme.palette.length];
        ctx.fillStyle = odd ? this.shade(base, theme) : base;
        ctx.globalAlpha = dim ? DIM_ALPHA : 1;
        ctx.beginPath();
        for (const j of blocks) {
          const size = w.blockSize[j];
          const h = (size / (yMax - yMin)) * height;
          for (let k = w.blockRunStart[j]; k < w.blockRunStart[j + 1]; k++) {
            const endStep = k + 1 < w.blockRunStart[j + 1] ? w.runStep[k + 1] : w.blockLastStep[j] + 1;
            const a = px(w.stepX[w.runStep[k]]);
            const b = px(w.stepX[endStep]);
            if (b <= left || a >= left + width || b <= a) continue;
            // Edges on whole device pixels: neighbours share them, so nothing shows through seams.
            const y = Math.round(sy(w.runOffset[k] + size));
            const yBottom = Math.round(sy(w.runOffset[k]));
            if (yBottom <= y) continue;
            ctx.rect(a, y, b - a, yBottom - y);
            rects++;
            if (h >= minSeparated) {
              separators.moveTo(a, y + 0.5);
              separators.lineTo(b, y + 0.5);
            }
          }
        }
        ctx.fill();
      }
      ctx.globalAlpha = 0.55;
      ctx.strokeStyle = theme.background;
      ctx.lineWidth = 1;
      ctx.stroke(separators);
      ctx.globalAlpha = 1;

      // The allocated total (envelope) and the reserved memory, as step lines.
      this.stepLine(w, (i) => w.envelope[i], px, sy, theme.allocated, 1.25 * dpr, []);
      this.stepLine(w, (i) => w.reserved[i], px, sy, theme.reserved, 1.25 * dpr, [4 * dpr, 3 * dpr]);
      if (measured) this.measuredLine(measured, px, sy, theme.measured, 1.5 * dpr);

      // Hovered and pinned blocks.
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
        for (let k = w.blockRunStart[j]; k < w.blockRunStart[j + 1]; k++) {
          const endStep = k + 1 < w.blockRunStart[j + 1] ? w.runStep[k + 1] : w.blockLastStep[j] + 1;
          const a = px(w.stepX[w.runStep[k]]);
          const b = px(w.stepX[endStep]);
          const y0 = sy(w.runOffset[k] + size);
          ctx.rect(a + lineWidth / 2, y0, Math.max(1, b - a - lineWidth), Math.max(1, sy(w.runOffset[k]) - y0));
        }
        ctx.stroke();
      }

    }

    // Peak and OOM markers; their labels and the findings' are placed together below.
    const labels: { request: LabelRequest; font: string; color: string }[] = [];
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
    const drawnFindings = this.drawFindings(scene.findings, theme, px, plot, labels);
    const drawnLabels = this.drawLabels(labels, plot);
    ctx.restore();

    // Segment releases: small marks under the plot's baseline.
    if (w && w.releaseX.length > 0) {
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

    // Annotation spans in lanes above the plot.
    if (this.lanes > 0) {
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

    // X axis labels.
    const xTicks: Tick[] =
      overview.axis.kind === 'time'
        ? timeTicks(plot.x0, plot.x1, overview.axis.start, Math.max(2, Math.floor(width / (90 * dpr))))
        : eventTicks(plot.x0, plot.x1, Math.max(2, Math.floor(width / (70 * dpr))));
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
    for (const t of xTicks) {
      const x = sx(t.value);
      const half = ctx.measureText(t.label).width / 2;
      ctx.fillText(t.label, Math.min(canvas.width - half - 2, Math.max(left + half, x)), top + height + 12 * dpr);
    }
    ctx.restore();

    this.stats = { ms: performance.now() - started, steps: w?.stepState.length ?? 0, rects, drawnRecords, drawnColors, drawnFindings, drawnLabels, yMax };
    return this.stats;
  }

  /**
   * The advisor's findings: a diamond at a finding's event (a bar over its range) in rows under
   * the peak and OOM labels; returns the markers on screen.
   */
  /** Places the labels so that none overlaps another (labelLayout) and draws those that fit. */
  private drawLabels(labels: readonly { request: LabelRequest; font: string; color: string }[], plot: Plot): DrawStats['drawnLabels'] {
    const { ctx } = this;
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
      ctx.font = l.font;
      ctx.fillStyle = l.color;
      ctx.fillText(p.text, p.x, p.y);
    }
    ctx.restore();
    return placed.map((p) => ({ text: p.text, x0: p.x0 / dpr, x1: p.x1 / dpr, y0: p.y0 / dpr, y1: p.y1 / dpr }));
  }

  private drawFindings(
    findings: readonly FindingMarker[],
    theme: Theme,
    px: (x: number) => number,
    plot: Plot,
    labels: { request: LabelRequest; font: string; color: string }[],
  ): DrawStats['drawnFindings'] {
    const { ctx } = this;
    const { dpr, left, top, width } = plot;
    const rowEnds: number[] = [];
    const drawn: { label: string; x: number; y: number }[] = [];
    this.findingSpots = [];
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
      this.findingSpots.push({ marker, x0: Math.min(x0 - r, showLabel ? labelStart : x0 - r), x1: Math.max(x1, hitEnd), y });
      drawn.push({ label: marker.label, x: x0 / dpr, y: y / dpr });
    }
    ctx.restore();
    return drawn;
  }

  /** The measured device memory (NVML samples), straight segments between samples. */
  private measuredLine(m: MeasuredLine, px: (x: number) => number, sy: (b: number) => number, color: string, lineWidth: number): void {
    const { ctx } = this;
    ctx.strokeStyle = color;
    ctx.lineWidth = lineWidth;
    ctx.beginPath();
    for (let k = 0; k < m.x.length; k++) {
      if (k === 0) ctx.moveTo(px(m.x[k]), sy(m.bytes[k]));
      else ctx.lineTo(px(m.x[k]), sy(m.bytes[k]));
    }
    ctx.stroke();
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

  /** The merged blocks' fill: the rest colour with a diagonal hatch, cached per theme and scale. */
  private restFill(theme: Theme, dpr: number): CanvasPattern | string {
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
      pattern = this.ctx.createPattern(tile, 'repeat') ?? theme.rest;
    }
    this.pattern = { key, pattern };
    return pattern;
  }

  private stepLine(
    w: TimelineWindow,
    value: (i: number) => number,
    px: (x: number) => number,
    sy: (b: number) => number,
    color: string,
    lineWidth: number,
    dash: number[],
  ): void {
    const ctx = this.ctx;
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

  /** What is under a point given in CSS pixels relative to the canvas. */
  hit(cssX: number, cssY: number): Hit | undefined {
    const plot = this.plot;
    const scene = this.scene;
    if (!plot || !scene) return undefined;
    const x = cssX * plot.dpr;
    const y = cssY * plot.dpr;
    const overview = scene.overview;
    const toX = (p: number) => plot.x0 + ((p - plot.left) / plot.width) * (plot.x1 - plot.x0);
    const sx = (v: number) => plot.left + ((v - plot.x0) / (plot.x1 - plot.x0)) * plot.width;
    if (x < plot.left || x > plot.left + plot.width) return undefined;
    if (y < plot.top) {
      const lane = Math.floor((y - plot.lanesTop) / (LANE_HEIGHT * plot.dpr));
      const at = toX(x);
      const index = overview.annotations.findIndex((a) => a.lane === lane && a.x0 <= at && at <= a.x1);
      return index >= 0 ? { kind: 'annotation', index } : undefined;
    }
    const near = 3 * plot.dpr;
    const w = scene.window && scene.window.axis === overview.axis.kind ? scene.window : undefined;
    if (y > plot.top + plot.height) {
      if (!w || y > plot.top + plot.height + 8 * plot.dpr) return undefined;
      const release = Array.from(w.releaseX).findIndex((rx) => Math.abs(sx(rx) - x) <= near);
      return release >= 0 ? { kind: 'release', index: release } : undefined;
    }
    const spot = this.findingSpots.find((f) => Math.abs(f.y - y) <= 6 * plot.dpr && x >= f.x0 && x <= f.x1);
    if (spot) return { kind: 'finding', marker: spot.marker };
    const oom = overview.ooms.findIndex((o) => Math.abs(sx(o.x) - x) <= near);
    if (oom >= 0) return { kind: 'oom', index: oom };
    if (!w || w.stepState.length === 0) return undefined;
    const at = toX(x);
    let lo = 0;
    let hi = w.stepState.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (w.stepX[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    const step = lo;
    if (at < w.stepX[step] || at >= w.stepX[step + 1]) return undefined;
    const bytes = plot.yMin + ((plot.top + plot.height - y) / plot.height) * (plot.yMax - plot.yMin);
    // The block under the point, or else the largest block crossing the pixel row under it (blocks
    // thinner than a pixel can still be pointed at).
    const rowBytes = (plot.yMax - plot.yMin) / plot.height;
    let best = -1;
    for (let j = 0; j < w.blockRecord.length; j++) {
      if (step < w.blockFirstStep[j] || step > w.blockLastStep[j]) continue;
      const offset = blockOffsetAt(w, j, step);
      const end = offset + w.blockSize[j];
      if (bytes >= offset && bytes < end) {
        best = j;
        break;
      }
      if (end > bytes - rowBytes / 2 && offset < bytes + rowBytes / 2 && (best < 0 || w.blockSize[j] > w.blockSize[best])) best = j;
    }
    if (best >= 0) return { kind: 'block', index: best, record: w.blockRecord[best], step };
    if (Math.abs(sx(overview.peak.x) - x) <= near) return { kind: 'peak' };
    if (bytes < w.envelope[step]) return { kind: 'rest', step };
    if (bytes < w.reserved[step]) return { kind: 'reserved', step };
    return undefined;
  }

  /**
   * A CSS-pixel point inside block `record` (relative to the canvas) away from the peak and OOM
   * markers, with the block's height there in CSS pixels; undefined when it is not on screen.
   */
  pointOf(record: number): { x: number; y: number; height: number } | undefined {
    const plot = this.plot;
    const scene = this.scene;
    const w = scene?.window;
    if (!plot || !scene || !w) return undefined;
    const j = indexOfRecord(w, record);
    if (j < 0) return undefined;
    const sx = (v: number) => plot.left + ((v - plot.x0) / (plot.x1 - plot.x0)) * plot.width;
    const markers = [scene.overview.peak.x, ...scene.overview.ooms.map((o) => o.x)].map(sx);
    const height = (w.blockSize[j] / (plot.yMax - plot.yMin)) * plot.height;
    for (let k = w.blockRunStart[j]; k < w.blockRunStart[j + 1]; k++) {
      const endStep = k + 1 < w.blockRunStart[j + 1] ? w.runStep[k + 1] : w.blockLastStep[j] + 1;
      const a = Math.max(plot.left, sx(w.stepX[w.runStep[k]]));
      const b = Math.min(plot.left + plot.width, sx(w.stepX[endStep]));
      if (b - a < 4 * plot.dpr) continue;
      for (const f of [0.5, 0.3, 0.7, 0.15, 0.85]) {
        const x = a + (b - a) * f;
        if (markers.some((m) => Math.abs(m - x) < 6 * plot.dpr)) continue;
        const mid = w.runOffset[k] + w.blockSize[j] / 2;
        const y = plot.top + plot.height - ((mid - plot.yMin) / (plot.yMax - plot.yMin)) * plot.height;
        if (y < plot.top || y > plot.top + plot.height) continue;
        if (this.findingSpots.some((f) => Math.abs(f.y - y) <= 7 * plot.dpr && x >= f.x0 - plot.dpr && x <= f.x1 + plot.dpr)) continue;
        return { x: x / plot.dpr, y: y / plot.dpr, height: height / plot.dpr };
      }
    }
    return undefined;
  }

  /** The y range of the last frame, in bytes. */
  yRange(): { min: number; max: number } | undefined {
    return this.plot ? { min: this.plot.yMin, max: this.plot.yMax } : undefined;
  }

  /** The plot's top edge and height in CSS pixels. */
  plotRows(): { top: number; height: number } | undefined {
    return this.plot ? { top: this.plot.top / this.plot.dpr, height: this.plot.height / this.plot.dpr } : undefined;
  }

  /** Left edge and width of the plot in CSS pixels. */
  plotBox(): { left: number; width: number } {
    const dpr = window.devicePixelRatio || 1;
    const width = this.plot ? this.plot.width / this.plot.dpr : Math.max(1, this.canvas.width / dpr - LEFT - RIGHT);
    return { left: LEFT, width };
  }
}

export function indexOfRecord(w: TimelineWindow, record: number): number {
  for (let j = 0; j < w.blockRecord.length; j++) if (w.blockRecord[j] === record) return j;
  return -1;
}
