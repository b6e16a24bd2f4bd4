/**
 * The span summaries the chart asks the host for: at most one request in flight; while it runs
 * the last summary is redrawn at the new zoom, and the latest viewport is asked for when it answers.
 * An answer goes into the store (a span fitted to states moves the viewport to it).
 */
import type { TimelineSpan } from '../../../src/protocol/timeline';
import type { PlotSize } from '../parts';
import type { PageStore } from '../state/store';
import { estimateYMax, sameViewport } from '../state/viewport';
import type { Requests } from './requests';

const BLOCK_BUDGET = 20_000;

/** What the fetcher works with, and where it says that a summary arrived. */
export interface SpanParts {
  readonly requests: Requests;
  readonly store: PageStore;
  readonly plot: PlotSize;
  /** A summary is in the store (and the viewport too, when the host chose it to fit states). */
  arrived(): void;
  failed(message: string): void;
}

export type SpanRange = { x0: number; x1: number } | { states: [number, number]; statesMargin?: number };

export class SpanFetcher {
  private inFlight = false;
  private wanted = false;
  /** Ask again even when the viewport has not moved (the focus line or the y range changed). */
  private stale = false;

  constructor(private readonly parts: SpanParts) {}

  /** Asks for the current viewport's summary now, or after the one in flight. */
  request(): void {
    this.wanted = true;
    this.maybeRequest();
  }

  /** Asks again for the same viewport (what the summary holds changed). */
  refresh(): void {
    this.wanted = true;
    this.stale = true;
    this.maybeRequest();
  }

  maybeRequest(): void {
    const { store, plot } = this.parts;
    const { viewport, overview, span: w } = store.data;
    if (this.inFlight || !this.wanted || !viewport || !overview) return;
    if (!this.stale && w && w.columns === plot.plotColumns() && sameViewport(w, viewport) && w.axis === store.state.axis) {
      this.wanted = false;
      return;
    }
    this.send({ x0: viewport.x0, x1: viewport.x1 });
  }

  send(range: SpanRange): void {
    const { store, plot, requests } = this.parts;
    const { target, overview, viewport } = store.data;
    if (!target || !overview) return;
    const state = store.state;
    this.wanted = false;
    this.stale = false;
    this.inFlight = true;
    plot.resize();
    const heightPx = plot.plotHeightPixels();
    const span = state.y0 !== undefined && state.y1 !== undefined ? state.y1 - state.y0 : estimateYMax(overview, viewport);
    // Offsets closer than half a device pixel look the same: they need not be sent.
    const quantum = span / heightPx / 2;
    const fitted = 'states' in range;
    requests.ask(
      {
        type: 'span',
        target,
        request: {
          axis: state.axis,
          ...range,
          columns: plot.plotColumns(),
          // The allocator view draws no blocks one by one.
          budget: state.mode === 'allocator' ? 0 : BLOCK_BUDGET,
          offsetQuantum: Number.isFinite(quantum) ? quantum : 0,
          focusLine: state.focusLine,
        },
      },
      {
        current: store.showing(target, state.axis),
        settled: () => {
          this.inFlight = false;
        },
        answered: (m) => this.take(m.span, fitted),
        stale: () => this.maybeRequest(),
        failed: (message) => {
          this.parts.failed(message);
          this.maybeRequest();
        },
      },
    );
  }

  private take(w: TimelineSpan, fitted: boolean): void {
    const { store } = this.parts;
    store.set({ span: w });
    if (fitted) store.moveViewport({ x0: w.x0, x1: w.x1 });
    this.parts.arrived();
    this.maybeRequest();
  }
}
