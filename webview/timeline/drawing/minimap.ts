/**
 * The overview strip under the chart: the whole device's allocated and reserved memory, with the
 * visible span as a brush. Drag the brush to pan, drag elsewhere to choose a new span, click
 * to centre the span there.
 */
import type { TimelineOverview } from '../../../src/protocol/timeline';
import { fitToDisplay, paintBackground } from './canvas';
import type { Theme } from './theme';
import type { Viewport } from '../state/viewport';

const LEFT = 60;
const RIGHT = 10;

export class Minimap {
  private readonly ctx: CanvasRenderingContext2D;
  private overview: TimelineOverview | undefined;
  private viewport: Viewport | undefined;
  private drag: { mode: 'move' | 'select'; startX: number; start: Viewport; moved: boolean } | undefined;

  constructor(
    readonly canvas: HTMLCanvasElement,
    /** Called with the span the user chose (`final` when the pointer is released). */
    private readonly onChoose: (viewport: Viewport, final: boolean) => void,
  ) {
    const ctx = canvas.getContext('2d', { alpha: false });
    if (!ctx) throw new Error('no 2D canvas');
    this.ctx = ctx;
    canvas.addEventListener('pointerdown', (e) => this.down(e));
    canvas.addEventListener('pointermove', (e) => this.move(e));
    canvas.addEventListener('pointerup', (e) => this.up(e));
    canvas.addEventListener('pointercancel', () => (this.drag = undefined));
  }

  /** Paints the background only (nothing to show yet). */
  clear(theme: Theme): void {
    paintBackground(this.ctx, theme);
  }

  /** Matches the backing store to the element's CSS size at the current devicePixelRatio. */
  resize(): boolean {
    return fitToDisplay(this.canvas);
  }

  /** Overview columns to ask for: the strip's width in CSS pixels. */
  columns(): number {
    return Math.max(1, Math.round(this.canvas.getBoundingClientRect().width - LEFT - RIGHT));
  }

  private domainX(cssX: number): number {
    const o = this.overview;
    if (!o) return 0;
    const width = Math.max(1, this.canvas.getBoundingClientRect().width - LEFT - RIGHT);
    return o.axis.start + ((cssX - LEFT) / width) * (o.axis.end - o.axis.start);
  }

  private cssX(x: number): number {
    const o = this.overview;
    if (!o) return 0;
    const width = Math.max(1, this.canvas.getBoundingClientRect().width - LEFT - RIGHT);
    return LEFT + ((x - o.axis.start) / (o.axis.end - o.axis.start)) * width;
  }

  draw(overview: TimelineOverview, viewport: Viewport, theme: Theme): void {
    this.overview = overview;
    this.viewport = viewport;
    const { ctx, canvas } = this;
    const dpr = window.devicePixelRatio || 1;
    const left = LEFT * dpr;
    const width = Math.max(1, canvas.width - left - RIGHT * dpr);
    const top = 2 * dpr;
    const height = Math.max(1, canvas.height - 4 * dpr);
    const s = overview.summary;
    const { start, end } = overview.axis;
    let yMax = 1;
    for (let i = 0; i < s.reserved.length; i++) yMax = Math.max(yMax, s.reserved[i], s.envelope[i]);
    const sx = (x: number) => left + ((x - start) / (end - start)) * width;
    const sy = (b: number) => top + height - (b / yMax) * height;

    ctx.fillStyle = theme.background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.fillStyle = theme.palette[0];
    ctx.globalAlpha = 0.75;
    ctx.beginPath();
    for (let i = 0; i < s.stepState.length; i++) {
      const a = Math.round(sx(s.stepX[i]));
      const b = Math.max(a + 1, Math.round(sx(s.stepX[i + 1])));
      const y = sy(s.envelope[i]);
      ctx.rect(a, y, b - a, top + height - y);
    }
    ctx.fill();
    ctx.globalAlpha = 1;
    // Where the snapshot does not record reserved memory, no line claims a figure for it.
    if (overview.reservedUnknown === undefined) {
      ctx.strokeStyle = theme.reserved;
      ctx.lineWidth = dpr;
      ctx.beginPath();
      for (let i = 0; i < s.stepState.length; i++) {
        const y = Math.round(sy(s.reserved[i])) + 0.5;
        if (i === 0) ctx.moveTo(sx(s.stepX[i]), y);
        else ctx.lineTo(sx(s.stepX[i]), y);
        ctx.lineTo(sx(s.stepX[i + 1]), y);
      }
      ctx.stroke();
    }
    ctx.fillStyle = theme.oom;
    for (const o of overview.ooms) ctx.fillRect(Math.round(sx(o.x)) - dpr, top, 2 * dpr, height);

    // The brush: the visible span, the rest shaded.
    const a = Math.round(sx(viewport.x0));
    const b = Math.max(a + 2 * dpr, Math.round(sx(viewport.x1)));
    ctx.globalAlpha = 0.45;
    ctx.fillStyle = theme.background;
    ctx.fillRect(left, 0, a - left, canvas.height);
    ctx.fillRect(b, 0, left + width - b, canvas.height);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = theme.selection;
    ctx.lineWidth = 1.5 * dpr;
    ctx.strokeRect(a + 0.75 * dpr, 0.75 * dpr, b - a - 1.5 * dpr, canvas.height - 1.5 * dpr);
  }

  private down(e: PointerEvent): void {
    if (!this.overview || !this.viewport || e.button !== 0) return;
    this.canvas.setPointerCapture(e.pointerId);
    const inside = e.offsetX >= this.cssX(this.viewport.x0) && e.offsetX <= this.cssX(this.viewport.x1);
    this.drag = { mode: inside ? 'move' : 'select', startX: e.offsetX, start: this.viewport, moved: false };
  }

  private move(e: PointerEvent): void {
    const d = this.drag;
    if (!d || !this.overview) return;
    if (Math.abs(e.offsetX - d.startX) < 3 && !d.moved) return;
    d.moved = true;
    this.onChoose(this.windowFor(d, e.offsetX), false);
  }

  private up(e: PointerEvent): void {
    const d = this.drag;
    this.drag = undefined;
    if (!d || !this.overview) return;
    if (d.moved) {
      this.onChoose(this.windowFor(d, e.offsetX), true);
      return;
    }
    // A click: centre the current span there.
    const half = (d.start.x1 - d.start.x0) / 2;
    const at = this.domainX(e.offsetX);
    this.onChoose({ x0: at - half, x1: at + half }, true);
  }

  private windowFor(d: { mode: 'move' | 'select'; startX: number; start: Viewport }, cssX: number): Viewport {
    if (d.mode === 'move') {
      const dx = this.domainX(cssX) - this.domainX(d.startX);
      return { x0: d.start.x0 + dx, x1: d.start.x1 + dx };
    }
    const a = this.domainX(d.startX);
    const b = this.domainX(cssX);
    return { x0: Math.min(a, b), x1: Math.max(a, b) };
  }
}
