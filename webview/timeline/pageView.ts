/**
 * One frame of the page, drawn from the store: the chart (with the lines the filters highlight), the
 * minimap, the legend, the hover card over the hit under the pointer, and the pinned block's panel.
 * Several changes in one animation frame draw once (`render`); the test hooks draw now (`draw`).
 */
import type { BlockDetail, LineRow, TimelineOverview } from '../../src/protocol/timeline';
import { bucketLegend, kindsDrawn } from './controls/bucketLegend';
import { renderDetail } from './controls/detail';
import { showBucketLegend, showOverviewLegend } from './controls/legend';
import { showTooltip } from './controls/tooltip';
import { tooltipLines } from './controls/tooltipText';
import { allocatorTooltip, oomAt, oomLines } from './controls/allocatorText';
import type { AllocatorPanel } from './controls/allocatorPanel';
import { highlightedLines } from './state/lineFilter';
import type { PageStore } from './state/store';
import type { Chart, DrawStats } from './drawing/chart';
import type { Hit } from './drawing/hit';
import type { Minimap } from './drawing/minimap';
import type { Theme } from './drawing/theme';
import { readTheme } from './drawing/theme';

export interface Hover {
  readonly hit: Hit;
  readonly x: number;
  readonly y: number;
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
  private theme: Theme = readTheme();
  private hovered: Hover | undefined;
  private frame = 0;
  /** The overview whose legend entries are shown. */
  private legendOf: TimelineOverview | undefined;

  constructor(
    private readonly chart: Chart,
    private readonly minimap: Minimap,
    private readonly el: PageElements,
    private readonly store: PageStore,
    /** The details of the blocks asked about (requests/blockDetails.ts). */
    private readonly detail: (record: number) => BlockDetail | undefined,
    /** The allocator view's panel (the segment map); none in tests of the block view. */
    private readonly allocatorPanel?: AllocatorPanel,
  ) {}

  get palette(): readonly string[] {
    return this.theme.palette;
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    this.render();
  }

  /** The hit under a CSS-pixel point of the chart, which the tooltip then describes. */
  hoverAt(x: number, y: number): Hit | undefined {
    const hit = this.chart.hit(x, y);
    this.hovered = hit ? { hit, x, y } : undefined;
    this.render();
    return hit;
  }

  leave(): void {
    this.hovered = undefined;
    this.render();
  }

  /** Draws on the next animation frame (several changes in one frame draw once). */
  render(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  /** Draws now; returns what the chart drew. */
  draw(): DrawStats | undefined {
    const { chart, minimap, el, theme, store } = this;
    const { overview: o, viewport, span: w, rows, stackIds } = store.data;
    const state = store.state;
    chart.resize();
    minimap.resize();
    const allocator = state.mode === 'allocator';
    this.allocatorPanel?.show(allocator && o !== undefined, store.data.allocatorFacts, store.data.segmentMap, state.moment, theme, store.data.lineColors);
    if (!o || !viewport) {
      el.tooltip.hidden = true;
      showBucketLegend([], theme);
      chart.clear(theme);
      minimap.clear(theme);
      return undefined;
    }
    if (this.legendOf !== o) {
      showOverviewLegend(o);
      this.legendOf = o;
    }
    const stats = chart.draw(
      {
        overview: o,
        span: w,
        viewport,
        findings: store.data.findings,
        yRange: store.yRange(),
        highlight: highlightedLines(rows, state.filterFile, stackIds, state.focusLine, o.places),
        minBytes: state.minBytes,
        pinned: state.pinnedRecord,
        hovered: this.hovered?.hit.kind === 'block' ? this.hovered.hit.record : undefined,
        lineColors: store.data.lineColors,
        mode: state.mode,
        allocator: store.data.allocatorSpan,
        moment: state.moment,
      },
      theme,
    );
    minimap.draw(o, viewport, theme);
    showBucketLegend(bucketLegend(o.peakBreakdown, kindsDrawn(w?.blockBucket)), theme);
    // The hit under the pointer in what was just drawn (a new span renumbers blocks and steps).
    let hover = this.hovered;
    if (hover) {
      const hit = chart.hit(hover.x, hover.y);
      hover = hit ? { ...hover, hit } : undefined;
    }
    this.hovered = hover;
    const rowOf = (id: number) => rows.find((r) => r.id === id);
    const lines = hover ? this.tooltip(hover, rowOf).filter(Boolean) : [];
    showTooltip(el.tooltip, el.chartBox, lines, hover?.x ?? 0, hover?.y ?? 0, hover?.hit.kind === 'finding');
    this.drawDetail(o, state.pinnedRecord);
    return stats;
  }

  /** The hover card's lines: the allocator view's words for its segments and steps, and for an OOM its explanation. */
  private tooltip(hover: Hover, rowOf: (id: number) => LineRow | undefined): string[] {
    const { overview: o, span: w, allocatorSpan, allocatorFacts } = this.store.data;
    if (!o) return [];
    const hit = hover.hit;
    if (hit.kind === 'segment' || hit.kind === 'allocatorStep') return allocatorTooltip(hit, allocatorSpan);
    const lines = tooltipLines(hit, w, o, hit.kind === 'block' ? this.detail(hit.record) : undefined, rowOf);
    if (hit.kind === 'oom' && this.store.state.mode === 'allocator') {
      const explained = oomAt(allocatorFacts?.ooms, o.ooms[hit.index].state - 1);
      return explained ? [...oomLines(explained), 'Click to see the segment map at this moment'] : lines;
    }
    return lines;
  }

  private drawDetail(o: TimelineOverview, record: number | undefined): void {
    const { el } = this;
    const detail = record !== undefined ? this.detail(record) : undefined;
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
