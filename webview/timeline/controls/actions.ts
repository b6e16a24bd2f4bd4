/**
 * What the page's input asks for, free of the DOM (tested in Node): the actions of the chart's
 * input, of the controls around it and of the lines table (pageActions.ts implements them), the
 * zoom and pan steps, and the plot's keys as actions.
 */
import type { AxisKind, LineRow, TimelineCommand } from '../../../src/protocol/timeline';
import type { Hit } from '../drawing/hit';
import type { SortKey, ViewMode } from '../state/state';
import type { Viewport } from '../state/viewport';

export const ZOOM_STEP = 1.5;
export const PAN_STEP = 0.1;

/** What the chart's pointer and keys do (chartInput.ts reads them). */
export interface ChartActions {
  currentViewport(): Viewport | undefined;
  setViewport(v: Viewport): void;
  zoomBy(factor: number, anchor?: number): void;
  panBy(fraction: number): void;
  /** Zooms the y axis by `factor` (> 1 zooms in) keeping the bytes at `anchor` (0 bottom .. 1 top) in place. */
  zoomY(factor: number, anchor?: number): void;
  resetZoom(): void;
  pin(record: number | undefined): void;
  /** A click on the chart (not a drag): pins the block under it, or in the allocator view chooses that moment. */
  click(hit: Hit | undefined): void;
  /** Escape: unpins the block, or forgets the allocator view's moment. */
  dismiss(): void;
  hover(x: number, y: number): void;
  leave(): void;
  /** Opens the line of the block under a double-click. */
  openBlock(hit: Extract<Hit, { kind: 'block' }>): void;
  goToSource(): void;
}

/** What the controls around the chart do (toolbar.ts reads them). */
export interface ControlActions {
  zoomBy(factor: number): void;
  resetZoom(): void;
  goToSource(): void;
  expandFrames(record: number): void;
  /** Opens a recorded line in the editor (the host maps its path). */
  openLine(file: string, line: number): void;
  chooseSnapshot(id: string): void;
  chooseDevice(device: number): void;
  switchAxis(axis: AxisKind): void;
  /** Shows the blocks or the allocator. */
  switchMode(mode: ViewMode): void;
  /** Chooses the allocator view's moment (a state), e.g. an OOM's. */
  chooseMoment(state: number | undefined): void;
  filterFile(text: string): void;
  /** The stack filter's text as typed; `settled` runs once typing paused. */
  filterStack(text: string): void;
  filterStackSettled(): void;
  filterSize(minBytes: number): void;
  runCommand(command: TimelineCommand): void;
}

/** What the lines table's rows and headers do (table.ts reads them). */
export interface TableHandlers {
  select(row: LineRow): void;
  open(row: LineRow): void;
  zoom(row: LineRow): void;
  sort(key: SortKey): void;
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
      return (a) => a.dismiss();
    default:
      return undefined;
  }
}
