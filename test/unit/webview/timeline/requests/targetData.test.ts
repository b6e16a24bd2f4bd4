/**
 * The timeline page's requests for the target it shows (requests/targetData.ts with the span
 * summaries and block details), in Node with the parts wired as main.ts wires them: what is asked
 * when, where each answer goes, and which answers are dropped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LineRow } from '../../../../../src/protocol/timeline';
import type { LineBlocks } from '../../../../../src/engine/timeline/types';
import { choice, MiB, overviewOf, pageUnderTest, spanOf } from '../../../../helpers/timelinePage';

const row = (id: number, line: number, live: number): LineRow => ({ id, file: '/p/model.py', line, color: 0, allocCount: 1, allocBytes: live, peakWhileAllocatingBytes: live, liveAtPeakBytes: live, inclusiveLiveAtPeakBytes: live, freedBytes: 0, inclusiveAllocBytes: live, inclusivePeakWhileAllocatingBytes: live, reservedGrowthBytes: 0, deviceCallCount: 0 });

describe('timeline page: the target\'s requests', () => {
  it('shows the active snapshot: tells the host, then asks for the overview, the findings and the lines, in that order', () => {
    const page = pageUnderTest();
    page.receive({ type: 'snapshots', snapshots: [choice('a', [0]), choice('b', [1, 3])], activeId: 'b' });
    const target = { snapshotId: 'b', device: 1 };
    assert.deepEqual(page.posted, [
      { type: 'showing', target },
      { type: 'overview', target, axis: 'event', columns: 280, requestId: 1 },
      { type: 'findings', target, axis: 'event', requestId: 2 },
      { type: 'lines', target, requestId: 3 },
    ]);
    assert.deepEqual(page.store.data.target, target);
    assert.ok(page.screen.includes('showEmpty(false)'));
    assert.ok(page.screen.includes('setStatus("Loading the timeline…")'));
  });

  it('fits the whole axis once the overview is here, then asks for that span at the plot\'s width', () => {
    const page = pageUnderTest();
    page.receive({ type: 'snapshots', snapshots: [choice('a', [0])], activeId: 'a' });
    page.answer('overview', { overview: overviewOf() });
    assert.deepEqual(page.store.data.viewport, { x0: 0, x1: 1000 });
    const w = page.last('span')!;
    assert.deepEqual({ ...w.request, offsetQuantum: undefined }, { axis: 'event', x0: 0, x1: 1000, columns: 300, budget: 20_000, offsetQuantum: undefined, focusLine: undefined });
    // No y range set: the headroom is 1.06 x the overview's highest (8 MiB reserved), over 400 device pixels, halved.
    assert.equal(w.request.offsetQuantum, (8 * MiB * 1.06) / 400 / 2);
    page.answer('span', { span: spanOf(0, 1000) });
    assert.equal(page.store.data.span?.x1, 1000);
    assert.equal(page.screen.at(-1), 'windowShown()');
  });

  it('restores the saved zoom and pinned block once the overview is here', () => {
    const page = pageUnderTest({ snapshotId: 'a', device: 0, seenActiveId: 'a', x0: 100, x1: 300, pinnedRecord: 42 });
    page.receive({ type: 'snapshots', snapshots: [choice('a', [0])], activeId: 'a' });
    page.answer('overview', { overview: overviewOf() });
    assert.deepEqual(page.store.data.viewport, { x0: 100, x1: 300 });
    assert.deepEqual(page.last('block'), { type: 'block', target: { snapshotId: 'a', device: 0 }, record: 42, requestId: 4 });
    assert.deepEqual([page.last('span')?.request.x0, page.last('span')?.request.x1], [100, 300]);
  });

  it('colours the ten largest lines apart and keeps the rows for the table', () => {
    const page = pageUnderTest();
    page.receive({ type: 'snapshots', snapshots: [choice('a', [0])], activeId: 'a' });
    // Two lines that hash to the same colour (5): the larger keeps it, the other takes the next free one.
    page.answer('lines', { rows: [{ ...row(1, 7, 10), color: 5 }, { ...row(2, 9, 20), color: 5 }] });
    assert.deepEqual(page.store.data.rows.map((r) => [r.id, r.color]), [[1, 6], [2, 5]]);
    assert.ok(page.screen.includes('renderTable()'));
  });

  it('drops an answer for a device no longer shown, and asks again for the one shown now', () => {
    const page = pageUnderTest();
    page.receive({ type: 'snapshots', snapshots: [choice('a', [0, 1])], activeId: 'a' });
    const oldOverview = page.last('overview')!;
    page.actions.chooseDevice(1);
    assert.deepEqual(page.store.data.target, { snapshotId: 'a', device: 1 });
    page.requests.settle({ type: 'overview', requestId: oldOverview.requestId, overview: overviewOf() });
    assert.equal(page.store.data.overview, undefined, 'the first device\'s overview is not shown for the second');
    assert.deepEqual(page.last('overview')?.target, { snapshotId: 'a', device: 1 });
  });

  it('shows an empty page with nothing loaded, and says so for a snapshot that holds no device', () => {
    const empty = pageUnderTest();
    empty.receive({ type: 'snapshots', snapshots: [], activeId: undefined });
    assert.deepEqual(empty.posted, []);
    assert.deepEqual(empty.screen, ['showEmpty(true)']);
    const none = pageUnderTest();
    none.receive({ type: 'snapshots', snapshots: [choice('z', [])], activeId: 'z' });
    assert.deepEqual(none.posted, [], 'nothing to ask about');
    assert.ok(none.screen.includes('showDeviceless(true)'));
    assert.ok(none.screen.includes('setStatus("This snapshot holds no memory: no trace events and no segments.")'));
  });

  it('shows a snapshot without times on the event axis, whatever axis was saved', () => {
    const page = pageUnderTest({ axis: 'time' });
    page.receive({ type: 'snapshots', snapshots: [choice('old', [0], false)], activeId: 'old' });
    assert.equal(page.store.state.axis, 'event');
    assert.equal(page.last('overview')?.axis, 'event');
  });

  it('shows a line the host names on another snapshot once its overview is here: selected, first block pinned, zoomed to it', () => {
    const page = pageUnderTest();
    page.receive({ type: 'snapshots', snapshots: [choice('a', [0]), choice('b', [0])], activeId: 'a' });
    const blocks: LineBlocks = { lineId: 4, line: { id: 4, file: '/p/model.py', line: 9, color: 0 }, blocks: [{ record: 77, size: MiB, firstState: 30, lastState: 60 }] };
    page.receive({ type: 'showLine', target: { snapshotId: 'b', device: 0 }, blocks });
    assert.deepEqual(page.store.data.target, { snapshotId: 'b', device: 0 });
    assert.equal(page.store.state.focusLine, undefined, 'not before the overview');
    page.answer('overview', { overview: overviewOf() });
    assert.equal(page.store.state.focusLine, 4);
    assert.equal(page.store.state.pinnedRecord, 77);
    assert.equal(page.last('block')?.record, 77);
    assert.deepEqual(page.last('span')?.request.states, [30, 60]);
    // The host chose the x range that fits those states: the viewport follows it.
    page.answer('span', { span: spanOf(25, 65) });
    assert.deepEqual(page.store.data.viewport, { x0: 25, x1: 65 });
  });

  it('keeps the same states in view on the other axis', () => {
    const page = pageUnderTest();
    page.receive({ type: 'snapshots', snapshots: [choice('a', [0])], activeId: 'a' });
    page.answer('overview', { overview: overviewOf() });
    page.navigation.setViewport({ x0: 200, x1: 400 });
    page.answer('span', { span: spanOf(200, 400, 'event', [201, 400]) });
    page.actions.switchAxis('time');
    assert.deepEqual(page.last('overview')?.axis, 'time');
    assert.deepEqual(page.last('findings')?.axis, 'time');
    assert.deepEqual([page.store.state.x0, page.store.state.x1], [undefined, undefined]);
    page.answer('overview', { overview: overviewOf('time') });
    assert.deepEqual(page.last('span')?.request, { axis: 'time', states: [201, 400], statesMargin: 0, columns: 300, budget: 20_000, offsetQuantum: page.last('span')?.request.offsetQuantum, focusLine: undefined });
  });

  it('asks for the stack filter\'s lines, and keeps only the answer to the text still typed', () => {
    const page = pageUnderTest();
    page.receive({ type: 'snapshots', snapshots: [choice('a', [0])], activeId: 'a' });
    page.actions.filterStack('backward');
    page.actions.filterStackSettled();
    assert.equal(page.last('stackFilter')?.text, 'backward');
    page.actions.filterStack('backwards');
    page.answer('stackFilter', { lineIds: [3] });
    assert.equal(page.store.data.stackIds, undefined, 'typed on since');
    page.actions.filterStackSettled();
    page.answer('stackFilter', { lineIds: [3, 5] });
    assert.deepEqual(page.store.data.stackIds, new Set([3, 5]));
    page.actions.filterStack('  ');
    page.actions.filterStackSettled();
    assert.equal(page.store.data.stackIds, undefined, 'no text: no filter');
  });

  it('says so when a line allocated nothing on this device', () => {
    const page = pageUnderTest();
    page.receive({ type: 'snapshots', snapshots: [choice('a', [0])], activeId: 'a' });
    page.actions.zoom(row(1, 7, 10));
    assert.deepEqual(page.last('lineBlocks'), { type: 'lineBlocks', target: { snapshotId: 'a', device: 0 }, file: '/p/model.py', line: 7, requestId: 4 });
    page.answer('lineBlocks', { blocks: undefined });
    assert.equal(page.screen.at(-1), 'setStatus("That line allocated nothing on this device.")');
  });
});
