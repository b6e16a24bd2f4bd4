/** The plot's keys as the page's actions (controls/actions.ts keyAction). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChartActions } from '../../../../../webview/timeline/controls/actions';
import { keyAction, PAN_STEP, ZOOM_STEP } from '../../../../../webview/timeline/controls/actions';

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
    click: record('click'),
    dismiss: record('dismiss'),
    hover: record('hover'),
    leave: record('leave'),
    openBlock: record('openBlock'),
    goToSource: record('goToSource'),
  };
  keyAction(key, shift)?.(actions);
  return calls;
}

describe('timeline keys', () => {
  it('zoom, pan (Shift: half a span), memory zoom towards the top, reset, open, unpin', () => {
    assert.deepEqual(actionsOf('+'), [`zoomBy(${ZOOM_STEP})`]);
    assert.deepEqual(actionsOf('='), [`zoomBy(${ZOOM_STEP})`]);
    assert.deepEqual(actionsOf('-'), [`zoomBy(${1 / ZOOM_STEP})`]);
    assert.deepEqual(actionsOf('ArrowLeft'), [`panBy(${-PAN_STEP})`]);
    assert.deepEqual(actionsOf('ArrowRight', true), ['panBy(0.5)']);
    assert.deepEqual(actionsOf('ArrowUp'), [`zoomY(${ZOOM_STEP}, 1)`]);
    assert.deepEqual(actionsOf('ArrowDown'), [`zoomY(${1 / ZOOM_STEP}, 1)`]);
    assert.deepEqual(actionsOf('0'), ['resetZoom()']);
    assert.deepEqual(actionsOf('Enter'), ['goToSource()']);
    // Escape dismisses: unpins the block (the block view) or forgets the moment (the allocator view), see pageActions.test.ts.
    assert.deepEqual(actionsOf('Escape'), ['dismiss()']);
    assert.equal(keyAction('a', false), undefined);
  });
});
