/**
 * The main plot: a canvas drawing one level-of-detail window in layers (frame and grid: axesLayer;
 * merged rest and individual blocks: blocksLayer; allocated, reserved and measured lines:
 * seriesLayer; peak, OOM and finding markers with their labels: markersLayer), scaled for
 * devicePixelRatio, and hit testing for hover and clicks (chartHit).
 */
import type { FindingMarker } from '../../src/engine/timeline/findingMarkers';
import type { TimelineOverview, TimelineWindow } from '../../src/engine/timeline/types';
import { drawAnnotationLanes, drawReleases, drawXAxis, drawYGrid } from './axesLayer';
import type { BlocksScene } from './blocksLayer';
import { BlocksLayer } from './blocksLayer';
import { fitToDisplay, paintBackground } from './canvas';
import type { DrawnFrame } from './chartHit';
import { hitTest, pointOfRecord } from './chartHit';
import type { Hit } from './hit';
import type { DrawnFinding, DrawnLabel, Label } from './markersLayer';
import { drawFindings, drawLabels, drawPeakAndOoms } from './markersLayer';
import type { Plot } from './plot';
import { BOTTOM, laneCount, layoutPlot, LEFT, RIGHT, scalesOf } from './plot';
import { drawMeasuredLine, drawStepLine } from './seriesLayer';
import type { Theme } from './theme';
import type { Viewport } from './viewport';


export interface ChartScene extends BlocksScene {
  readonly overview: TimelineOverview;
  /** The latest summary; may cover another window than `viewport` while a new one is on its way. */
  readonly window: TimelineWindow | undefined;
  readonly viewport: Viewport;
  /** The advisor's findings placed on this axis (empty until the host has sent them). */
  readonly findings: readonly FindingMarker[];
  /** The bytes range of the y axis; undefined fits [0, highest in the window]. */
  readonly yRange: { readonly min: number; readonly max: number } | undefined;
}

/** What the last frame drew (read by the browser tests through the test hooks). */
export interface DrawStats {
  readonly ms: number;
  readonly steps: number;
  readonly rects: number;
  /** Records of the blocks with at least one rectangle on screen. */
  readonly drawnRecords: readonly number[];
  /** Palette index (or -1: no line) of each of those blocks. */
  readonly drawnColors: readonly number[];
  /** For each of those blocks no line holds: its bucket kind's index in PEAK_BUCKET_KINDS (else -1). */
  readonly drawnBuckets: readonly number[];
  /** The finding markers on screen: label and the CSS-pixel centre of the marker's diamond. */
  readonly drawnFindings: readonly DrawnFinding[];
  /** The text labels drawn over the plot (peak, OOMs, findings), their boxes in CSS pixels: they never intersect. */
  readonly drawnLabels: readonly DrawnLabel[];
  readonly yMax: number;
}

export class Chart {
  private readonly ctx: CanvasRenderingContext2D;
  private readonly blocks: BlocksLayer;
  private plot: Plot | undefined;
  private scene: ChartScene | undefined;
  /** What the last frame drew, for hit testing. */
  private frame: DrawnFrame | undefined;

  constructor(readonly canvas: HTMLCanvasElement) {
    const ctx = canvas.getContext('2d', { alpha: false });
    if (!ctx) throw new Error('no 2D canvas');
    this.ctx = ctx;
    this.blocks = new BlocksLayer(ctx);
  }

  /** Paints the background only (nothing to show yet). */
  clear(theme: Theme): void {
    paintBackground(this.ctx, theme);
  }

  /** Matches the backing store to the element's CSS size at the current devicePixelRatio. */
  resize(): boolean {
    return fitToDisplay(this.canvas);
  }

  /** Plot width in CSS pixels: the number of columns to ask the host for. */
  plotColumns(): number {
    const rect = this.canvas.getBoundingClientRect();
    return Math.max(1, Math.round(rect.width - LEFT - RIGHT));
  }

  /** Plot height in device pixels. */
  plotHeightPixels(): number {
    return this.plot?.height ?? Math.max(1, this.canvas.height - BOTTOM * (window.devicePixelRatio || 1));
  }

  draw(scene: ChartScene, theme: Theme): DrawStats {
    const started = performance.now();
    this.scene = scene;
    const { ctx, canvas } = this;
    const dpr = window.devicePixelRatio || 1;
    const { overview, viewport } = scene;
    const w = scene.window && scene.window.axis === overview.axis.kind ? scene.window : undefined;
    const plot = layoutPlot(canvas, dpr, overview, w, viewport, scene.yRange);
    this.plot = plot;
    const scales = scalesOf(plot);
    const { left, top, width, height } = plot;

    ctx.save();
    paintBackground(ctx, theme);
    ctx.font = `${11 * dpr}px ${theme.fontFamily}`;
    ctx.textBaseline = 'middle';
    drawYGrid(ctx, theme, plot, scales);

    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, width, height);
    ctx.clip();
    let drawn = { rects: 0, drawnRecords: [] as number[], drawnColors: [] as number[], drawnBuckets: [] as number[] };
    if (w) {
      this.blocks.drawRest(w, theme, plot, scales);
      drawn = this.blocks.drawBlocks(w, scene, theme, plot, scales);
      // The allocated total (envelope) and the reserved memory, as step lines.
      drawStepLine(ctx, w, (i) => w.envelope[i], scales, theme.allocated, 1.25 * dpr, []);
      drawStepLine(ctx, w, (i) => w.reserved[i], scales, theme.reserved, 1.25 * dpr, [4 * dpr, 3 * dpr]);
      if (overview.measured) drawMeasuredLine(ctx, overview.measured, scales, theme.measured, 1.5 * dpr);
      this.blocks.drawOutlines(w, scene, theme, plot, scales);
    }
    // Peak and OOM markers; their labels and the findings' are placed together.
    const labels: Label[] = [];
    drawPeakAndOoms(ctx, overview, theme, plot, scales, labels);
    const findings = drawFindings(ctx, scene.findings, theme, plot, scales, labels);
    const drawnLabels = drawLabels(ctx, labels, plot);
    ctx.restore();

    if (w) drawReleases(ctx, w, theme, plot, scales);
    drawAnnotationLanes(ctx, overview, laneCount(overview), theme, plot, scales);
    drawXAxis(ctx, overview, theme, plot, scales);
    ctx.restore();

    this.frame = { plot, overview, window: w, findingSpots: findings.spots };
    return { ms: performance.now() - started, steps: w?.stepState.length ?? 0, ...drawn, drawnFindings: findings.drawn, drawnLabels, yMax: plot.yMax };
  }

  /** What is under a point given in CSS pixels relative to the canvas. */
  hit(cssX: number, cssY: number): Hit | undefined {
    return this.frame ? hitTest(this.frame, cssX, cssY) : undefined;
  }

  /**
   * A CSS-pixel point inside block `record` (relative to the canvas) away from the peak and OOM
   * markers, with the block's height there in CSS pixels; undefined when it is not on screen.
   */
  pointOf(record: number): { x: number; y: number; height: number } | undefined {
    const w = this.scene?.window;
    return this.frame && w ? pointOfRecord(this.frame, w, record) : undefined;
  }

  /** The y range of the last frame, in bytes. */
  yRange(): { min: number; max: number } | undefined {
    return this.plot ? { min: this.plot.yMin, max: this.plot.yMax } : undefined;
  }

  /** The plot's top edge and height in CSS pixels. */
  plotRows(): { top: number; height: number } | undefined {
    return this.plot ? { top: this.plot.top / this.plot.dpr, height: this.plot.height / this.plot.dpr } : undefined;
  }

  /** Left edge and width of the plot in CSS pixels. */
  plotBox(): { left: number; width: number } {
    const dpr = window.devicePixelRatio || 1;
    const width = this.plot ? this.plot.width / this.plot.dpr : Math.max(1, this.canvas.width / dpr - LEFT - RIGHT);
    return { left: LEFT, width };
  }
}
