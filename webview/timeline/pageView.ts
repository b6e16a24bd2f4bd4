/**
 * Drawing the page from what it holds: the chart (with the lines the filters highlight), the
 * minimap, the bucket legend, the hover card over the hit under the pointer, and the pinned block's panel.
 */
import type { FindingMarker } from '../../src/engine/timeline/findingMarkers';
import type { BlockDetail, TimelineOverview, TimelineWindow } from '../../src/engine/timeline/types';
import type { LineRow } from '../../src/protocol/timeline';
import type { Chart, DrawStats } from './chart';
import { bucketLegend, kindsDrawn } from './bucketLegend';
import { renderDetail } from './detail';
import { showBucketLegend } from './legend';
import type { Hit } from './hit';
import { highlightedLines } from './lineFilter';
import type { Minimap } from './minimap';
import type { ViewState } from './state';
import type { Theme } from './theme';
import { showTooltip } from './tooltip';
import { tooltipLines } from './tooltipText';
import type { Viewport } from './viewport';

export interface Hover {
  readonly hit: Hit;
  readonly x: number;
  readonly y: number;
}

/** What one frame of the page shows. */
export interface PageFrame {
  readonly theme: Theme;
  readonly state: ViewState;
  readonly overview: TimelineOverview | undefined;
  readonly window: TimelineWindow | undefined;
  readonly viewport: Viewport | undefined;
  readonly findings: readonly FindingMarker[];
  readonly rows: readonly LineRow[];
  readonly stackIds: ReadonlySet<number> | undefined;
  readonly lineColors: ReadonlyMap<number, number>;
  readonly hover: Hover | undefined;
  detail(record: number): BlockDetail | undefined;
}

export interface PageElements {
  readonly chartBox: HTMLElement;
  readonly tooltip: HTMLElement;
  readonly detail: HTMLElement;
  readonly detailTitle: HTMLElement;
  readonly detailBody: HTMLElement;
  readonly goToSource: HTMLElement;
}

export class PageView {
  constructor(
    readonly chart: Chart,
    readonly minimap: Minimap,
    private readonly el: PageElements,
  ) {}

  /** Draws the frame; returns what the chart drew and the hover as it is in what was drawn. */
  draw(f: PageFrame): { stats: DrawStats | undefined; hover: Hover | undefined } {
    const { chart, minimap, el } = this;
    const o = f.overview;
    chart.resize();
    minimap.resize();
    if (!o || !f.viewport) {
      el.tooltip.hidden = true;
      showBucketLegend([], f.theme);
      chart.clear(f.theme);
      minimap.clear(f.theme);
      return { stats: undefined, hover: f.hover };
    }
    const { state } = f;
    const stats = chart.draw(
      {
        overview: o,
        window: f.window,
        viewport: f.viewport,
        findings: f.findings,
        yRange: state.y0 !== undefined && state.y1 !== undefined ? { min: state.y0, max: state.y1 } : undefined,
        highlight: highlightedLines(f.rows, state.filterFile, f.stackIds, state.focusLine),
        minBytes: state.minBytes,
        pinned: state.pinnedRecord,
        hovered: f.hover?.hit.kind === 'block' ? f.hover.hit.record : undefined,
        lineColors: f.lineColors,
      },
      f.theme,
    );
    minimap.draw(o, f.viewport, f.theme);
    showBucketLegend(bucketLegend(o.peakBreakdown, kindsDrawn(f.window?.blockBucket)), f.theme);
    // The hit under the pointer in what was just drawn (a new window renumbers blocks and steps).
    let hover = f.hover;
    if (hover) {
      const hit = chart.hit(hover.x, hover.y);
      hover = hit ? { ...hover, hit } : undefined;
    }
    const rowOf = (id: number) => f.rows.find((r) => r.id === id);
    const lines = hover ? tooltipLines(hover.hit, f.window, o, hover.hit.kind === 'block' ? f.detail(hover.hit.record) : undefined, rowOf).filter(Boolean) : [];
    showTooltip(el.tooltip, el.chartBox, lines, hover?.x ?? 0, hover?.y ?? 0, hover?.hit.kind === 'finding');
    this.drawDetail(o, state.pinnedRecord, state.pinnedRecord !== undefined ? f.detail(state.pinnedRecord) : undefined);
    return { stats, hover };
  }

  private drawDetail(o: TimelineOverview, record: number | undefined, detail: BlockDetail | undefined): void {
    const { el } = this;
    el.detail.hidden = detail === undefined;
    if (!detail) return;
    // Drawn again for another block, or for the same one with its stack expanded.
    const key = `${record}:${detail.frames.length}`;
    if (el.detail.dataset.shown !== key) {
      renderDetail(el.detailTitle, el.detailBody, detail, o);
      el.detail.dataset.shown = key;
    }
    el.goToSource.toggleAttribute('disabled', detail.line === undefined);
  }
}
