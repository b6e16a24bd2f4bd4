/**
 * The timeline page's data and drawing: the UI state, what the host sent for the target shown
 * (overview, window summary, findings, lines, stack filter, block details), the requests for them
 * (window summaries: windowFetch; block details: blockDetails), the state transitions
 * (transitions.ts), and drawing it all (pageView). What the user does is TimelineApp (app.ts).
 */
import type { FindingMarker } from '../../src/engine/timeline/findingMarkers';
import type { LineBlocks, TimelineOverview, TimelineWindow } from '../../src/engine/timeline/types';
import type { DrawStats } from './chart';
import { Chart } from './chart';
import { BlockDetails } from './blockDetails';
import { byId } from '../shared/dom';
import type { Host } from '../shared/host';
import { describeRefused } from '../../src/protocol/messageGuard';
import type { HostToTimeline, LineRow, SnapshotChoice, Target, TimelineToHost } from '../../src/protocol/timeline';
import { isHostToTimeline } from '../../src/protocol/timeline';
import { showOverviewLegend } from './legend';
import { Minimap } from './minimap';
import type { Hover } from './pageView';
import { PageView } from './pageView';
import { Requests } from './requests';
import type { SelectElement } from './selectors';
import { fillSelectors } from './selectors';
import { statusText } from './statusText';
import { distinctLineColors } from './lineColors';
import type { SortKey, ViewState } from './state';
import { restoreState } from './state';
import { onFocusBlocks, onSnapshots, onTarget } from './transitions';
import { LinesTable } from './table';
import type { Theme } from './theme';
import { readTheme } from './theme';
import type { Domain, Viewport } from './viewport';
import { clampViewport } from './viewport';
import type { WindowRange } from './windowFetch';
import { WindowFetcher } from './windowFetch';

/** Widths (CSS px) up to which the page lays out for a narrow side bar (as media/timeline.css's @media). */
const NARROW_WIDTH = 360;

const targetKey = (t: Target) => `${t.snapshotId}#${t.device}`;

export abstract class TimelinePage {
  protected state: ViewState;
  protected theme: Theme;
  protected snapshots: readonly SnapshotChoice[] = [];
  protected target: Target | undefined;
  protected overview: TimelineOverview | undefined;
  protected window: TimelineWindow | undefined;
  /** The advisor's findings on the current axis. */
  protected findings: readonly FindingMarker[] = [];
  protected viewport: Viewport | undefined;
  protected rows: readonly LineRow[] = [];
  /** Distinct colours of the largest lines (lineColors). */
  protected lineColors: ReadonlyMap<number, number> = new Map();
  protected stackIds: ReadonlySet<number> | undefined;
  protected hovered: Hover | undefined;
  /** A `showLine` waiting for its target's overview. */
  protected pendingLine: LineBlocks | undefined;
  /** States to fit once the overview arrives (after switching the axis). */
  protected pendingStates: [number, number] | undefined;

  protected readonly requests: Requests;
  protected readonly windows: WindowFetcher;
  protected readonly details: BlockDetails;
  protected frame = 0;
  protected status = '';
  lastStats: DrawStats | undefined;

  protected readonly chart: Chart;
  protected readonly minimap: Minimap;
  protected readonly table: LinesTable;
  protected readonly view: PageView;
  protected readonly el = {
    app: byId('app'),
    empty: byId('empty'),
    snapshot: byId<SelectElement>('snapshot'),
    device: byId<SelectElement>('device'),
    axis: byId<SelectElement>('axis'),
    status: byId('status'),
    chartBox: byId('chart-box'),
    tooltip: byId('tooltip'),
    detail: byId('detail'),
    detailTitle: byId('detail-title'),
    detailBody: byId('detail-body'),
    goToSource: byId('go-to-source'),
    filterFile: byId<SelectElement>('filter-file'),
    filterStack: byId<SelectElement>('filter-stack'),
    filterSize: byId<SelectElement>('filter-size'),
  };

  constructor(protected readonly host: Host<TimelineToHost, ViewState>) {
    this.requests = new Requests((m) => this.post(m), (message) => this.setStatus(`Error: ${message}`));
    this.state = restoreState(host.getState());
    this.theme = readTheme();
    this.chart = new Chart(byId<HTMLCanvasElement>('chart'));
    this.minimap = new Minimap(byId<HTMLCanvasElement>('minimap'), (v) => this.setViewport(v));
    this.view = new PageView(this.chart, this.minimap, this.el);
    this.details = new BlockDetails(this.requests, (t) => this.showing(t), () => this.render());
    this.windows = new WindowFetcher({
      requests: this.requests,
      chart: this.chart,
      target: () => this.target,
      overview: () => this.overview,
      viewport: () => this.viewport,
      window: () => this.window,
      state: () => this.state,
      showing: (target, axis) => this.showing(target, axis),
      answered: (w, asked) => this.onWindow(w, asked),
      failed: (message) => this.setStatus(`Error: ${message}`),
    });
    this.table = new LinesTable(byId<HTMLTableElement>('lines'), byId('lines-more'), {
      select: (row) => this.selectLine(row.id === this.state.focusLine ? undefined : row.id),
      open: (row) => this.post({ type: 'openSource', file: row.file, line: row.line }),
      zoom: (row) => this.zoomToLine(row),
      sort: (key) => this.sortBy(key),
    });
    // In a narrow side bar the chart gets the height: the lines table starts collapsed below it.
    if (window.innerWidth <= NARROW_WIDTH) byId<HTMLDetailsElement>('lines-section').open = false;
  }

  // ---- messages ----

  protected post(message: TimelineToHost): void {
    this.host.post(message);
  }

  /** Whether the page still shows `target` (and `axis`, when given): else an answer for it is dropped. */
  protected showing(target: Target, axis?: string): () => boolean {
    const key = targetKey(target);
    return () => this.target !== undefined && targetKey(this.target) === key && (axis === undefined || axis === this.state.axis);
  }

  protected receive(data: unknown): void {
    if (!isHostToTimeline(data)) {
      this.post({ type: 'log', level: 'warn', message: `ignored an unknown message: ${describeRefused(data)}` });
      return;
    }
    const message: HostToTimeline = data;
    if (message.type === 'snapshots') this.onSnapshots(message.snapshots, message.activeId);
    else if (message.type === 'showLine') this.onShowLine(message.target, message.blocks);
    else this.requests.settle(message);
  }

  protected onSnapshots(snapshots: readonly SnapshotChoice[], activeId: string | undefined): void {
    this.snapshots = snapshots;
    this.el.empty.hidden = snapshots.length > 0;
    this.el.app.hidden = snapshots.length === 0;
    if (snapshots.length === 0) {
      this.target = undefined;
      return;
    }
    const next = onSnapshots(this.state, snapshots, activeId)!;
    this.apply(next.state);
    this.fillSelectors();
    // The same target again means something changed in the host (e.g. the user-frame filter, which
    // renumbers lines): fetch everything again, keeping the zoom and the pin.
    this.setTarget(next.target, true);
  }

  protected setTarget(target: Target, force = false): void {
    const same = this.target && targetKey(this.target) === targetKey(target);
    if (same && !force && this.overview) return;
    this.target = target;
    this.apply(onTarget(this.state, target));
    const choice = this.snapshots.find((s) => s.id === target.snapshotId);
    if (choice && !choice.hasTimes && this.state.axis === 'time') this.update({ axis: 'event' });
    this.overview = undefined;
    this.window = undefined;
    this.rows = [];
    this.lineColors = new Map();
    const nothing = choice !== undefined && choice.devices.length === 0;
    this.el.app.classList.toggle('no-devices', nothing);
    if (nothing) {
      this.fillSelectors();
      this.setStatus('This snapshot holds no memory: no trace events and no segments.');
      return;
    }
    this.stackIds = undefined;
    this.details.clear();
    this.table.setRows([]);
    this.fillSelectors();
    this.post({ type: 'showing', target });
    this.setStatus('Loading the timeline…');
    this.requestOverview();
    this.requests.ask(
      { type: 'lines', target },
      {
        current: this.showing(target),
        answered: (m) => {
          this.lineColors = distinctLineColors(m.rows, this.theme.palette.length);
          this.rows = m.rows.map((r) => ({ ...r, color: this.lineColors.get(r.id) ?? r.color }));
          this.table.setRows(this.rows);
          this.renderTable();
          this.render();
        },
      },
    );
    if (this.state.filterStack) this.requestStackFilter();
    this.render();
  }

  protected requestOverview(): void {
    if (!this.target) return;
    this.overview = undefined;
    this.window = undefined;
    this.findings = [];
    const current = this.showing(this.target, this.state.axis);
    this.minimap.resize();
    this.requests.ask(
      { type: 'overview', target: this.target, axis: this.state.axis, columns: this.minimap.columns() },
      { current, answered: (m) => this.onOverview(m.overview) },
    );
    this.requests.ask(
      { type: 'findings', target: this.target, axis: this.state.axis },
      {
        current,
        answered: (m) => {
          this.findings = m.markers;
          this.render();
        },
      },
    );
  }

  protected onOverview(overview: TimelineOverview): void {
    this.overview = overview;
    showOverviewLegend(overview);
    const d = this.domain();
    const saved = this.state.x0 !== undefined && this.state.x1 !== undefined ? { x0: this.state.x0, x1: this.state.x1 } : undefined;
    this.viewport = clampViewport(saved ?? { x0: d.start, x1: d.end }, d);
    if (this.state.pinnedRecord !== undefined) this.requestBlock(this.state.pinnedRecord);
    const line = this.pendingLine;
    const states = this.pendingStates;
    this.pendingLine = undefined;
    this.pendingStates = undefined;
    if (line) this.focusBlocks(line);
    else if (states) this.sendWindow({ states, statesMargin: 0 });
    else this.windows.request();
    this.render();
  }

  protected onWindow(w: TimelineWindow, asked: Viewport | undefined): void {
    this.window = w;
    if (!asked) {
      // A window fitted to states (show a line): the host chose the x range.
      this.setViewport({ x0: w.x0, x1: w.x1 }, false);
    }
    if (this.overview) this.setStatus(statusText(this.overview, w));
    this.render();
    this.windows.maybeRequest();
  }

  protected onShowLine(target: Target, blocks: LineBlocks): void {
    if (!this.target || targetKey(this.target) !== targetKey(target)) {
      this.pendingLine = blocks;
      this.setTarget(target);
      return;
    }
    if (!this.overview) {
      this.pendingLine = blocks;
      return;
    }
    this.focusBlocks(blocks);
  }

  /** Selects a line, pins its largest block and zooms to that block's lifetime. */
  protected focusBlocks(blocks: LineBlocks): void {
    const largest = blocks.blocks[0];
    this.apply(onFocusBlocks(this.state, blocks));
    this.renderTable();
    if (!largest || !this.target) return;
    this.requestBlock(largest.record);
    this.sendWindow({ states: [largest.firstState, largest.lastState] });
  }

  protected sendWindow(range: WindowRange): void {
    this.windows.send(range);
  }

  protected domain(): Domain {
    const o = this.overview!;
    const span = o.axis.end - o.axis.start;
    const minWidth = o.axis.kind === 'event' ? Math.min(span, 4) : Math.min(span, Math.max(4, (span / o.axis.states) * 4));
    return { start: o.axis.start, end: o.axis.end, minWidth };
  }

  protected requestBlock(record: number): void {
    if (this.target) this.details.request(this.target, record);
  }

  protected requestStackFilter(): void {
    if (!this.target) return;
    const text = this.state.filterStack.trim();
    if (!text) {
      this.stackIds = undefined;
      return;
    }
    const asked = this.state.filterStack;
    this.requests.ask(
      { type: 'stackFilter', target: this.target, text },
      {
        current: this.showing(this.target),
        answered: (m) => {
          if (asked !== this.state.filterStack) return;
          this.stackIds = new Set(m.lineIds);
          this.renderTable();
          this.render();
        },
      },
    );
  }

  // ---- state changes ----

  protected update(patch: Partial<ViewState>): void {
    this.apply({ ...this.state, ...patch });
  }

  /** Takes the state a transition (transitions.ts) gives, and keeps it for when the view is shown again. */
  protected apply(state: ViewState): void {
    if (state === this.state) return;
    this.state = state;
    this.host.setState(this.state);
  }

  /** Moves the window, redraws the summary at hand at once, and asks for the new one (`fetch`). */
  setViewport(v: Viewport, fetch = true): void {
    if (!this.overview) return;
    this.viewport = clampViewport(v, this.domain());
    const full = this.viewport.x0 <= this.overview.axis.start && this.viewport.x1 >= this.overview.axis.end;
    this.update({ x0: full ? undefined : this.viewport.x0, x1: full ? undefined : this.viewport.x1 });
    this.render();
    if (fetch) this.windows.request();
  }

  // ---- rendering ----

  protected fillSelectors(): void {
    fillSelectors(this.el, this.snapshots, this.target, this.state.axis);
  }

  protected setStatus(text: string): void {
    this.status = text;
    this.el.status.textContent = text;
    this.chart.canvas.setAttribute('aria-label', `Memory over time: ${text}. Arrow keys pan, plus and minus zoom, Enter opens the selected block's line.`);
  }

  protected renderTable(): void {
    this.table.render(
      { file: this.state.filterFile.trim(), stackIds: this.stackIds, minBytes: this.state.minBytes },
      this.state.sortKey,
      this.state.sortDescending,
      this.state.focusLine,
    );
  }

  /** Draws on the next animation frame (several changes in one frame draw once). */
  render(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  /** Draws now (the test hooks time this). */
  draw(): DrawStats | undefined {
    const { stats, hover } = this.view.draw({
      theme: this.theme,
      state: this.state,
      overview: this.overview,
      window: this.window,
      viewport: this.viewport,
      findings: this.findings,
      rows: this.rows,
      stackIds: this.stackIds,
      lineColors: this.lineColors,
      hover: this.hovered,
      detail: (record) => this.details.get(record),
    });
    this.hovered = hover;
    if (stats) this.lastStats = stats;
    return stats;
  }

  /** For the test hooks: the state, what is pinned, and where a block is on screen. */
  inspect(): { state: ViewState; status: string; window: TimelineWindow | undefined; viewport: Viewport | undefined } {
    return { state: this.state, status: this.status, window: this.window, viewport: this.viewport };
  }

  pointOf(record: number): { x: number; y: number; height: number } | undefined {
    return this.chart.pointOf(record);
  }
  /** The lines table's actions, which TimelineApp implements. */
  protected abstract selectLine(line: number | undefined): void;
  protected abstract zoomToLine(row: LineRow): void;
  protected abstract sortBy(key: SortKey): void;
}
