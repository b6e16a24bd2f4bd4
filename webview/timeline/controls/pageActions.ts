/**
 * What the user's input does on the page: the chart's pointer and keys (chartInput.ts), the
 * controls around it (toolbar.ts) and the lines table (table.ts) each call one of these, which
 * change the store (through the pure transitions where there is one) and ask the parts for the
 * rest: navigation for the viewport, the target's requests for data, the screen for drawing.
 */
import type { BlockDetail } from '../../../src/engine/timeline/types';
import type { LineRow, TimelineToHost } from '../../../src/protocol/timeline';
import { openLine } from '../../../src/protocol/openLine';
import type { Hit } from '../drawing/hit';
import type { Screen } from '../parts';
import type { TargetData } from '../requests/targetData';
import type { Navigation } from '../state/navigation';
import type { PageStore } from '../state/store';
import { onSort } from '../state/transitions';
import type { ChartActions, ControlActions, TableHandlers } from './actions';

export interface ActionParts {
  readonly store: PageStore;
  readonly navigation: Navigation;
  readonly targets: TargetData;
  readonly screen: Screen;
  /** The hit under a CSS-pixel point of the chart, now the hovered one (drawing/pageView.ts). */
  hoverAt(x: number, y: number): Hit | undefined;
  /** The pointer left the chart. */
  leave(): void;
  /** A block's detail, when the host has sent it. */
  detail(record: number): BlockDetail | undefined;
  /** Asks for the window again, though the viewport did not move (what it holds changed). */
  refreshWindow(): void;
  post(message: TimelineToHost): void;
}

export type PageActions = ChartActions & ControlActions & TableHandlers;

export function pageActions(p: ActionParts): PageActions {
  const { store, navigation: nav, targets, screen } = p;
  const redrawLines = () => {
    screen.renderTable();
    screen.render();
  };
  const open = (file: string, line: number) => p.post(openLine({ file, line }));
  const selectLine = (line: number | undefined) => {
    store.update({ focusLine: line });
    redrawLines();
    p.refreshWindow();
  };
  return {
    // The chart's input.
    currentViewport: () => store.data.viewport,
    setViewport: (v) => nav.setViewport(v),
    zoomBy: (factor: number, anchor?: number) => nav.zoomBy(factor, anchor),
    panBy: (fraction) => nav.panBy(fraction),
    zoomY: (factor: number, anchor?: number) => nav.zoomY(factor, anchor),
    resetZoom: () => nav.resetZoom(),
    pin: (record) => {
      store.update({ pinnedRecord: record });
      if (record !== undefined) targets.askBlock(record);
      screen.render();
    },
    hover: (x, y) => {
      const hit = p.hoverAt(x, y);
      if (hit?.kind === 'block') targets.askBlock(hit.record);
    },
    leave: () => p.leave(),
    openBlock: (hit) => {
      const w = store.data.window;
      const line = w?.lines.find((l) => l.id === w.blockLine[hit.index]);
      if (line) open(line.file, line.line);
    },
    goToSource: () => {
      const record = store.state.pinnedRecord;
      const line = record !== undefined ? p.detail(record)?.line : undefined;
      if (line) open(line.file, line.line);
    },

    // The controls around the chart.
    expandFrames: (record) => targets.expandFrames(record),
    openLine: open,
    chooseSnapshot: (id) => targets.chooseSnapshot(id),
    chooseDevice: (device) => targets.chooseDevice(device),
    switchAxis: (axis) => targets.switchAxis(axis),
    filterFile: (text) => {
      store.update({ filterFile: text });
      redrawLines();
    },
    filterStack: (text) => store.update({ filterStack: text }),
    filterStackSettled: () => {
      targets.askStackFilter();
      if (!store.state.filterStack.trim()) redrawLines();
    },
    filterSize: (minBytes) => {
      store.update({ minBytes });
      redrawLines();
    },
    runCommand: (command) => p.post({ type: 'runCommand', command }),

    // The lines table.
    select: (row: LineRow) => selectLine(row.id === store.state.focusLine ? undefined : row.id),
    open: (row: LineRow) => open(row.file, row.line),
    zoom: (row: LineRow) => targets.zoomToLine(row),
    sort: (key) => {
      store.apply(onSort(store.state, key));
      screen.renderTable();
    },
  };
}
