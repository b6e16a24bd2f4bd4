/**
 * The main plot: a canvas drawing one level-of-detail span in layers (layers/: the y grid, the
 * merged rest, the blocks, the allocated, reserved and measured lines, the outlines of the hovered
 * and pinned blocks, the peak, OOM and finding markers, the segment releases, the annotation lanes,
 * the x axis), then the layers' labels placed together; scaled for devicePixelRatio; and hit testing
 * for hover and clicks (chartHit).
 */
import { fitToDisplay, paintBackground } from './canvas';
import type { DrawnFrame } from './chartHit';
import { hitTest, pointOfRecord } from './chartHit';
import type { Hit } from './hit';
import { gridLayer, lanesLayer, releasesLayer, xAxisLayer } from './layers/axesLayer';
import { BlocksLayer, outlinesLayer, RestLayer } from './layers/blocksLayer';
import type { ChartLayer, ChartScene, Label, LayerFrame } from './layers/layer';
import type { DrawnFinding, DrawnLabel } from './layers/markersLayer';
import { drawLabels, FindingsLayer, peakLayer } from './layers/markersLayer';
import type { Plot } from './plot';
import { BOTTOM, layoutPlot, LEFT, RIGHT, scalesOf } from './plot';
import { seriesLayer } from './layers/seriesLayer';
import type { DrawnSegments } from './layers/segmentsLayer';
import { allocatorLinesLayer, allocatorYMax, momentLayer, pieceAt, SegmentsLayer, stepAt } from './layers/segmentsLayer';
import type { Theme } from './theme';

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
  /** The allocator view's segments on screen. */
  readonly segments: DrawnSegments;
}

export class Chart {
  private readonly ctx: CanvasRenderingContext2D;
  /** The layers the frame's stats and hit testing read. */
  private readonly blocks = new BlocksLayer();
  private readonly findings = new FindingsLayer();
  /** Every layer, bottom to top. */
  private readonly layers: readonly ChartLayer[] = [
    gridLayer,
    new RestLayer(),
    this.blocks,
    seriesLayer,
    outlinesLayer,
    peakLayer,
    this.findings,
    releasesLayer,
    lanesLayer,
    xAxisLayer,
  ];
  private readonly segments = new SegmentsLayer();
  /** The allocator view's layers, bottom to top: the segments instead of the blocks, the allocator's lines, the chosen moment. */
  private readonly allocatorLayers: readonly ChartLayer[] = [
    gridLayer,
    this.segments,
    allocatorLinesLayer,
    momentLayer,
    peakLayer,
    this.findings,
    releasesLayer,
    lanesLayer,
    xAxisLayer,
  ];
  private plot: Plot | undefined;
  private scene: ChartScene | undefined;
  /** What the last frame drew, for hit testing. */
  private frame: DrawnFrame | undefined;

  constructor(readonly canvas: HTMLCanvasElement) {
    const ctx = canvas.getContext('2d', { alpha: false });
    if (!ctx) throw new Error('no 2D canvas');
    this.ctx = ctx;
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
    const w = scene.span && scene.span.axis === overview.axis.kind ? scene.span : undefined;
    const allocator = scene.mode === 'allocator';
    const plot = layoutPlot(canvas, dpr, overview, w, viewport, scene.yRange, allocator ? allocatorYMax(scene.allocator, viewport.x0, viewport.x1) : 0);
    this.plot = plot;
    const labels: Label[] = [];
    const layerFrame: LayerFrame = { ctx, scene, span: w, theme, plot, scales: scalesOf(plot), labels };

    ctx.save();
    paintBackground(ctx, theme);
    ctx.font = `${11 * dpr}px ${theme.fontFamily}`;
    ctx.textBaseline = 'middle';
    for (const layer of allocator ? this.allocatorLayers : this.layers) {
      ctx.save();
      if (layer.area === 'plot') clipToPlot(ctx, plot);
      layer.draw(layerFrame);
      ctx.restore();
    }
    clipToPlot(ctx, plot);
    const drawnLabels = drawLabels(ctx, labels, plot);
    ctx.restore();

    this.frame = { plot, overview, span: w, findingSpots: this.findings.spots };
    if (allocator) this.blocks.drawn = { rects: 0, drawnRecords: [], drawnColors: [], drawnBuckets: [] };
    else this.segments.drawn = { rects: 0, addresses: [], colors: [] };
    return {
      ms: performance.now() - started,
      steps: w?.stepState.length ?? 0,
      ...this.blocks.drawn,
      segments: this.segments.drawn,
      drawnFindings: this.findings.drawn,
      drawnLabels,
      yMax: plot.yMax,
    };
  }

  /** What is under a point given in CSS pixels relative to the canvas. */
  hit(cssX: number, cssY: number): Hit | undefined {
    if (!this.frame) return undefined;
    const hit = hitTest(this.frame, cssX, cssY);
    if (this.scene?.mode !== 'allocator') return hit;
    // The allocator view: the marks around the plot as in the block view; in the plot, a segment or a step.
    if (hit && hit.kind !== 'rest' && hit.kind !== 'reserved' && hit.kind !== 'peak' && hit.kind !== 'block') return hit;
    const w = this.scene.allocator;
    const plot = this.frame.plot;
    const x = cssX * plot.dpr;
    const y = cssY * plot.dpr;
    if (!w || x < plot.left || x > plot.left + plot.width || y < plot.top || y > plot.top + plot.height) return hit;
    const step = stepAt(w, plot.x0 + ((x - plot.left) / plot.width) * (plot.x1 - plot.x0));
    if (step < 0) return undefined;
    const bytes = plot.yMin + ((plot.top + plot.height - y) / plot.height) * (plot.yMax - plot.yMin);
    const index = pieceAt(w, step, bytes);
    return index >= 0 ? { kind: 'segment', index, step } : { kind: 'allocatorStep', step };
  }

  /**
   * A CSS-pixel point inside block `record` (relative to the canvas) away from the peak and OOM
   * markers, with the block's height there in CSS pixels; undefined when it is not on screen.
   */
  pointOf(record: number): { x: number; y: number; height: number } | undefined {
    const w = this.scene?.span;
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

function clipToPlot(ctx: CanvasRenderingContext2D, { left, top, width, height }: Plot): void {
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
}
