/** What the timeline page holds (state/store.ts): the saved state, the target's data, which answers are still wanted, the viewport. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INITIAL_STATE } from '../../../../../webview/timeline/state/state';
import type { ViewState } from '../../../../../webview/timeline/state/state';
import { PageStore } from '../../../../../webview/timeline/state/store';
import { overviewOf, spanOf } from '../../../../helpers/timelinePage';

function store(saved?: unknown): { store: PageStore; saved: ViewState[] } {
  const kept: ViewState[] = [];
  return { store: new PageStore(saved, (s) => kept.push(s)), saved: kept };
}

describe('timeline page store', () => {
  it('starts from the saved state, checked, and keeps every change, not an unchanged one', () => {
    const s = store({ axis: 'time', focusLine: 3, x0: 9, x1: 5 });
    assert.deepEqual(s.store.state, { ...INITIAL_STATE, axis: 'time', focusLine: 3 });
    s.store.apply(s.store.state);
    assert.equal(s.saved.length, 0);
    s.store.update({ filterFile: 'model' });
    assert.deepEqual(s.saved, [{ ...INITIAL_STATE, axis: 'time', focusLine: 3, filterFile: 'model' }]);
  });

  it('wants an answer only while its target, and its axis when named, are the ones shown', () => {
    const { store: st } = store();
    const a = { snapshotId: 'a', device: 0 };
    st.forgetTarget(a);
    const forA = st.showing(a);
    const forAEvents = st.showing(a, 'event');
    assert.equal(forA(), true);
    assert.equal(forAEvents(), true);
    st.update({ axis: 'time' });
    assert.equal(forA(), true, 'no axis named: any axis');
    assert.equal(forAEvents(), false);
    st.forgetTarget({ snapshotId: 'a', device: 1 });
    assert.equal(forA(), false, 'another device of the same snapshot');
  });

  it('forgets the axis data on a new axis, and everything but the snapshots on a new target', () => {
    const { store: st } = store();
    st.set({ snapshots: [], target: { snapshotId: 'a', device: 0 }, overview: overviewOf(), span: spanOf(0, 10), rows: [], stackIds: new Set([1]) });
    st.forgetAxis();
    assert.deepEqual([st.data.overview, st.data.span, st.data.viewport, st.data.findings], [undefined, undefined, undefined, []]);
    assert.deepEqual(st.data.stackIds, new Set([1]), 'the stack filter holds on every axis');
    st.forgetTarget({ snapshotId: 'b', device: 2 });
    assert.deepEqual(st.data.target, { snapshotId: 'b', device: 2 });
    assert.equal(st.data.stackIds, undefined);
  });

  it('moves the viewport only once the overview is here, inside the axis, saving it unless it shows the whole axis', () => {
    const { store: st } = store();
    assert.equal(st.moveViewport({ x0: 1, x1: 5 }), false);
    assert.equal(st.data.viewport, undefined);
    st.set({ overview: overviewOf() });
    // [900, 1100) passes the end of [0, 1000]: moved back to [800, 1000).
    assert.equal(st.moveViewport({ x0: 900, x1: 1100 }), true);
    assert.deepEqual(st.data.viewport, { x0: 800, x1: 1000 });
    assert.deepEqual([st.state.x0, st.state.x1], [800, 1000]);
    // Narrower than 4 events: widened to 4.
    st.moveViewport({ x0: 10, x1: 11 });
    assert.deepEqual(st.data.viewport, { x0: 10, x1: 14 });
    st.moveViewport({ x0: -5, x1: 2000 });
    assert.deepEqual(st.data.viewport, { x0: 0, x1: 1000 });
    assert.deepEqual([st.state.x0, st.state.x1], [undefined, undefined], 'the whole axis is not saved as a zoom');
  });

  it('keeps a time span at least four states wide', () => {
    const { store: st } = store();
    st.set({ overview: overviewOf('time') });
    // 1e9 µs over 1001 states: four states are about 4e6 µs.
    assert.deepEqual(st.domain(), { start: 5000, end: 5000 + 1e9, minWidth: (1e9 / 1001) * 4 });
  });

  it('gives the y range the user set, else none (fit to the span)', () => {
    const { store: st } = store();
    assert.equal(st.yRange(), undefined);
    st.update({ y0: 2, y1: 8 });
    assert.deepEqual(st.yRange(), { min: 2, max: 8 });
  });
});
