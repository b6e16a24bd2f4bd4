/**
 * What the user does on the timeline page: zoom, pan, pin, hover, filter, choose a snapshot,
 * device or axis, open a line (chartInput and controls read the events and call these). The
 * page's data, requests and drawing are TimelinePage (page.ts).
 */
import type { AxisKind } from '../../src/engine/timeline/types';
import type { ChartActions } from './chartActions';
import { wireChartInput } from './chartInput';
import type { ControlActions } from './controls';
import { wireControls } from './controls';
import type { Host } from '../shared/host';
import type { LineRow, TimelineCommand, TimelineToHost } from '../../src/protocol/timeline';
import type { Hit } from './hit';
import type { SortKey, ViewState } from './state';
import { onSort } from './transitions';
import { watchTheme } from './theme';
import type { Viewport } from './viewport';
import { estimateYMax, pan, zoom, zoomYRange } from './viewport';
import { TimelinePage } from './page';

export class TimelineApp extends TimelinePage implements ChartActions, ControlActions {
  constructor(host: Host<TimelineToHost, ViewState>) {
    super(host);
    this.wire();
    window.addEventListener('message', (e: MessageEvent<unknown>) => this.receive(e.data));
    this.post({ type: 'ready' });
  }

  zoomBy(factor: number, anchor = 0.5): void {
    if (this.viewport && this.overview) this.setViewport(zoom(this.viewport, factor, anchor, this.domain()));
  }

  panBy(fraction: number): void {
    if (this.viewport && this.overview) this.setViewport(pan(this.viewport, fraction, this.domain()));
  }

  resetZoom(): void {
    this.update({ y0: undefined, y1: undefined });
    if (this.overview) this.setViewport({ x0: this.overview.axis.start, x1: this.overview.axis.end });
  }

  /** Zooms the y axis by `factor` (> 1 zooms in) keeping the bytes at `anchor` (0 bottom .. 1 top) in place. */
  zoomY(factor: number, anchor = 0.5): void {
    const current = this.chart.yRange();
    if (!current) return;
    const range = zoomYRange(current, factor, anchor, estimateYMax(this.overview, this.viewport));
    this.update({ y0: range?.min, y1: range?.max });
    this.render();
    this.windows.refresh();
  }

  protected selectLine(line: number | undefined): void {
    this.update({ focusLine: line });
    this.renderTable();
    this.render();
    this.windows.refresh();
  }

  protected zoomToLine(row: LineRow): void {
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

  protected sortBy(key: SortKey): void {
    this.apply(onSort(this.state, key));
    this.renderTable();
  }

  pin(record: number | undefined): void {
    this.update({ pinnedRecord: record });
    if (record !== undefined) this.requestBlock(record);
    this.render();
  }

  goToSource(): void {
    const record = this.state.pinnedRecord;
    const line = record !== undefined ? this.details.get(record)?.line : undefined;
    if (line) this.post({ type: 'openSource', file: line.file, line: line.line });
  }

  switchAxis(axis: AxisKind): void {
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

  // ---- input (chartInput and controls call these) ----

  private wire(): void {
    wireChartInput(this.chart, this);
    wireControls(this.el, this);
    const observer = new ResizeObserver(() => {
      const a = this.chart.resize();
      const b = this.minimap.resize();
      if (a || b) {
        this.render();
        if (a) this.windows.request();
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

  currentViewport(): Viewport | undefined {
    return this.viewport;
  }

  leave(): void {
    this.hovered = undefined;
    this.render();
  }

  openBlock(hit: Extract<Hit, { kind: 'block' }>): void {
    const w = this.window;
    const line = w?.lines.find((l) => l.id === w.blockLine[hit.index]);
    if (line) this.openSource(line.file, line.line);
  }

  openSource(file: string, line: number): void {
    this.post({ type: 'openSource', file, line });
  }

  expandFrames(record: number): void {
    if (this.target) this.details.expand(this.target, record);
  }

  chooseSnapshot(id: string): void {
    const s = this.snapshots.find((c) => c.id === id);
    if (s && s.id !== this.target?.snapshotId) this.setTarget({ snapshotId: s.id, device: s.device });
  }

  chooseDevice(device: number): void {
    if (this.target && device !== this.target.device) this.setTarget({ snapshotId: this.target.snapshotId, device });
  }

  filterFile(text: string): void {
    this.update({ filterFile: text });
    this.renderTable();
    this.render();
  }

  filterStack(text: string): void {
    this.update({ filterStack: text });
  }

  filterStackSettled(): void {
    this.requestStackFilter();
    if (!this.state.filterStack.trim()) {
      this.renderTable();
      this.render();
    }
  }

  filterSize(minBytes: number): void {
    this.update({ minBytes });
    this.renderTable();
    this.render();
  }

  runCommand(command: TimelineCommand): void {
    this.post({ type: 'runCommand', command });
  }

  hover(x: number, y: number): void {
    const hit = this.chart.hit(x, y);
    this.hovered = hit ? { hit, x, y } : undefined;
    if (hit?.kind === 'block') this.requestBlock(hit.record);
    this.render();
  }

}
