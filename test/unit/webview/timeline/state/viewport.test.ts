/** The x span's zoom and pan, the memory (y) zoom, and the headroom the span requests size their offset quantum by (state/viewport.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TimelineOverview } from '../../../../../src/engine/timeline/types';
import { clampViewport, pan, zoom } from '../../../../../webview/timeline/state/viewport';
import { estimateYMax, zoomYRange } from '../../../../../webview/timeline/state/viewport';

describe('timeline view: zoom and pan', () => {
  const domain = { start: 0, end: 1000, minWidth: 4 };
  it('zooms around the anchor and keeps it in place', () => {
    // Span [200, 600), anchor at a quarter (x = 300); zoom x2 -> width 200, 300 stays at a quarter: [250, 450).
    assert.deepEqual(zoom({ x0: 200, x1: 600 }, 2, 0.25, domain), { x0: 250, x1: 450 });
  });
  it('stays inside the domain, moving the span rather than shrinking it', () => {
    // Zooming out x4 from [0, 200) around the middle wants [-300, 500): moved to [0, 800).
    assert.deepEqual(zoom({ x0: 0, x1: 200 }, 0.25, 0.5, domain), { x0: 0, x1: 800 });
    // Panning right by half of [800, 1000) would pass the end: held at [800, 1000).
    assert.deepEqual(pan({ x0: 800, x1: 1000 }, 0.5, domain), { x0: 800, x1: 1000 });
    assert.deepEqual(pan({ x0: 100, x1: 300 }, -0.25, domain), { x0: 50, x1: 250 });
  });
  it('never zooms narrower than the minimum width nor wider than the domain', () => {
    assert.deepEqual(zoom({ x0: 10, x1: 14 }, 10, 0.5, domain), { x0: 10, x1: 14 });
    assert.deepEqual(clampViewport({ x0: -50, x1: 5000 }, domain), { x0: 0, x1: 1000 });
  });
});

describe('timeline memory zoom', () => {
  const GiB = 2 ** 30;
  it('keeps the bytes at the anchor in place', () => {
    // [0, 8 GiB] zoomed x2 at the top: [4, 8] GiB; the top stays the top.
    assert.deepEqual(zoomYRange({ min: 0, max: 8 * GiB }, 2, 1, 8 * GiB), { min: 4 * GiB, max: 8 * GiB });
    // At the middle of [0, 8]: [2, 6].
    assert.deepEqual(zoomYRange({ min: 0, max: 8 * GiB }, 2, 0.5, 8 * GiB), { min: 2 * GiB, max: 6 * GiB });
  });
  it('fits the span again once the whole range shows, and never shows less than 1 KiB', () => {
    assert.equal(zoomYRange({ min: 4 * GiB, max: 8 * GiB }, 0.5, 1, 8 * GiB), undefined);
    assert.deepEqual(zoomYRange({ min: 0, max: 2048 }, 1000, 0, 8 * GiB), { min: 0, max: 1024 });
  });
  it('moves a range past the top back down to the highest memory', () => {
    // Zooming out at the top of [6, 8] GiB with 8 GiB fitted: span 4 GiB, kept inside [0, 8].
    assert.deepEqual(zoomYRange({ min: 6 * GiB, max: 8 * GiB }, 0.5, 0.5, 8 * GiB), { min: 4 * GiB, max: 8 * GiB });
  });
});

describe('timeline offset quantum headroom', () => {
  it('is 1.06 x the highest allocated or reserved bytes of the overview in the viewport', () => {
    const summary = { stepX: new Float64Array([0, 10, 20, 30]), stepState: new Int32Array(3), envelope: new Float64Array([5, 50, 7]), reserved: new Float64Array([6, 40, 100]) };
    const o = { summary } as unknown as TimelineOverview;
    assert.equal(estimateYMax(o, { x0: 0, x1: 20 }), 50 * 1.06);
    assert.equal(estimateYMax(o, undefined), 100 * 1.06);
    assert.equal(estimateYMax(undefined, undefined), 0);
  });
});
