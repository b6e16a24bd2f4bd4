/**
 * What the user's input does on the page: the chart's pointer and keys (chartInput.ts), the
 * controls around it (toolbar.ts) and the lines table (table.ts) each call one of these, which
 * change the store (through the pure transitions where there is one) and ask the parts for the
 * rest: navigation for the viewport, the target's requests for data, the screen for drawing.
 */
import type { BlockDetail, LineRow, TimelineToHost } from '../../../src/protocol/timeline';
import { openLine } from '../../shared/openLine';
import type { Hit } from '../drawing/hit';
import type { Screen } from '../parts';
import type { AllocatorData } from '../requests/allocatorData';
import type { TargetData } from '../requests/targetData';
import type { Navigation } from '../state/navigation';
import type { PageStore } from '../state/store';
import { onSort } from '../state/transitions';
import type { ChartActions, ControlActions, TableHandlers } from './actions';
import { allocatorNotice } from '../state/notice';

export interface ActionParts {
  readonly store: PageStore;
  readonly navigation: Navigation;
  readonly targets: TargetData;
  readonly allocator: AllocatorData;
  readonly screen: Screen;
  /** The hit under a CSS-pixel point of the chart, now the hovered one (drawing/pageView.ts). */
  hoverAt(x: number, y: number): Hit | undefined;
  /** The pointer left the chart. */
  leave(): void;
  /** A block's detail, when the host has sent it. */
  detail(record: number): BlockDetail | undefined;
  /** Asks for the span again, though the viewport did not move (what it holds changed). */
  refreshSpan(): void;
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
  const pin = (record: number | undefined) => {
    store.update({ pinnedRecord: record });
    if (record !== undefined) targets.askBlock(record);
    screen.render();
  };
  const selectLine = (line: number | undefined) => {
    store.update({ focusLine: line });
    redrawLines();
    p.refreshSpan();
  };
  return {
    // The chart's input.
    currentViewport: () => store.data.viewport,
    setViewport: (v) => nav.setViewport(v),
    zoomBy: (factor: number, anchor?: number) => nav.zoomBy(factor, anchor),
    panBy: (fraction) => nav.panBy(fraction),
    zoomY: (factor: number, anchor?: number) => nav.zoomY(factor, anchor),
    resetZoom: () => nav.resetZoom(),
    pin,
    click: (hit) => {
      if (store.state.mode === 'allocator') {
        const state = momentOfHit(hit, store);
        if (state !== undefined) p.allocator.chooseMoment(state);
        return;
      }
      pin(hit?.kind === 'block' ? hit.record : undefined);
    },
    dismiss: () => {
      if (store.state.mode === 'allocator') p.allocator.chooseMoment(undefined);
      else pin(undefined);
    },
    hover: (x, y) => {
      const hit = p.hoverAt(x, y);
      if (hit?.kind === 'block') targets.askBlock(hit.record);
    },
    leave: () => p.leave(),
    openBlock: (hit) => {
      const w = store.data.span;
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
    switchMode: (mode) => {
      if (mode === store.state.mode) return;
      const unavailable = store.data.overview?.allocatorUnavailable;
      store.set({ notice: mode === 'allocator' && unavailable !== undefined ? allocatorNotice(unavailable) : undefined });
      if (mode === 'allocator' && unavailable !== undefined) {
        // Not shown: the selector goes back to the blocks, and the status line says why.
        screen.showMode();
        screen.windowShown();
        return;
      }
      store.update({ mode });
      screen.showMode();
      // The block span is asked again (the allocator view needs no blocks one by one), then the allocator's.
      p.refreshSpan();
      p.allocator.show();
      screen.render();
    },
    chooseMoment: (state) => p.allocator.chooseMoment(state),
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

/**
 * The moment a click in the allocator view chooses: an OOM marker's state, else the state shown at the
 * step under the pointer (its moment of highest reserved memory); undefined off the steps.
 */
export function momentOfHit(hit: Hit | undefined, store: PageStore): number | undefined {
  if (!hit) return undefined;
  if (hit.kind === 'oom') return store.data.overview?.ooms[hit.index]?.state;
  if (hit.kind === 'segment' || hit.kind === 'allocatorStep') return store.data.allocatorSpan?.stepState[hit.step];
  return undefined;
}
