/**
 * The window summaries the chart asks the host for: at most one request in flight; while it runs
 * the last summary is redrawn at the new zoom, and the latest viewport is asked for when it answers.
 */
import type { TimelineOverview, TimelineWindow } from '../../src/engine/timeline/types';
import type { Target } from '../../src/protocol/timeline';
import type { Chart } from './chart';
import type { Requests } from './requests';
import type { ViewState } from './state';
import type { Viewport } from './viewport';
import { estimateYMax, sameViewport } from './viewport';

const BLOCK_BUDGET = 20_000;

/** What the fetcher reads from the page, and where it hands the answers. */
export interface WindowPage {
  readonly requests: Requests;
  readonly chart: Chart;
  target(): Target | undefined;
  overview(): TimelineOverview | undefined;
  viewport(): Viewport | undefined;
  window(): TimelineWindow | undefined;
  state(): ViewState;
  /** Whether the page still shows `target` on `axis`. */
  showing(target: Target, axis: string): () => boolean;
  /** A summary arrived; `asked` is the viewport asked for (undefined: states fitted by the host). */
  answered(w: TimelineWindow, asked: Viewport | undefined): void;
  failed(message: string): void;
}

export type WindowRange = { x0: number; x1: number } | { states: [number, number]; statesMargin?: number };

export class WindowFetcher {
  private inFlight = false;
  private wanted = false;
  /** Ask again even when the viewport has not moved (the focus line or the y range changed). */
  private stale = false;

  constructor(private readonly page: WindowPage) {}

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
    const { page } = this;
    const viewport = page.viewport();
    if (this.inFlight || !this.wanted || !viewport || !page.overview()) return;
    const w = page.window();
    if (!this.stale && w && w.columns === page.chart.plotColumns() && sameViewport(w, viewport) && w.axis === page.state().axis) {
      this.wanted = false;
      return;
    }
    this.send({ x0: viewport.x0, x1: viewport.x1 });
  }

  send(range: WindowRange): void {
    const { page } = this;
    const target = page.target();
    if (!target || !page.overview()) return;
    const state = page.state();
    this.wanted = false;
    this.stale = false;
    this.inFlight = true;
    page.chart.resize();
    const heightPx = page.chart.plotHeightPixels();
    const span = state.y0 !== undefined && state.y1 !== undefined ? state.y1 - state.y0 : estimateYMax(page.overview(), page.viewport());
    // Offsets closer than half a device pixel look the same: they need not be sent.
    const quantum = span / heightPx / 2;
    const asked = 'states' in range ? undefined : { x0: range.x0, x1: range.x1 };
    page.requests.ask(
      {
        type: 'window',
        target,
        request: {
          axis: state.axis,
          ...range,
          columns: page.chart.plotColumns(),
          budget: BLOCK_BUDGET,
          offsetQuantum: Number.isFinite(quantum) ? quantum : 0,
          focusLine: state.focusLine,
        },
      },
      {
        current: page.showing(target, state.axis),
        settled: () => {
          this.inFlight = false;
        },
        answered: (m) => page.answered(m.window, asked),
        stale: () => this.maybeRequest(),
        failed: (message) => {
          page.failed(message);
          this.maybeRequest();
        },
      },
    );
  }
}
