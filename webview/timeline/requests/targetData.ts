/**
 * The data of the target shown (a snapshot's device), asked for when the target changes: the host
 * lists the snapshots, the user picks a snapshot, device or axis, the host asks to show a line.
 * Per target: the lines table's rows and the stack filter's lines; per axis: the overview and the
 * advisor's findings; once the overview is here, the span (spanFetch.ts) and the pinned block
 * (blockDetails.ts). Every answer goes into the store, then to the screen.
 *
 * A new request for data of the target or of its axis: add it to `askTarget` or `askAxis`, its
 * answer as a field of PageData (state/store.ts), which `forgetTarget`/`forgetAxis` clear.
 */
import type { AxisKind, LineBlocks, LineRow, SnapshotChoice, Target, TimelineOverview } from '../../../src/protocol/timeline';
import { distinctLineColors } from '../drawing/lineColors';
import type { Screen } from '../parts';
import { allocatorNotice } from '../state/notice';
import type { PageStore } from '../state/store';
import { onFocusBlocks, onSnapshots, onTarget } from '../state/transitions';
import type { AllocatorData } from './allocatorData';
import type { BlockDetails } from './blockDetails';
import type { Requests } from './requests';
import type { SpanFetcher } from './spanFetch';

export interface TargetParts {
  readonly requests: Requests;
  readonly store: PageStore;
  readonly spans: SpanFetcher;
  readonly details: BlockDetails;
  readonly allocator: Pick<AllocatorData, 'show'>;
  readonly screen: Screen;
  /** The overview's columns: the minimap's width, measured now. */
  overviewColumns(): number;
  /** Colours in the theme's palette (the largest lines get distinct ones). */
  paletteSize(): number;
  /** Tells the host which target the page shows (its `Show Line in Timeline` uses it). */
  showing(target: Target): void;
}

export class TargetData {
  /** A `showLine` waiting for its target's overview. */
  private pendingLine: LineBlocks | undefined;
  /** States to fit once the overview arrives (after switching the axis). */
  private pendingStates: [number, number] | undefined;

  constructor(private readonly parts: TargetParts) {}

  /** The host listed the loaded snapshots: show the one the state names, or the newly active one (transitions.ts). */
  listSnapshots(snapshots: readonly SnapshotChoice[], activeId: string | undefined): void {
    const { store, screen } = this.parts;
    store.set({ snapshots });
    screen.showEmpty(snapshots.length === 0);
    const next = onSnapshots(store.state, snapshots, activeId);
    if (!next) {
      store.set({ target: undefined });
      return;
    }
    store.apply(next.state);
    screen.fillSelectors();
    // The same target again means something changed in the host (e.g. the user-frame filter, which
    // renumbers lines): fetch everything again, keeping the zoom and the pin.
    this.show(next.target, true);
  }

  /** Shows `target`, asking for all its data; the same target again only when `force`d. */
  show(target: Target, force = false): void {
    const { store, screen, details } = this.parts;
    if (store.shows(target) && !force && store.data.overview) return;
    store.forgetTarget(target);
    store.apply(onTarget(store.state, target));
    const choice = store.data.snapshots.find((s) => s.id === target.snapshotId);
    if (choice && !choice.hasTimes && store.state.axis === 'time') store.update({ axis: 'event' });
    const deviceless = choice !== undefined && choice.devices.length === 0;
    screen.showDeviceless(deviceless);
    if (deviceless) {
      screen.fillSelectors();
      screen.setStatus('This snapshot holds no memory: no trace events and no segments.');
      return;
    }
    details.clear();
    screen.renderTable();
    screen.fillSelectors();
    this.parts.showing(target);
    screen.setStatus('Loading the timeline…');
    this.askAxis();
    this.askTarget(target);
    this.parts.allocator.show();
    screen.segmentMapShown();
    screen.render();
  }

  /** Shows another snapshot (its own device). */
  chooseSnapshot(id: string): void {
    const s = this.parts.store.data.snapshots.find((c) => c.id === id);
    if (s && s.id !== this.parts.store.data.target?.snapshotId) this.show({ snapshotId: s.id, device: s.device });
  }

  /** Shows another device of the snapshot shown. */
  chooseDevice(device: number): void {
    const target = this.parts.store.data.target;
    if (target && device !== target.device) this.show({ snapshotId: target.snapshotId, device });
  }

  /** Another x axis, keeping the same states in view (asked for on the new axis once its overview is here). */
  switchAxis(axis: AxisKind): void {
    const { store, screen } = this.parts;
    if (axis === store.state.axis) return;
    const { span: w, viewport: v, overview } = store.data;
    let states: [number, number] | undefined;
    if (w && v && w.stepState.length > 0 && (v.x0 > (overview?.axis.start ?? 0) || v.x1 < (overview?.axis.end ?? 0))) {
      states = [w.stepFirst[0], w.stepLast[w.stepLast.length - 1]];
    }
    store.update({ axis, x0: undefined, x1: undefined });
    this.pendingStates = states;
    this.askAxis();
    screen.render();
  }

  /** The host's `showLine`: shows its target, then selects the line and zooms to its first block. */
  showLine(target: Target, blocks: LineBlocks): void {
    const { store } = this.parts;
    if (!store.shows(target)) {
      this.pendingLine = blocks;
      this.show(target);
      return;
    }
    if (!store.data.overview) {
      this.pendingLine = blocks;
      return;
    }
    this.focusBlocks(blocks);
  }

  /** A row's ⊙ button: asks for the line's blocks, then focuses them. */
  zoomToLine(row: LineRow): void {
    const { store, requests, screen } = this.parts;
    const target = store.data.target;
    if (!target) return;
    requests.ask(
      { type: 'lineBlocks', target, file: row.file, line: row.line },
      {
        current: store.showing(target),
        answered: (m) => {
          if (m.blocks) this.focusBlocks(m.blocks);
          else screen.setStatus('That line allocated nothing on this device.');
        },
      },
    );
  }

  /** Asks for the lines whose stacks hold the stack filter's text (none asked: no filter). */
  askStackFilter(): void {
    const { store, requests, screen } = this.parts;
    const target = store.data.target;
    if (!target) return;
    const text = store.state.filterStack.trim();
    if (!text) {
      store.set({ stackIds: undefined });
      return;
    }
    const asked = store.state.filterStack;
    requests.ask(
      { type: 'stackFilter', target, text },
      {
        current: store.showing(target),
        answered: (m) => {
          if (asked !== store.state.filterStack) return;
          store.set({ stackIds: new Set(m.lineIds) });
          screen.renderTable();
          screen.render();
        },
      },
    );
  }

  /** Asks for a block's detail (hovered or pinned) unless it is known. */
  askBlock(record: number): void {
    const target = this.parts.store.data.target;
    if (target) this.parts.details.request(target, record);
  }

  /** Asks for the whole stack of a block (the "N more frames" control). */
  expandFrames(record: number): void {
    const target = this.parts.store.data.target;
    if (target) this.parts.details.expand(target, record);
  }

  /** Selects a line, pins its first (named or largest) block and zooms to that block's lifetime. */
  private focusBlocks(blocks: LineBlocks): void {
    const { store, screen, spans } = this.parts;
    const first = blocks.blocks[0];
    store.apply(onFocusBlocks(store.state, blocks));
    screen.renderTable();
    if (!first || !store.data.target) return;
    this.askBlock(first.record);
    spans.send({ states: [first.firstState, first.lastState] });
  }

  /** The data of the target on any axis: the lines table's rows (in distinct colours) and the stack filter's lines. */
  private askTarget(target: Target): void {
    const { store, requests, screen } = this.parts;
    requests.ask(
      { type: 'lines', target },
      {
        current: store.showing(target),
        answered: (m) => {
          const lineColors = distinctLineColors(m.rows, this.parts.paletteSize());
          store.set({ lineColors, rows: m.rows.map((r) => ({ ...r, color: lineColors.get(r.id) ?? r.color })) });
          screen.renderTable();
          screen.render();
        },
      },
    );
    if (store.state.filterStack) this.askStackFilter();
  }

  /** The data of the target on the state's axis: the overview, then everything placed on it. */
  private askAxis(): void {
    const { store, requests, screen } = this.parts;
    const target = store.data.target;
    if (!target) return;
    store.forgetAxis();
    const axis = store.state.axis;
    const current = store.showing(target, axis);
    requests.ask({ type: 'overview', target, axis, columns: this.parts.overviewColumns() }, { current, answered: (m) => this.overviewArrived(m.overview) });
    requests.ask(
      { type: 'findings', target, axis },
      {
        current,
        answered: (m) => {
          store.set({ findings: m.markers });
          screen.render();
        },
      },
    );
  }

  /** The overview is here: the saved viewport (else the whole axis), the pinned block, then the window. */
  private overviewArrived(overview: TimelineOverview): void {
    const { store, spans, screen } = this.parts;
    store.set({ overview });
    // Show: Allocator where it cannot be shown: the blocks instead, and the status line says why.
    if (overview.allocatorUnavailable !== undefined && store.state.mode === 'allocator') {
      store.update({ mode: 'blocks' });
      store.set({ notice: allocatorNotice(overview.allocatorUnavailable) });
      screen.showMode();
    }
    const { x0, x1 } = store.state;
    store.moveViewport(x0 !== undefined && x1 !== undefined ? { x0, x1 } : { x0: overview.axis.start, x1: overview.axis.end });
    if (store.state.pinnedRecord !== undefined) this.askBlock(store.state.pinnedRecord);
    const line = this.pendingLine;
    const states = this.pendingStates;
    this.pendingLine = undefined;
    this.pendingStates = undefined;
    if (line) this.focusBlocks(line);
    else if (states) spans.send({ states, statesMargin: 0 });
    else spans.request();
    // The overview names the notebook cells of the recorded files: the table names its lines by them.
    if (overview.places) screen.renderTable();
    screen.render();
  }
}
