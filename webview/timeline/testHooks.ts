/**
 * Hooks for the browser tests, installed only when the page was started with
 * `__VRAM_LENS_TEST_HOOKS__` set (the tests set it before the bundle runs; VS Code never does).
 */
import type { AllocatorFacts, AllocatorSpan, SegmentMapView, TimelineSpan } from '../../src/protocol/timeline';
import type { DrawnMap } from './drawing/segmentMap';
import type { DrawStats } from './drawing/chart';
import type { ViewState } from './state/state';
import type { Viewport } from './state/viewport';

/** What the hooks read of the page (main.ts gives it). */
export interface InspectablePage {
  /** Draws now; what the chart drew. */
  draw(): DrawStats | undefined;
  inspect(): { state: ViewState; status: string; span: TimelineSpan | undefined; viewport: Viewport | undefined };
  pointOf(record: number): { x: number; y: number; height: number } | undefined;
  /** The allocator view: what the store holds, what the map drew, and the panel's text. */
  inspectAllocator(): {
    span: AllocatorSpan | undefined;
    facts: AllocatorFacts | undefined;
    map: SegmentMapView | undefined;
    drawnMap: DrawnMap | undefined;
    check: string;
    figures: string;
    oom: string;
  };
  /** A CSS-pixel point of the segment map canvas inside that block of that segment. */
  segmentMapPoint(segment: number, block: number): { x: number; y: number } | undefined;
}

export interface TimelineTestHooks {
  /** Draws now and returns what was drawn, with the time it took. */
  drawNow(): unknown;
  inspect(): unknown;
  /** A CSS-pixel point (relative to the chart canvas) inside the block of that record. */
  pointOf(record: number): { x: number; y: number; height: number } | undefined;
  inspectAllocator(): unknown;
  segmentMapPoint(segment: number, block: number): { x: number; y: number } | undefined;
  /** RGBA of the chart canvas at a CSS-pixel point. */
  pixel(x: number, y: number): number[];
}

export function installTestHooks(page: InspectablePage): void {
  const g = globalThis as { __VRAM_LENS_TEST_HOOKS__?: boolean; __vramLensTimeline?: TimelineTestHooks };
  if (!g.__VRAM_LENS_TEST_HOOKS__) return;
  const canvas = document.getElementById('chart') as HTMLCanvasElement;
  g.__vramLensTimeline = {
    drawNow: () => page.draw(),
    inspect: () => page.inspect(),
    pointOf: (record) => page.pointOf(record),
    inspectAllocator: () => page.inspectAllocator(),
    segmentMapPoint: (segment, block) => page.segmentMapPoint(segment, block),
    pixel: (x, y) => {
      const dpr = window.devicePixelRatio || 1;
      const data = canvas.getContext('2d')?.getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data;
      return data ? Array.from(data) : [];
    },
  };
}
