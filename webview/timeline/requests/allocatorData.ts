/**
 * The allocator view's data: for each block span that arrives, the allocator's span over the same
 * range and columns (so their steps agree; one request in flight, the latest span asked for when it
 * answers); once per target, the self-check and the recorded OOMs explained; and the segment map at
 * the chosen moment. Asked only while the view shows the allocator. Answers go into the store.
 */
import type { Target } from '../../../src/protocol/timeline';
import type { PlotSize, Screen } from '../parts';
import { targetKey } from '../state/store';
import type { PageStore } from '../state/store';
import type { Requests } from './requests';

/** Segments sent one by one per span (the rest fills the room under the reserved line). */
export const SEGMENT_BUDGET = 2_000;

export interface AllocatorParts {
  readonly requests: Requests;
  readonly store: PageStore;
  readonly plot: PlotSize;
  readonly screen: Pick<Screen, 'render' | 'setStatus' | 'segmentMapShown'>;
}

export class AllocatorData {
  private inFlight = false;
  /** The span asked for last that has no allocator span (a device without a trace): not asked again. */
  private empty: string | undefined;
  /** The target whose facts were asked for (a new target asks again). */
  private factsAsked: string | undefined;
  /** The state whose segment map was asked for last. */
  private mapAsked: { key: string; state: number } | undefined;

  constructor(private readonly parts: AllocatorParts) {}

  private get active(): boolean {
    return this.parts.store.state.mode === 'allocator';
  }

  /** The allocator view shows the target (again, or for the first time): asks for what it lacks. */
  show(): void {
    if (!this.active) return;
    const target = this.parts.store.data.target;
    if (!target) return;
    this.askFacts(target);
    this.windowArrived();
    this.askMap();
  }

  /** A block span is in the store: the allocator's span over the same range, unless it is there or on its way. */
  windowArrived(): void {
    const { store, plot, requests } = this.parts;
    if (!this.active || this.inFlight) return;
    const { target, span: w, allocatorSpan: have } = store.data;
    if (!target || !w) return;
    if (have && have.axis === w.axis && have.x0 === w.x0 && have.x1 === w.x1 && have.columns === w.columns) return;
    const key = `${targetKey(target)}|${w.axis}|${w.x0}|${w.x1}|${w.columns}`;
    if (key === this.empty) return;
    const heightPx = plot.plotHeightPixels();
    let top = 0;
    for (let i = 0; i < w.reserved.length; i++) top = Math.max(top, w.reserved[i]);
    const { y0, y1 } = store.state;
    const span = y0 !== undefined && y1 !== undefined ? y1 - y0 : top * 1.06;
    // Offsets closer than half a device pixel look the same: they need not be sent.
    const quantum = span / heightPx / 2;
    this.inFlight = true;
    requests.ask(
      {
        type: 'allocatorSpan',
        target,
        request: { axis: w.axis, x0: w.x0, x1: w.x1, columns: w.columns, budget: SEGMENT_BUDGET, offsetQuantum: Number.isFinite(quantum) ? quantum : 0 },
      },
      {
        current: store.showing(target, w.axis),
        settled: () => {
          this.inFlight = false;
        },
        answered: (m) => {
          store.set({ allocatorSpan: m.span });
          if (!m.span) {
            this.empty = key;
            this.parts.screen.setStatus('This device has no trace: the allocator cannot be replayed.');
          }
          this.parts.screen.render();
          this.windowArrived();
        },
        stale: () => this.windowArrived(),
        failed: (message) => {
          this.parts.screen.setStatus(`Error: ${message}`);
        },
      },
    );
  }

  /** Chooses the moment whose segment map is shown (undefined: none), and asks for its map. */
  chooseMoment(state: number | undefined): void {
    const { store, screen } = this.parts;
    store.update({ moment: state });
    if (state === undefined) store.set({ segmentMap: undefined });
    this.askMap();
    screen.segmentMapShown();
    screen.render();
  }

  private askFacts(target: Target): void {
    const { store, requests, screen } = this.parts;
    const key = targetKey(target);
    if (this.factsAsked === key && store.data.allocatorFacts) return;
    this.factsAsked = key;
    requests.ask(
      { type: 'allocatorFacts', target },
      {
        current: store.showing(target),
        answered: (m) => {
          store.set({ allocatorFacts: m.facts });
          screen.segmentMapShown();
          screen.render();
        },
        failed: (message) => {
          this.factsAsked = undefined;
          screen.setStatus(`Error: ${message}`);
        },
      },
    );
  }

  private askMap(): void {
    const { store, requests, screen } = this.parts;
    const target = store.data.target;
    const state = store.state.moment;
    if (!this.active || !target || state === undefined) return;
    const key = targetKey(target);
    const have = store.data.segmentMap;
    if (have && have.event === state - 1) return;
    if (this.mapAsked && this.mapAsked.key === key && this.mapAsked.state === state && requests.isWaiting('segmentMap', `${key}@${state}`)) return;
    this.mapAsked = { key, state };
    requests.ask(
      { type: 'segmentMap', target, state },
      {
        tag: `${key}@${state}`,
        // Only the map of the moment chosen now.
        current: () => store.shows(target) && store.state.moment === state,
        answered: (m) => {
          store.set({ segmentMap: m.map });
          screen.segmentMapShown();
        },
      },
    );
  }
}
