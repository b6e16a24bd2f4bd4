/** Moving what the timeline shows (state/navigation.ts): zoom, pan, reset and memory zoom, each saved, drawn and asked for. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { choice, MiB, overviewOf, pageUnderTest, spanOf } from '../../../../helpers/timelinePage';

/** A page showing snapshot a's 1000 events, its first span answered. */
function shown() {
  const page = pageUnderTest();
  page.receive({ type: 'snapshots', snapshots: [choice('a', [0])], activeId: 'a' });
  page.answer('overview', { overview: overviewOf() });
  const asked = page.posted.length;
  return { page, newRequests: () => page.posted.slice(asked) };
}

describe('timeline navigation', () => {
  it('does nothing before the overview is here', () => {
    const page = pageUnderTest();
    page.receive({ type: 'snapshots', snapshots: [choice('a', [0])], activeId: 'a' });
    const before = page.posted.length;
    page.navigation.zoomBy(2);
    page.navigation.panBy(0.1);
    assert.equal(page.store.data.viewport, undefined);
    assert.equal(page.posted.length, before);
  });

  it('zooms around the anchor, saves the span, draws at once and asks for it after the one in flight', () => {
    const { page, newRequests } = shown();
    const renders = page.renders();
    // [0, 1000) zoomed x4 around a quarter (x = 250): width 250, 250 stays a quarter in: [187.5, 437.5).
    page.navigation.zoomBy(4, 0.25);
    assert.deepEqual(page.store.data.viewport, { x0: 187.5, x1: 437.5 });
    assert.deepEqual([page.store.state.x0, page.store.state.x1], [187.5, 437.5]);
    assert.ok(page.renders() > renders);
    assert.deepEqual(newRequests(), [], 'the first span is still in flight');
    page.answer('span', { span: spanOf(0, 1000) });
    assert.deepEqual([page.last('span')?.request.x0, page.last('span')?.request.x1], [187.5, 437.5]);
  });

  it('pans by a share of the span, held inside the axis', () => {
    const { page } = shown();
    page.navigation.setViewport({ x0: 100, x1: 300 });
    page.navigation.panBy(-0.25);
    assert.deepEqual(page.store.data.viewport, { x0: 50, x1: 250 });
    page.navigation.panBy(-1);
    assert.deepEqual(page.store.data.viewport, { x0: 0, x1: 200 });
  });

  it('zooms memory from the range drawn, and shows everything again on reset', () => {
    const { page } = shown();
    // Drawn as the chart fits it: [0, 1.06 x 8 MiB reserved]; x2 at the top: the upper half.
    page.navigation.zoomY(2, 1);
    assert.deepEqual([page.store.state.y0, page.store.state.y1], [4 * MiB * 1.06, 8 * MiB * 1.06]);
    // Asked again, though the viewport did not move, once the span in flight is answered: its offsets sized by the new range.
    page.answer('span', { span: spanOf(0, 1000) });
    assert.equal(page.last('span')?.request.offsetQuantum, (4 * MiB * 1.06) / 400 / 2);
    page.navigation.setViewport({ x0: 10, x1: 20 });
    page.navigation.resetZoom();
    assert.deepEqual([page.store.state.y0, page.store.state.y1, page.store.state.x0, page.store.state.x1], [undefined, undefined, undefined, undefined]);
    assert.deepEqual(page.store.data.viewport, { x0: 0, x1: 1000 });
  });
});
