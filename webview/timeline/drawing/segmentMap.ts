/**
 * The segment map on its canvas: every segment at the chosen moment, its blocks by address in the
 * colour of their line (as the chart colours them), freed blocks waiting for their stream paler, free
 * blocks empty, the rounding waste of each block hatched, the blocks the answer left out hatched grey.
 * Where each goes is segmentMapLayout.ts.
 */
import type { SegmentMapBlock, SegmentMapView } from '../../../src/protocol/timeline';
import { fitToDisplay } from './canvas';
import { mixColors } from './colorMix';
import type { MapLayout, MapRect } from './segmentMapLayout';
import { layoutSegmentMap, mapRectAt } from './segmentMapLayout';
import type { Theme } from './theme';

/** What the map drew last (the test hooks read it). */
export interface DrawnMap {
  readonly segments: number;
  readonly rects: number;
  readonly rows: number;
  /** Rectangles per part. */
  readonly parts: Readonly<Record<string, number>>;
}

export class SegmentMapCanvas {
  private layout: MapLayout | undefined;
  private map: SegmentMapView | undefined;
  drawn: DrawnMap | undefined;
  /** What the canvas shows (drawn again only when one of them changes). */
  private shownFor: { map: SegmentMapView | undefined; width: number; theme: Theme; lineColors: ReadonlyMap<number, number>; dpr: number } | undefined;

  constructor(readonly canvas: HTMLCanvasElement) {}

  /** Lays the map out for the canvas' width, sizes the canvas to its height and draws it (unless it shows that already). */
  draw(map: SegmentMapView | undefined, theme: Theme, lineColors: ReadonlyMap<number, number>): void {
    const width = this.canvas.parentElement?.clientWidth ?? this.canvas.clientWidth;
    const dpr = window.devicePixelRatio || 1;
    const f = this.shownFor;
    if (f && f.map === map && f.width === width && f.theme === theme && f.lineColors === lineColors && f.dpr === dpr) return;
    this.shownFor = { map, width, theme, lineColors, dpr };
    this.map = map;
    this.layout = map ? layoutSegmentMap(map, width) : undefined;
    const height = this.layout?.height ?? 0;
    this.canvas.style.height = `${Math.max(0, height)}px`;
    this.canvas.hidden = !map || height === 0;
    fitToDisplay(this.canvas);
    const ctx = this.canvas.getContext('2d');
    if (!ctx || !map || !this.layout) {
      this.drawn = undefined;
      return;
    }
    ctx.save();
    ctx.scale(dpr, dpr);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    const colorOfLine = new Map<number, string>();
    for (const l of map.lines) colorOfLine.set(l.id, theme.palette[(lineColors.get(l.id) ?? l.color) % theme.palette.length]);
    const colorOf = (block: SegmentMapBlock | undefined): string => {
      if (!block) return theme.unattributed;
      const line = colorOfLine.get(block.line);
      if (line) return line;
      return block.allocEvent < 0 ? theme.buckets.beforeRecording : theme.unattributed;
    };
    const parts: Record<string, number> = {};
    const hatched: MapRect[] = [];
    for (const r of this.layout.rects) {
      parts[r.part] = (parts[r.part] ?? 0) + 1;
      const block = r.block >= 0 ? map.segments[r.segment].blocks[r.block] : undefined;
      switch (r.part) {
        case 'allocated':
          ctx.fillStyle = colorOf(block);
          break;
        case 'pendingFree':
          ctx.fillStyle = mixColors(colorOf(block), theme.background, 0.55);
          break;
        case 'waste':
          ctx.fillStyle = mixColors(colorOf(block), theme.background, 0.7);
          hatched.push(r);
          break;
        case 'free':
          continue;
        case 'unlisted':
          ctx.fillStyle = theme.rest;
          hatched.push(r);
          break;
      }
      ctx.fillRect(r.x, r.y, Math.max(0.5, r.w), r.h);
    }
    // Hatching over the rounding waste and the unlisted rest.
    ctx.strokeStyle = theme.foreground;
    ctx.globalAlpha = 0.45;
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (const r of hatched) {
      ctx.save();
      ctx.beginPath();
      ctx.rect(r.x, r.y, r.w, r.h);
      ctx.clip();
      ctx.beginPath();
      for (let x = r.x - r.h; x < r.x + r.w; x += 4) {
        ctx.moveTo(x, r.y + r.h);
        ctx.lineTo(x + r.h, r.y);
      }
      ctx.stroke();
      ctx.restore();
    }
    ctx.globalAlpha = 1;
    // Segment outlines: the free blocks are what shows of the background inside them.
    ctx.strokeStyle = theme.muted;
    ctx.lineWidth = 1;
    for (const o of this.layout.outlines) ctx.strokeRect(o.x + 0.5, o.y + 0.5, Math.max(0, o.w - 1), o.h - 1);
    ctx.restore();
    this.drawn = { segments: map.segments.length, rects: this.layout.rects.length, rows: this.layout.rows, parts };
  }

  /** The segment and block under a CSS-pixel point of the canvas. */
  hit(x: number, y: number): { segment: number; block: number } | undefined {
    if (!this.layout || !this.map) return undefined;
    const r = mapRectAt(this.layout, x, y);
    return r ? { segment: r.segment, block: r.block } : undefined;
  }

  /** A CSS-pixel point inside that block of that segment (its widest piece), for tests. */
  pointOf(segment: number, block: number): { x: number; y: number } | undefined {
    let best: MapRect | undefined;
    for (const r of this.layout?.rects ?? []) if (r.segment === segment && r.block === block && (!best || r.w > best.w)) best = r;
    return best ? { x: best.x + best.w / 2, y: best.y + best.h / 2 } : undefined;
  }

  /** The map shown, as drawn last. */
  get shown(): SegmentMapView | undefined {
    return this.map;
  }
}
