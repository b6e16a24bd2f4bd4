/**
 * Moving what the chart shows: the x span (zoom, pan, reset, a span chosen on the minimap) and
 * the y range (memory zoom). Each move is kept in the store, redraws the summary at hand at once
 * and asks for the new one.
 */
import type { Screen } from '../parts';
import type { PageStore } from './store';
import type { Viewport } from './viewport';
import { estimateYMax, pan, zoom, zoomYRange } from './viewport';

export interface NavigationParts {
  readonly store: PageStore;
  readonly screen: Pick<Screen, 'render'>;
  /** Asks for the viewport's span summary (`refresh`: again, though the viewport did not move). */
  requestSpan(refresh?: boolean): void;
  /** The y range of the frame drawn last, in bytes. */
  drawnYRange(): { min: number; max: number } | undefined;
}

export class Navigation {
  constructor(private readonly parts: NavigationParts) {}

  /** Moves the span, redraws the summary at hand at once, and asks for the new one. */
  setViewport(v: Viewport): void {
    if (!this.parts.store.moveViewport(v)) return;
    this.parts.screen.render();
    this.parts.requestSpan();
  }

  currentViewport(): Viewport | undefined {
    return this.parts.store.data.viewport;
  }

  zoomBy(factor: number, anchor = 0.5): void {
    const { viewport } = this.parts.store.data;
    const domain = this.parts.store.domain();
    if (viewport && domain) this.setViewport(zoom(viewport, factor, anchor, domain));
  }

  panBy(fraction: number): void {
    const { viewport } = this.parts.store.data;
    const domain = this.parts.store.domain();
    if (viewport && domain) this.setViewport(pan(viewport, fraction, domain));
  }

  /** Shows everything: the whole axis and the y range fitted to it. */
  resetZoom(): void {
    const { store } = this.parts;
    store.update({ y0: undefined, y1: undefined });
    const o = store.data.overview;
    if (o) this.setViewport({ x0: o.axis.start, x1: o.axis.end });
  }

  /** Zooms the y axis by `factor` (> 1 zooms in) keeping the bytes at `anchor` (0 bottom .. 1 top) in place. */
  zoomY(factor: number, anchor = 0.5): void {
    const { store, screen } = this.parts;
    const current = this.parts.drawnYRange();
    if (!current) return;
    const range = zoomYRange(current, factor, anchor, estimateYMax(store.data.overview, store.data.viewport));
    store.update({ y0: range?.min, y1: range?.max });
    screen.render();
    this.parts.requestSpan(true);
  }
}
