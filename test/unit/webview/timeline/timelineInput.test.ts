/**
 * The DOM-free pieces the timeline page's input and requests use, in Node: the plot's keys
 * (chartActions' keyAction), zooming memory (viewport's zoomYRange), which lines the chart
 * highlights (lineFilter's highlightedLines) and the headroom the window requests size their
 * offset quantum by (viewport's estimateYMax).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TimelineOverview } from '../../../../src/engine/timeline/types';
import type { LineRow } from '../../../../src/protocol/timeline';
import type { ChartActions } from '../../../../webview/timeline/chartActions';
import { keyAction, PAN_STEP, ZOOM_STEP } from '../../../../webview/timeline/chartActions';
import { highlightedLines } from '../../../../webview/timeline/lineFilter';
import { estimateYMax, zoomYRange } from '../../../../webview/timeline/viewport';

/** The actions a key led to, as strings. */
function actionsOf(key: string, shift = false): string[] {
  const calls: string[] = [];
  const record =
    (name: string) =>
    (...args: unknown[]) => {
      calls.push(`${name}(${args.map((a) => String(a)).join(', ')})`);
    };
  const actions: ChartActions = {
    currentViewport: () => undefined,
    setViewport: record('setViewport'),
    zoomBy: record('zoomBy'),
    panBy: record('panBy'),
    zoomY: record('zoomY'),
    resetZoom: record('resetZoom'),
    pin: record('pin'),
    hover: record('hover'),
    leave: record('leave'),
    openBlock: record('openBlock'),
    goToSource: record('goToSource'),
  };
  keyAction(key, shift)?.(actions);
  return calls;
}

describe('timeline keys', () => {
  it('zoom, pan (Shift: half a window), memory zoom towards the top, reset, open, unpin', () => {
    assert.deepEqual(actionsOf('+'), [`zoomBy(${ZOOM_STEP})`]);
    assert.deepEqual(actionsOf('='), [`zoomBy(${ZOOM_STEP})`]);
    assert.deepEqual(actionsOf('-'), [`zoomBy(${1 / ZOOM_STEP})`]);
    assert.deepEqual(actionsOf('ArrowLeft'), [`panBy(${-PAN_STEP})`]);
    assert.deepEqual(actionsOf('ArrowRight', true), ['panBy(0.5)']);
    assert.deepEqual(actionsOf('ArrowUp'), [`zoomY(${ZOOM_STEP}, 1)`]);
    assert.deepEqual(actionsOf('ArrowDown'), [`zoomY(${1 / ZOOM_STEP}, 1)`]);
    assert.deepEqual(actionsOf('0'), ['resetZoom()']);
    assert.deepEqual(actionsOf('Enter'), ['goToSource()']);
    assert.deepEqual(actionsOf('Escape'), ['pin(undefined)']);
    assert.equal(keyAction('a', false), undefined);
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
  it('fits the window again once the whole range shows, and never shows less than 1 KiB', () => {
    assert.equal(zoomYRange({ min: 4 * GiB, max: 8 * GiB }, 0.5, 1, 8 * GiB), undefined);
    assert.deepEqual(zoomYRange({ min: 0, max: 2048 }, 1000, 0, 8 * GiB), { min: 0, max: 1024 });
  });
  it('moves a range past the top back down to the highest memory', () => {
    // Zooming out at the top of [6, 8] GiB with 8 GiB fitted: span 4 GiB, kept inside [0, 8].
    assert.deepEqual(zoomYRange({ min: 6 * GiB, max: 8 * GiB }, 0.5, 0.5, 8 * GiB), { min: 4 * GiB, max: 8 * GiB });
  });
});

describe('timeline highlight', () => {
  const row = (id: number, file: string): LineRow => ({ id, file, line: id, color: 0, allocCount: 1, allocBytes: 1, peakBytes: 1, liveAtPeakBytes: 1, inclusiveLiveAtPeakBytes: 1 });
  const rows = [row(1, '/p/model.py'), row(2, '/p/train.py'), row(3, '/p/MODEL_utils.py')];
  it('every line with no filter; the focused line alone; else the lines the file and stack filters pass', () => {
    assert.equal(highlightedLines(rows, '  ', undefined, undefined), undefined);
    assert.deepEqual([...highlightedLines(rows, 'model', undefined, 2)!], [2]);
    assert.deepEqual([...highlightedLines(rows, ' Model ', undefined, undefined)!].sort(), [1, 3]);
    assert.deepEqual([...highlightedLines(rows, 'model', new Set([3]), undefined)!], [3]);
    assert.deepEqual([...highlightedLines(rows, '', new Set([2]), undefined)!], [2]);
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
