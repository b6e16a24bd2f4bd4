/** The UI state saved across hide/show, read back defensively (state/state.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INITIAL_STATE, restoreState } from '../../../../../webview/timeline/state/state';

describe('timeline view: saved state', () => {
  it('restores what was saved and drops what does not make sense', () => {
    assert.deepEqual(restoreState(undefined), INITIAL_STATE);
    assert.deepEqual(restoreState('junk'), INITIAL_STATE);
    const saved = { ...INITIAL_STATE, snapshotId: 's2', device: 1, axis: 'time', x0: 5, x1: 9, pinnedRecord: 12, filterFile: 'model', sortKey: 'allocBytes' };
    assert.deepEqual(restoreState(JSON.parse(JSON.stringify(saved))), saved);
    const broken = restoreState({ x0: 9, x1: 5, axis: 'sideways', sortKey: 'size', pinnedRecord: 1.5, minBytes: 'x' });
    assert.deepEqual([broken.x0, broken.x1, broken.axis, broken.sortKey, broken.pinnedRecord, broken.minBytes], [undefined, undefined, 'event', 'liveAtPeakBytes', undefined, 0]);
  });
  it('keeps the view (blocks or allocator) and the allocator view\'s moment', () => {
    assert.deepEqual([INITIAL_STATE.mode, INITIAL_STATE.moment], ['blocks', undefined]);
    const saved = restoreState(JSON.parse(JSON.stringify({ ...INITIAL_STATE, mode: 'allocator', moment: 422 })));
    assert.deepEqual([saved.mode, saved.moment], ['allocator', 422]);
    for (const [mode, moment] of [['segments', -1], [3, 1.5], [null, '4']]) {
      const broken = restoreState({ mode, moment });
      assert.deepEqual([broken.mode, broken.moment], ['blocks', undefined], JSON.stringify([mode, moment]));
    }
    assert.equal(restoreState({ moment: 0 }).moment, 0, 'state 0: before the first event');
  });
});
