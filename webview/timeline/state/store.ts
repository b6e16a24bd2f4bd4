/**
 * What the page holds: the UI state (`ViewState`, kept across hide/show through `persist`) and the
 * data the host sent for the target shown (`PageData`). Every part reads it here and changes it
 * through these methods (the state by the pure transitions of transitions.ts); no DOM, tested in Node.
 */
import type { AllocatorFacts, AllocatorSpan, FindingMarker, LineRow, SegmentMapView, SnapshotChoice, Target, TimelineOverview, TimelineSpan } from '../../../src/protocol/timeline';
import type { ViewState } from './state';
import { restoreState } from './state';
import type { Domain, Viewport } from './viewport';
import { clampViewport, domainOf } from './viewport';

/** What the host sent for the target shown; a new target forgets it (`forgetTarget`), a new axis its axis data. */
export interface PageData {
  /** The loaded snapshots, as the host listed them. */
  readonly snapshots: readonly SnapshotChoice[];
  /** The snapshot and device shown. */
  readonly target: Target | undefined;
  readonly overview: TimelineOverview | undefined;
  /** The latest span summary; may be for another viewport while a new one is on its way. */
  readonly span: TimelineSpan | undefined;
  /** The advisor's findings on the current axis. */
  readonly findings: readonly FindingMarker[];
  /** The x span shown; set once the overview is here. */
  readonly viewport: Viewport | undefined;
  /** The lines table's rows, in their distinct colours. */
  readonly rows: readonly LineRow[];
  /** Distinct colours of the largest lines (drawing/lineColors.ts). */
  readonly lineColors: ReadonlyMap<number, number>;
  /** The lines whose stacks hold the stack filter's text; undefined: no stack filter. */
  readonly stackIds: ReadonlySet<number> | undefined;
  /** The allocator view's latest span (for the block span's range and columns; may lag it while a new one is on its way). */
  readonly allocatorSpan: AllocatorSpan | undefined;
  /** The allocator's self-check and recorded OOMs explained (asked once the allocator view shows the target). */
  readonly allocatorFacts: AllocatorFacts | undefined;
  /** The segment map at the chosen moment (its `event` is the moment - 1). */
  readonly segmentMap: SegmentMapView | undefined;
  /** Why the view asked for is not shown (Show: Allocator where the overview has `allocatorUnavailable`), for the status line. */
  readonly notice: string | undefined;
}

/** The data of one axis of the target: asked again when the axis changes. */
const NO_AXIS_DATA = { overview: undefined, span: undefined, findings: [], viewport: undefined, allocatorSpan: undefined } as const satisfies Partial<PageData>;

/** The data of one target. */
const NO_TARGET_DATA = {
  ...NO_AXIS_DATA,
  rows: [],
  lineColors: new Map(),
  stackIds: undefined,
  allocatorFacts: undefined,
  segmentMap: undefined,
  notice: undefined,
} as const satisfies Partial<PageData>;

const NO_DATA: PageData = { snapshots: [], target: undefined, ...NO_TARGET_DATA };

export const targetKey = (t: Target): string => `${t.snapshotId}#${t.device}`;

export class PageStore {
  private current: ViewState;
  private held: PageData = NO_DATA;

  /** `saved`: what the view kept last time (checked: it may come from an older version); `persist` keeps the state. */
  constructor(
    saved: unknown,
    private readonly persist: (state: ViewState) => void,
  ) {
    this.current = restoreState(saved);
  }

  get state(): ViewState {
    return this.current;
  }

  get data(): PageData {
    return this.held;
  }

  /** Takes the state a transition gives, and keeps it for when the view is shown again. */
  apply(next: ViewState): void {
    if (next === this.current) return;
    this.current = next;
    this.persist(next);
  }

  update(patch: Partial<ViewState>): void {
    this.apply({ ...this.current, ...patch });
  }

  set(patch: Partial<PageData>): void {
    this.held = { ...this.held, ...patch };
  }

  /** Forgets the data of the axis shown (a new axis asks for all of it again). */
  forgetAxis(): void {
    this.set(NO_AXIS_DATA);
  }

  /** Shows `target` with none of its data yet. */
  forgetTarget(target: Target): void {
    this.set({ ...NO_TARGET_DATA, target });
  }

  /** Whether `target` is the one shown. */
  shows(target: Target): boolean {
    return this.held.target !== undefined && targetKey(this.held.target) === targetKey(target);
  }

  /** Whether the page still shows `target` (and `axis`, when given), asked when an answer arrives: else it is dropped. */
  showing(target: Target, axis?: string): () => boolean {
    return () => this.shows(target) && (axis === undefined || axis === this.current.axis);
  }

  /** The x range the viewport may cover; undefined before the overview. */
  domain(): Domain | undefined {
    return this.held.overview ? domainOf(this.held.overview) : undefined;
  }

  /**
   * Moves the viewport, kept inside the domain; the state keeps it, or nothing when it shows the
   * whole axis. False (nothing moved) before the overview.
   */
  moveViewport(v: Viewport): boolean {
    const o = this.held.overview;
    if (!o) return false;
    const viewport = clampViewport(v, domainOf(o));
    this.set({ viewport });
    const full = viewport.x0 <= o.axis.start && viewport.x1 >= o.axis.end;
    this.update({ x0: full ? undefined : viewport.x0, x1: full ? undefined : viewport.x1 });
    return true;
  }

  /** The y range the user set, else undefined (fit to the span). */
  yRange(): { readonly min: number; readonly max: number } | undefined {
    const { y0, y1 } = this.current;
    return y0 !== undefined && y1 !== undefined ? { min: y0, max: y1 } : undefined;
  }
}
