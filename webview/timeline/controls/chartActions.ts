/**
 * What the chart's input does, free of the DOM (tested in Node): the actions the app gives, the
 * zoom and pan steps, and the plot's keys as actions.
 */
import type { Hit } from '../drawing/hit';
import type { Viewport } from '../state/viewport';

export const ZOOM_STEP = 1.5;
export const PAN_STEP = 0.1;

/** What the chart's input does in the app. */
export interface ChartActions {
  currentViewport(): Viewport | undefined;
  setViewport(v: Viewport): void;
  zoomBy(factor: number, anchor?: number): void;
  panBy(fraction: number): void;
  /** Zooms the y axis by `factor` (> 1 zooms in) keeping the bytes at `anchor` (0 bottom .. 1 top) in place. */
  zoomY(factor: number, anchor?: number): void;
  resetZoom(): void;
  pin(record: number | undefined): void;
  hover(x: number, y: number): void;
  leave(): void;
  /** Opens the line of the block under a double-click. */
  openBlock(hit: Extract<Hit, { kind: 'block' }>): void;
  goToSource(): void;
}

/** A key of the focused plot as an action, or undefined when the key does nothing there. */
export function keyAction(key: string, shift: boolean): ((a: ChartActions) => void) | undefined {
  switch (key) {
    case '+':
    case '=':
      return (a) => a.zoomBy(ZOOM_STEP);
    case '-':
    case '_':
      return (a) => a.zoomBy(1 / ZOOM_STEP);
    case '0':
      return (a) => a.resetZoom();
    case 'ArrowLeft':
      return (a) => a.panBy(-(shift ? 0.5 : PAN_STEP));
    case 'ArrowRight':
      return (a) => a.panBy(shift ? 0.5 : PAN_STEP);
    case 'ArrowUp':
      return (a) => a.zoomY(ZOOM_STEP, 1);
    case 'ArrowDown':
      return (a) => a.zoomY(1 / ZOOM_STEP, 1);
    case 'Enter':
      return (a) => a.goToSource();
    case 'Escape':
      return (a) => a.pin(undefined);
    default:
      return undefined;
  }
}
