/**
 * One layer of the chart: what every layer gets for a frame, and the one method it implements. The
 * chart (chart.ts) draws its layers bottom to top, each in its own canvas state (save/restore), a
 * 'plot' layer clipped to the plot and a 'frame' layer around it (axes, lanes, marks under the
 * baseline); then it places the labels the layers asked for, together, so that none overlaps another.
 * A new layer: a module here exporting a `ChartLayer`, its data as a field of `ChartScene` (filled in
 * drawing/pageView.ts from the page's store), and its place in the chart's `layers` (chart.ts).
 */
import type { AllocatorSpan, FindingMarker, TimelineOverview, TimelineSpan } from '../../../../src/protocol/timeline';
import type { LabelRequest } from '../labelLayout';
import type { Plot, Scales } from '../plot';
import type { Theme } from '../theme';
import type { Viewport } from '../../state/viewport';

/** What the page gives the chart to draw: the data of one frame (pageView.ts builds it from the page's store). */
export interface ChartScene {
  readonly overview: TimelineOverview;
  /** The latest summary; may cover another span than `viewport` while a new one is on its way. */
  readonly span: TimelineSpan | undefined;
  readonly viewport: Viewport;
  /** The advisor's findings placed on this axis (empty until the host has sent them). */
  readonly findings: readonly FindingMarker[];
  /** The bytes range of the y axis; undefined fits [0, highest in the span]. */
  readonly yRange: { readonly min: number; readonly max: number } | undefined;
  /** Lines drawn at full strength (the others dimmed); undefined: every line. */
  readonly highlight: ReadonlySet<number> | undefined;
  /** Blocks smaller than this are dimmed. */
  readonly minBytes: number;
  readonly pinned: number | undefined;
  readonly hovered: number | undefined;
  /** Colours that replace the lines' own (the ten largest lines get distinct ones: lineColors). */
  readonly lineColors?: ReadonlyMap<number, number>;
  /** 'allocator': reserved memory by segment and the allocator's lines instead of the blocks (default 'blocks'). */
  readonly mode?: 'blocks' | 'allocator';
  /** The allocator view's span (may cover another range than `viewport` while a new one is on its way). */
  readonly allocator?: AllocatorSpan;
  /** The allocator view's chosen moment (a state). */
  readonly moment?: number;
}

/** A text label over the plot, placed with all the others once every layer drew (labelLayout). */
export interface Label {
  readonly request: LabelRequest;
  readonly font: string;
  readonly color: string;
  /** A colour drawn behind the text, for a label that sits over filled bands (the segment map's moment). */
  readonly backdrop?: string;
}

/** One frame as a layer sees it. Positions are device pixels. */
export interface LayerFrame {
  readonly ctx: CanvasRenderingContext2D;
  readonly scene: ChartScene;
  /** The span summary to draw: the scene's when it is for the overview's axis, else none yet. */
  readonly span: TimelineSpan | undefined;
  readonly theme: Theme;
  readonly plot: Plot;
  readonly scales: Scales;
  /** Labels this frame's layers ask for (push to it; the chart places and draws them last). */
  readonly labels: Label[];
}

export interface ChartLayer {
  /** 'plot': clipped to the plot; 'frame': around it (under the baseline, left of it, the lanes above it). */
  readonly area: 'plot' | 'frame';
  draw(frame: LayerFrame): void;
}
