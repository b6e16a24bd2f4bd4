/**
 * The timeline page: keeps the UI state, asks the host for overviews and window summaries (at most
 * one window request in flight: while it runs, the last summary is redrawn at the new zoom), and
 * turns pointer and keyboard input into zoom, pan, hover, pin and "go to source".
 */
import { formatBytes } from '../../src/core/format';
import type { FindingMarker } from '../../src/core/timeline/findingMarkers';
import type { MeasuredLine } from '../../src/core/timeline/measuredLine';
import type { BlockDetail, LineBlocks, TimelineOverview, TimelineWindow } from '../../src/core/timeline/types';
import type { DrawStats } from './chart';
import type { Hit } from './hit';
import { Chart } from './chart';
import { renderDetail } from './detail';
import { tooltipLines } from './tooltipText';
import { byId } from '../shared/dom';
import type { Host } from '../shared/host';
import { describeRefused } from '../../src/protocol/messageGuard';
import type { HostToTimeline, LineRow, SnapshotChoice, Target, TimelineCommand, TimelineToHost } from '../../src/protocol/timeline';
import { isHostToTimeline } from '../../src/protocol/timeline';
import { Minimap } from './minimap';
import { Requests } from './requests';
import { statusText } from './statusText';
import { distinctLineColors } from './lineColors';
import type { SortKey, ViewState } from './state';
import { restoreState } from './state';
import { onFocusBlocks, onSnapshots, onSort, onTarget } from './transitions';
import { rowPasses } from './lineFilter';
import { LinesTable } from './table';
import type { Theme } from './theme';
import { readTheme, watchTheme } from './theme';
import type { Domain, Viewport } from './viewport';
import { clampViewport, pan, sameViewport, zoom } from './viewport';

const BLOCK_BUDGET = 20_000;
const ZOOM_STEP = 1.5;
const PAN_STEP = 0.1;

/** Widths (CSS px) up to which the page lays out for a narrow side bar (as media/timeline.css's @media). */
const NARROW_WIDTH = 360;

interface SelectElement extends HTMLElement {
  value: string;
}

const targetKey = (t: Target) => `${t.snapshotId}#${t.device}`;

/** The legend entry of the measured line, added to the legend the first time a snapshot has one. */
function showMeasuredLegend(measured: MeasuredLine | undefined): void {
  let entry = document.getElementById('legend-measured');
  if (!measured) {
    if (entry) entry.hidden = true;
    return;
  }
  if (!entry) {
    entry = document.createElement('span');
    entry.id = 'legend-measured';
    const key = document.createElement('span');
    key.className = 'key key-measured';
    entry.append(key, document.createElement('span'));
    document.querySelector('.legend')?.append(entry);
  }
  (entry.lastChild as HTMLElement).textContent = `measured (${measured.source === 'nvml' ? 'NVML' : measured.source})`;
  entry.hidden = false;
}

export class TimelineApp {
  private state: ViewState;
  private theme: Theme;
  private snapshots: readonly SnapshotChoice[] = [];
  private target: Target | undefined;
  private overview: TimelineOverview | undefined;
  private window: TimelineWindow | undefined;
  /** The advisor's findings on the current axis. */
  private findings: readonly FindingMarker[] = [];
  private viewport: Viewport | undefined;
  private rows: readonly LineRow[] = [];
  /** Distinct colours of the largest lines (lineColors). */
  private lineColors: ReadonlyMap<number, number> = new Map();
  private stackIds: ReadonlySet<number> | undefined;
  private readonly details = new Map<number, BlockDetail>();
  private hover: { hit: Hit; x: number; y: number } | undefined;
  /** A `showLine` waiting for its target's overview. */
  private pendingLine: LineBlocks | undefined;
  /** States to fit once the overview arrives (after switching the axis). */
  private pendingStates: [number, number] | undefined;

  private readonly requests: Requests;
  private windowInFlight = false;
  private windowWanted = false;
  /** Ask again even when the viewport has not moved (the focus line changed). */
  private windowStale = false;
  private frame = 0;
  private status = '';
  lastStats: DrawStats | undefined;

  private readonly chart: Chart;
  private readonly minimap: Minimap;
  private readonly table: LinesTable;
  private readonly el = {
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

  constructor(private readonly host: Host<TimelineToHost, ViewState>) {
    this.requests = new Requests((m) => this.post(m), (message) => this.setStatus(`Error: ${message}`));
    this.state = restoreState(host.getState());
    this.theme = readTheme();
    this.chart = new Chart(byId<HTMLCanvasElement>('chart'));
    this.minimap = new Minimap(byId<HTMLCanvasElement>('minimap'), (v) => this.setViewport(v));
    this.table = new LinesTable(byId<HTMLTableElement>('lines'), byId('lines-more'), {
      select: (row) => this.selectLine(row.id === this.state.focusLine ? undefined : row.id),
      open: (row) => this.post({ type: 'openSource', file: row.file, line: row.line }),
      zoom: (row) => this.zoomToLine(row),
      sort: (key) => this.sortBy(key),
    });
    // In a narrow side bar the chart gets the height: the lines table starts collapsed below it.
    if (window.innerWidth <= NARROW_WIDTH) byId<HTMLDetailsElement>('lines-section').open = false;
    this.wire();
    window.addEventListener('message', (e: MessageEvent<unknown>) => this.receive(e.data));
    this.post({ type: 'ready' });
  }

  // ---- messages ----

  private post(message: TimelineToHost): void {
    this.host.post(message);
  }

  /** Whether the page still shows `target` (and `axis`, when given): else an answer for it is dropped. */
  private showing(target: Target, axis?: string): () => boolean {
    const key = targetKey(target);
    return () => this.target !== undefined && targetKey(this.target) === key && (axis === undefined || axis === this.state.axis);
  }

  private receive(data: unknown): void {
    if (!isHostToTimeline(data)) {
      this.post({ type: 'log', level: 'warn', message: `ignored an unknown message: ${describeRefused(data)}` });
      return;
    }
    const message: HostToTimeline = data;
    if (message.type === 'snapshots') this.onSnapshots(message.snapshots, message.activeId);
    else if (message.type === 'showLine') this.onShowLine(message.target, message.blocks);
    else this.requests.settle(message);
  }

  private onSnapshots(snapshots: readonly SnapshotChoice[], activeId: string | undefined): void {
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

  private setTarget(target: Target, force = false): void {
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

  private requestOverview(): void {
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

  private onOverview(overview: TimelineOverview): void {
    this.overview = overview;
    byId('legend-oom').hidden = overview.ooms.length === 0;
    byId('legend-release').hidden = overview.summary.releaseX.length === 0;
    showMeasuredLegend(overview.measured);
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
    else this.requestWindow();
    this.render();
  }

  private onWindow(w: TimelineWindow, asked: Viewport | undefined): void {
    this.window = w;
    if (!asked) {
      // A window fitted to states (show a line): the host chose the x range.
      this.setViewport({ x0: w.x0, x1: w.x1 }, false);
    }
    if (this.overview) this.setStatus(statusText(this.overview, w));
    this.render();
    this.maybeRequestWindow();
  }

  private onShowLine(target: Target, blocks: LineBlocks): void {
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
  private focusBlocks(blocks: LineBlocks): void {
    const largest = blocks.blocks[0];
    this.apply(onFocusBlocks(this.state, blocks));
    this.renderTable();
    if (!largest || !this.target) return;
    this.requestBlock(largest.record);
    this.sendWindow({ states: [largest.firstState, largest.lastState] });
  }

  // ---- window requests ----

  private domain(): Domain {
    const o = this.overview!;
    const span = o.axis.end - o.axis.start;
    const minWidth = o.axis.kind === 'event' ? Math.min(span, 4) : Math.min(span, Math.max(4, (span / o.axis.states) * 4));
    return { start: o.axis.start, end: o.axis.end, minWidth };
  }

  /** Asks for the current viewport's summary now, or after the one in flight. */
  private requestWindow(): void {
    this.windowWanted = true;
    this.maybeRequestWindow();
  }

  private maybeRequestWindow(): void {
    if (this.windowInFlight || !this.windowWanted || !this.viewport || !this.overview) return;
    const w = this.window;
    if (!this.windowStale && w && w.columns === this.chart.plotColumns() && sameViewport(w, this.viewport) && w.axis === this.state.axis) {
      this.windowWanted = false;
      return;
    }
    this.sendWindow({ x0: this.viewport.x0, x1: this.viewport.x1 });
  }

  private sendWindow(range: { x0: number; x1: number } | { states: [number, number]; statesMargin?: number }): void {
    if (!this.target || !this.overview) return;
    this.windowWanted = false;
    this.windowStale = false;
    this.windowInFlight = true;
    this.chart.resize();
    const heightPx = this.chart.plotHeightPixels();
    const span = this.state.y0 !== undefined && this.state.y1 !== undefined ? this.state.y1 - this.state.y0 : this.estimateYMax();
    // Offsets closer than half a device pixel look the same: they need not be sent.
    const quantum = span / heightPx / 2;
    const viewport = 'states' in range ? undefined : { x0: range.x0, x1: range.x1 };
    this.requests.ask(
      {
        type: 'window',
        target: this.target,
        request: {
          axis: this.state.axis,
          ...range,
          columns: this.chart.plotColumns(),
          budget: BLOCK_BUDGET,
          offsetQuantum: Number.isFinite(quantum) ? quantum : 0,
          focusLine: this.state.focusLine,
        },
      },
      {
        current: this.showing(this.target, this.state.axis),
        settled: () => {
          this.windowInFlight = false;
        },
        answered: (m) => this.onWindow(m.window, viewport),
        stale: () => this.maybeRequestWindow(),
        failed: (message) => {
          this.setStatus(`Error: ${message}`);
          this.maybeRequestWindow();
        },
      },
    );
  }

  /** Highest bytes the overview shows inside the viewport (to size the offset quantum). */
  private estimateYMax(): number {
    const o = this.overview;
    const v = this.viewport;
    if (!o) return 0;
    const s = o.summary;
    let max = 0;
    for (let i = 0; i < s.stepState.length; i++) {
      if (v && (s.stepX[i + 1] <= v.x0 || s.stepX[i] >= v.x1)) continue;
      max = Math.max(max, s.reserved[i], s.envelope[i]);
    }
    return max * 1.06;
  }

  private requestBlock(record: number): void {
    if (!this.target || this.details.has(record)) return;
    if (this.requests.isWaiting('block', String(record))) return;
    this.requests.ask(
      { type: 'block', target: this.target, record },
      {
        current: this.showing(this.target),
        tag: String(record),
        answered: (m) => {
          this.details.set(m.detail.record, m.detail);
          this.render();
        },
      },
    );
  }

  /** The "N more frames" control: the pinned block's detail again, with its whole stack. */
  private expandFrames(record: number): void {
    if (!this.target || !Number.isInteger(record)) return;
    if (this.requests.isWaiting('block', `${record}:all`)) return;
    this.requests.ask(
      { type: 'block', target: this.target, record, allFrames: true },
      {
        current: this.showing(this.target),
        tag: `${record}:all`,
        answered: (m) => {
          this.details.set(m.detail.record, m.detail);
          this.render();
        },
      },
    );
  }

  private requestStackFilter(): void {
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

  private update(patch: Partial<ViewState>): void {
    this.apply({ ...this.state, ...patch });
  }

  /** Takes the state a transition (transitions.ts) gives, and keeps it for when the view is shown again. */
  private apply(state: ViewState): void {
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
    if (fetch) this.requestWindow();
  }

  private zoomBy(factor: number, anchor = 0.5): void {
    if (this.viewport && this.overview) this.setViewport(zoom(this.viewport, factor, anchor, this.domain()));
  }

  private panBy(fraction: number): void {
    if (this.viewport && this.overview) this.setViewport(pan(this.viewport, fraction, this.domain()));
  }

  private resetZoom(): void {
    this.update({ y0: undefined, y1: undefined });
    if (this.overview) this.setViewport({ x0: this.overview.axis.start, x1: this.overview.axis.end });
  }

  /** Zooms the y axis by `factor` (> 1 zooms in) keeping the bytes at `anchor` (0 bottom .. 1 top) in place. */
  private zoomY(factor: number, anchor = 0.5): void {
    const current = this.chart.yRange();
    if (!current) return;
    const at = current.min + (current.max - current.min) * anchor;
    const span = Math.max(1024, (current.max - current.min) / factor);
    let min = Math.max(0, at - span * anchor);
    const max = min + span;
    const fitted = this.estimateYMax();
    if (min === 0 && max >= fitted) {
      this.update({ y0: undefined, y1: undefined });
    } else {
      min = Math.min(min, Math.max(0, fitted - span));
      this.update({ y0: min, y1: min + span });
    }
    this.render();
    this.windowWanted = true;
    this.windowStale = true;
    this.maybeRequestWindow();
  }

  private selectLine(line: number | undefined): void {
    this.update({ focusLine: line });
    this.renderTable();
    this.render();
    this.windowWanted = true;
    this.windowStale = true;
    this.maybeRequestWindow();
  }

  private zoomToLine(row: LineRow): void {
    if (!this.target) return;
    this.requests.ask(
      { type: 'lineBlocks', target: this.target, file: row.file, line: row.line },
      {
        current: this.showing(this.target),
        answered: (m) => {
          if (m.blocks) this.focusBlocks(m.blocks);
          else this.setStatus('That line allocated nothing on this device.');
        },
      },
    );
  }

  private sortBy(key: SortKey): void {
    this.apply(onSort(this.state, key));
    this.renderTable();
  }

  private pin(record: number | undefined): void {
    this.update({ pinnedRecord: record });
    if (record !== undefined) this.requestBlock(record);
    this.render();
  }

  private goToSource(): void {
    const record = this.state.pinnedRecord;
    const line = record !== undefined ? this.details.get(record)?.line : undefined;
    if (line) this.post({ type: 'openSource', file: line.file, line: line.line });
  }

  // ---- input ----

  private wire(): void {
    const canvas = this.chart.canvas;
    canvas.addEventListener(
      'wheel',
      (e) => {
        if (!this.viewport) return;
        e.preventDefault();
        const box = this.chart.plotBox();
        const rows = this.chart.plotRows();
        if ((e.ctrlKey || e.metaKey) && rows) {
          const anchor = Math.min(1, Math.max(0, 1 - (e.offsetY - rows.top) / rows.height));
          this.zoomY(Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.002)), anchor);
          return;
        }
        if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
          const d = e.shiftKey && e.deltaX === 0 ? e.deltaY : e.deltaX;
          this.panBy(d / box.width);
        } else {
          const anchor = Math.min(1, Math.max(0, (e.offsetX - box.left) / box.width));
          this.zoomBy(Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.002)), anchor);
        }
      },
      { passive: false },
    );
    let drag: { x: number; start: Viewport; moved: boolean } | undefined;
    canvas.addEventListener('pointerdown', (e) => {
      if (e.button !== 0 || !this.viewport) return;
      canvas.setPointerCapture(e.pointerId);
      drag = { x: e.offsetX, start: this.viewport, moved: false };
    });
    canvas.addEventListener('pointermove', (e) => {
      if (drag && (drag.moved || Math.abs(e.offsetX - drag.x) > 3)) {
        drag.moved = true;
        canvas.classList.add('dragging');
        const box = this.chart.plotBox();
        const dx = ((drag.x - e.offsetX) / box.width) * (drag.start.x1 - drag.start.x0);
        this.setViewport({ x0: drag.start.x0 + dx, x1: drag.start.x1 + dx });
        return;
      }
      this.onHover(e.offsetX, e.offsetY);
    });
    canvas.addEventListener('pointerup', (e) => {
      const d = drag;
      drag = undefined;
      canvas.classList.remove('dragging');
      if (!d || d.moved) return;
      const hit = this.chart.hit(e.offsetX, e.offsetY);
      this.pin(hit?.kind === 'block' ? hit.record : undefined);
    });
    canvas.addEventListener('pointerleave', () => {
      this.hover = undefined;
      this.render();
    });
    canvas.addEventListener('dblclick', (e) => {
      const hit = this.chart.hit(e.offsetX, e.offsetY);
      if (hit?.kind !== 'block' || !this.window) return;
      const line = this.window.lines.find((l) => l.id === this.window!.blockLine[hit.index]);
      if (line) this.post({ type: 'openSource', file: line.file, line: line.line });
    });
    canvas.addEventListener('keydown', (e) => this.onKey(e));

    byId('zoom-in').addEventListener('click', () => this.zoomBy(ZOOM_STEP));
    byId('zoom-out').addEventListener('click', () => this.zoomBy(1 / ZOOM_STEP));
    byId('zoom-reset').addEventListener('click', () => this.resetZoom());
    this.el.goToSource.addEventListener('click', () => this.goToSource());
    this.el.detailBody.addEventListener('click', (e) => {
      const more = (e.target as HTMLElement).closest<HTMLElement>('.more-frames');
      if (more) return this.expandFrames(Number(more.dataset.record));
      const frame = (e.target as HTMLElement).closest<HTMLElement>('.frame');
      if (frame?.dataset.file) this.post({ type: 'openSource', file: frame.dataset.file, line: Number(frame.dataset.line) });
    });
    this.el.detailBody.addEventListener('keydown', (e) => {
      const more = (e.target as HTMLElement).closest<HTMLElement>('.more-frames');
      if (more && (e.key === 'Enter' || e.key === ' ')) {
        e.preventDefault();
        return this.expandFrames(Number(more.dataset.record));
      }
      const frame = (e.target as HTMLElement).closest<HTMLElement>('.frame');
      if (e.key === 'Enter' && frame?.dataset.file) this.post({ type: 'openSource', file: frame.dataset.file, line: Number(frame.dataset.line) });
    });

    this.el.snapshot.addEventListener('change', () => {
      const s = this.snapshots.find((c) => c.id === this.el.snapshot.value);
      if (s && s.id !== this.target?.snapshotId) this.setTarget({ snapshotId: s.id, device: s.device });
    });
    this.el.device.addEventListener('change', () => {
      const device = Number(this.el.device.value);
      if (this.target && Number.isInteger(device) && device !== this.target.device) this.setTarget({ snapshotId: this.target.snapshotId, device });
    });
    this.el.axis.addEventListener('change', () => this.switchAxis(this.el.axis.value === 'time' ? 'time' : 'event'));

    let stackTimer: ReturnType<typeof setTimeout> | undefined;
    this.el.filterFile.addEventListener('input', () => {
      this.update({ filterFile: this.el.filterFile.value });
      this.renderTable();
      this.render();
    });
    this.el.filterStack.addEventListener('input', () => {
      this.update({ filterStack: this.el.filterStack.value });
      clearTimeout(stackTimer);
      stackTimer = setTimeout(() => {
        this.requestStackFilter();
        if (!this.state.filterStack.trim()) {
          this.renderTable();
          this.render();
        }
      }, 250);
    });
    this.el.filterSize.addEventListener('change', () => {
      this.update({ minBytes: Number(this.el.filterSize.value) || 0 });
      this.renderTable();
      this.render();
    });
    for (const button of Array.from(document.querySelectorAll<HTMLElement>('[data-command]'))) {
      button.addEventListener('click', () => {
        // The host runs only the commands on its allowlist.
        const command = button.dataset.command as TimelineCommand | undefined;
        if (command) this.post({ type: 'runCommand', command });
      });
    }

    const observer = new ResizeObserver(() => {
      const a = this.chart.resize();
      const b = this.minimap.resize();
      if (a || b) {
        this.render();
        if (a) this.requestWindow();
      }
    });
    observer.observe(this.el.chartBox);
    observer.observe(this.minimap.canvas);
    watchTheme((theme) => {
      this.theme = theme;
      this.render();
    });

    this.el.filterFile.value = this.state.filterFile;
    this.el.filterStack.value = this.state.filterStack;
    this.el.filterSize.value = String(this.state.minBytes);
    this.el.axis.value = this.state.axis;
  }

  private switchAxis(axis: 'event' | 'time'): void {
    if (axis === this.state.axis) return;
    // Keep looking at the same states: ask for them on the new axis.
    const w = this.window;
    const v = this.viewport;
    let states: [number, number] | undefined;
    if (w && v && w.stepState.length > 0 && (v.x0 > (this.overview?.axis.start ?? 0) || v.x1 < (this.overview?.axis.end ?? 0))) {
      states = [w.stepFirst[0], w.stepLast[w.stepLast.length - 1]];
    }
    this.update({ axis, x0: undefined, x1: undefined });
    this.pendingStates = states;
    this.requestOverview();
    this.render();
  }

  private onKey(e: KeyboardEvent): void {
    const handled = (() => {
      switch (e.key) {
        case '+':
        case '=':
          this.zoomBy(ZOOM_STEP);
          return true;
        case '-':
        case '_':
          this.zoomBy(1 / ZOOM_STEP);
          return true;
        case '0':
          this.resetZoom();
          return true;
        case 'ArrowLeft':
          this.panBy(-(e.shiftKey ? 0.5 : PAN_STEP));
          return true;
        case 'ArrowRight':
          this.panBy(e.shiftKey ? 0.5 : PAN_STEP);
          return true;
        case 'ArrowUp':
          this.zoomY(ZOOM_STEP, 1);
          return true;
        case 'ArrowDown':
          this.zoomY(1 / ZOOM_STEP, 1);
          return true;
        case 'Enter':
          this.goToSource();
          return true;
        case 'Escape':
          this.pin(undefined);
          return true;
        default:
          return false;
      }
    })();
    if (handled) e.preventDefault();
  }

  private onHover(x: number, y: number): void {
    const hit = this.chart.hit(x, y);
    this.hover = hit ? { hit, x, y } : undefined;
    if (hit?.kind === 'block') this.requestBlock(hit.record);
    this.render();
  }

  // ---- rendering ----

  private fillSelectors(): void {
    const { snapshot, device } = this.el;
    const options = (select: HTMLElement, items: { value: string; label: string }[], value: string) => {
      const current = Array.from(select.querySelectorAll('vscode-option')).map((o) => `${o.getAttribute('value')}=${o.textContent}`);
      const wanted = items.map((i) => `${i.value}=${i.label}`);
      if (current.join('\n') !== wanted.join('\n')) {
        select.replaceChildren(
          ...items.map((i) => {
            const o = document.createElement('vscode-option');
            o.setAttribute('value', i.value);
            o.textContent = i.label;
            return o;
          }),
        );
      }
      (select as SelectElement).value = value;
    };
    options(
      snapshot,
      this.snapshots.map((s) => ({ value: s.id, label: s.label })),
      this.target?.snapshotId ?? '',
    );
    const choice = this.snapshots.find((s) => s.id === this.target?.snapshotId);
    const devices = choice?.devices ?? [];
    options(
      device,
      devices.map((d) => ({ value: String(d.device), label: `GPU ${d.device} · ${formatBytes(d.peakBytes)}` })),
      String(this.target?.device ?? ''),
    );
    device.hidden = devices.length <= 1;
    this.el.axis.value = this.state.axis;
    this.el.axis.toggleAttribute('disabled', !choice?.hasTimes);
    this.el.axis.title = choice?.hasTimes ? 'X axis' : 'This snapshot has no event times (PyTorch 2.0): events only';
  }

  private setStatus(text: string): void {
    this.status = text;
    this.el.status.textContent = text;
    this.chart.canvas.setAttribute('aria-label', `Memory over time: ${text}. Arrow keys pan, plus and minus zoom, Enter opens the selected block's line.`);
  }

  private filterHighlight(): ReadonlySet<number> | undefined {
    const filterFile = this.state.filterFile.trim().toLowerCase();
    const focus = this.state.focusLine;
    if (!filterFile && !this.stackIds && focus === undefined) return undefined;
    const ids = new Set<number>();
    if (focus !== undefined) {
      ids.add(focus);
      return ids;
    }
    const filter = { file: filterFile, stackIds: this.stackIds, minBytes: 0 };
    for (const r of this.rows) if (rowPasses(r, filter)) ids.add(r.id);
    return ids;
  }

  private renderTable(): void {
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
    const o = this.overview;
    if (!o || !this.viewport) {
      this.el.tooltip.hidden = true;
      this.chart.resize();
      this.minimap.resize();
      this.chart.clear(this.theme);
      this.minimap.clear(this.theme);
      return undefined;
    }
    this.chart.resize();
    this.minimap.resize();
    this.lastStats = this.chart.draw(
      {
        overview: o,
        window: this.window,
        viewport: this.viewport,
        findings: this.findings,
        yRange: this.state.y0 !== undefined && this.state.y1 !== undefined ? { min: this.state.y0, max: this.state.y1 } : undefined,
        highlight: this.filterHighlight(),
        minBytes: this.state.minBytes,
        pinned: this.state.pinnedRecord,
        hovered: this.hover?.hit.kind === 'block' ? this.hover.hit.record : undefined,
        lineColors: this.lineColors,
      },
      this.theme,
    );
    this.minimap.draw(o, this.viewport, this.theme);
    // The hit under the pointer in what was just drawn (a new window renumbers blocks and steps).
    if (this.hover) {
      const hit = this.chart.hit(this.hover.x, this.hover.y);
      this.hover = hit ? { ...this.hover, hit } : undefined;
    }
    this.drawTooltip(o);
    this.drawDetail(o);
    return this.lastStats;
  }

  private drawTooltip(o: TimelineOverview): void {
    const tip = this.el.tooltip;
    const h = this.hover;
    const lines = h ? tooltipLines(h.hit, this.window, o, h.hit.kind === 'block' ? this.details.get(h.hit.record) : undefined).filter(Boolean) : [];
    if (!h || lines.length === 0) {
      tip.hidden = true;
      return;
    }
    tip.replaceChildren(
      ...lines.map((text, i) => {
        const div = document.createElement('div');
        div.className = i === 0 ? 'tip-head' : 'tip-line';
        div.textContent = text;
        return div;
      }),
    );
    // A finding's message is prose: wrap it rather than cut it.
    tip.classList.toggle('wrap', h.hit.kind === 'finding');
    tip.hidden = false;
    const box = this.el.chartBox.getBoundingClientRect();
    const width = tip.offsetWidth;
    // Beside the pointer, on the side with room, and never past the chart's edges.
    const preferred = h.x + 14 + width > box.width ? h.x - 14 - width : h.x + 14;
    const left = Math.max(0, Math.min(preferred, box.width - width));
    tip.style.left = `${left}px`;
    tip.style.top = `${Math.min(Math.max(0, box.height - tip.offsetHeight), h.y + 12)}px`;
  }

  private drawDetail(o: TimelineOverview): void {
    const record = this.state.pinnedRecord;
    const detail = record !== undefined ? this.details.get(record) : undefined;
    this.el.detail.hidden = detail === undefined;
    if (!detail) return;
    // Drawn again for another block, or for the same one with its stack expanded.
    const key = `${record}:${detail.frames.length}`;
    if (this.el.detail.dataset.shown !== key) {
      renderDetail(this.el.detailTitle, this.el.detailBody, detail, o);
      this.el.detail.dataset.shown = key;
    }
    this.el.goToSource.toggleAttribute('disabled', detail.line === undefined);
  }

  /** For the test hooks: the state, what is pinned, and where a block is on screen. */
  inspect(): { state: ViewState; status: string; window: TimelineWindow | undefined; viewport: Viewport | undefined } {
    return { state: this.state, status: this.status, window: this.window, viewport: this.viewport };
  }

  pointOf(record: number): { x: number; y: number; height: number } | undefined {
    return this.chart.pointOf(record);
  }
}
