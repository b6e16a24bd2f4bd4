/**
 * The allocator view's requests (requests/allocatorData.ts), in Node with the parts wired as main.ts
 * wires them: nothing is asked of the allocator in the block view; in the allocator view, the
 * allocator's span follows each block span (same range and columns), the facts are asked once per
 * target, a click chooses a moment and asks its segment map, Escape forgets it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SegmentMapView } from '../../../../../src/engine/session/allocatorStudy';
import type { AllocatorSpan } from '../../../../../src/engine/timeline/allocatorSpan';
import type { AllocatorFacts } from '../../../../../src/protocol/timeline';
import { momentOfHit } from '../../../../../webview/timeline/controls/pageActions';
import { choice, MiB, overviewOf, pageUnderTest, spanOf } from '../../../../helpers/timelinePage';

/** An allocator span over [x0, x1) with two steps (states 1 and 2) and one 8 MiB segment. */
function allocatorSpanOf(x0: number, x1: number, columns = 300): AllocatorSpan {
  return {
    axis: 'event',
    x0,
    x1,
    columns,
    stepX: new Float64Array([x0, (x0 + x1) / 2, x1]),
    stepState: new Int32Array([1, 2]),
    stepFirst: new Int32Array([1, 2]),
    stepLast: new Int32Array([1, 2]),
    reserved: new Float64Array([8 * MiB, 8 * MiB]),
    allocated: new Float64Array([4 * MiB, 4 * MiB]),
    unallocated: new Float64Array([4 * MiB, 4 * MiB]),
    largestFree: new Float64Array([4 * MiB, 4 * MiB]),
    pieceAddress: new Float64Array([0x1000]),
    pieceSize: new Float64Array([8 * MiB]),
    pieceExpandable: new Uint8Array([0]),
    pieceFromEvent: new Int32Array([0]),
    pieceToEvent: new Int32Array([-1]),
    pieceLine: new Int32Array([1]),
    pieceFirstStep: new Int32Array([0]),
    pieceLastStep: new Int32Array([1]),
    pieceRunStart: new Int32Array([0, 1]),
    runStep: new Int32Array([0]),
    runOffset: new Float64Array([0]),
    lines: [{ id: 1, file: '/home/u/proj/model.py', line: 7, color: 0 }],
    piecesOmitted: 0,
    computeMs: 0,
  };
}

const facts = { check: { device: 0 }, ooms: [] } as unknown as AllocatorFacts;
const mapAfter = (event: number) => ({ event, device: 0, segments: [], lines: [] }) as unknown as SegmentMapView;
const target = { snapshotId: 'a', device: 0 };

/** A page showing snapshot a, its overview and first span answered. */
function shown(saved?: unknown) {
  const page = pageUnderTest(saved);
  page.receive({ type: 'snapshots', snapshots: [choice('a', [0])], activeId: 'a' });
  page.answer('overview', { overview: overviewOf() });
  return page;
}

describe('timeline page: the allocator view\'s requests', () => {
  it('the block view asks nothing of the allocator', () => {
    const page = shown();
    page.answer('span', { span: spanOf(0, 1000) });
    assert.deepEqual(page.posted.filter((m) => m.type.startsWith('allocator') || m.type === 'segmentMap'), []);
    assert.equal(page.last('span')?.request.budget, 20_000);
  });

  it('switching to the allocator: the block span again without blocks, the facts, then the allocator span over the block span\'s range', () => {
    const page = shown();
    page.answer('span', { span: spanOf(0, 1000) });
    page.actions.switchMode('allocator');
    assert.equal(page.store.state.mode, 'allocator');
    assert.ok(page.screen.includes('showMode()'));
    assert.equal(page.last('span')?.request.budget, 0, 'no blocks one by one');
    assert.deepEqual(page.last('allocatorFacts'), { type: 'allocatorFacts', target, requestId: page.last('allocatorFacts')!.requestId });
    // The span we had is for the same range: its allocator span is asked for at once, with the same columns.
    const asked = page.last('allocatorSpan')!;
    assert.deepEqual({ ...asked.request, offsetQuantum: undefined }, { axis: 'event', x0: 0, x1: 1000, columns: 300, budget: 2000, offsetQuantum: undefined });
    // Half a device pixel of 1.06 x the span's reserved (8 MiB) over the 400-pixel plot.
    assert.equal(asked.request.offsetQuantum, (8 * MiB * 1.06) / 400 / 2);
    page.answer('allocatorSpan', { span: allocatorSpanOf(0, 1000) });
    page.answer('allocatorFacts', { facts });
    assert.equal(page.store.data.allocatorSpan?.x1, 1000);
    assert.equal(page.store.data.allocatorFacts, facts);
    // The block span arrives again (no blocks): the allocator span for it is here already, nothing more is asked.
    const before = page.posted.length;
    page.answer('span', { span: spanOf(0, 1000) });
    assert.equal(page.posted.length, before);
  });

  it('one allocator span in flight: the latest block span\'s is asked for when it answers', () => {
    const page = shown({ mode: 'allocator' });
    page.answer('span', { span: spanOf(0, 1000) });
    const first = page.last('allocatorSpan')!;
    page.navigation.setViewport({ x0: 100, x1: 600 });
    page.answer('span', { span: spanOf(100, 600) });
    assert.equal(page.last('allocatorSpan'), first, 'still waiting for the first');
    page.answer('allocatorSpan', { span: allocatorSpanOf(0, 1000) });
    assert.deepEqual([page.last('allocatorSpan')!.request.x0, page.last('allocatorSpan')!.request.x1], [100, 600]);
    // The facts were asked once for this target, however many spans.
    assert.equal(page.posted.filter((m) => m.type === 'allocatorFacts').length, 1);
  });

  it('a click chooses the moment of the step under it (an OOM\'s state on its marker); its map is asked for; Escape forgets it', () => {
    const page = shown({ mode: 'allocator' });
    page.answer('span', { span: spanOf(0, 1000) });
    page.answer('allocatorSpan', { span: allocatorSpanOf(0, 1000) });
    page.actions.click({ kind: 'allocatorStep', step: 1 });
    assert.equal(page.store.state.moment, 2);
    assert.equal(page.saved.at(-1)?.moment, 2, 'kept across hide and show');
    assert.deepEqual(page.last('segmentMap'), { type: 'segmentMap', target, state: 2, requestId: page.last('segmentMap')!.requestId });
    page.answer('segmentMap', { map: mapAfter(1) });
    assert.equal(page.store.data.segmentMap?.event, 1);
    assert.ok(page.screen.includes('segmentMapShown()'));
    // A map that arrives for a moment no longer chosen is dropped.
    page.actions.click({ kind: 'segment', index: 0, step: 0 });
    assert.equal(page.store.state.moment, 1);
    page.actions.chooseMoment(2);
    page.answer('segmentMap', { map: mapAfter(1) });
    assert.equal(page.store.data.segmentMap?.event, 1, 'the map of moment 2 is here already: not asked again');
    page.actions.dismiss();
    assert.equal(page.store.state.moment, undefined);
    assert.equal(page.store.data.segmentMap, undefined);
    // Off the steps a click chooses nothing; the block view's click pins instead.
    assert.equal(momentOfHit(undefined, page.store), undefined);
    assert.equal(momentOfHit({ kind: 'peak' }, page.store), undefined);
  });

  it('the OOM marker\'s state; another target forgets the moment', () => {
    const page = pageUnderTest({ mode: 'allocator', snapshotId: 'a', device: 0, seenActiveId: 'a', moment: 5 });
    page.receive({ type: 'snapshots', snapshots: [choice('a', [0, 1])], activeId: 'a' });
    // The saved moment's map is asked for as soon as the allocator view shows the target.
    assert.equal(page.last('segmentMap')?.state, 5);
    page.answer('overview', { overview: { ...overviewOf(), ooms: [{ state: 421, x: 421, requestedBytes: MiB, deviceFreeBytes: 0, line: undefined }] } });
    assert.equal(momentOfHit({ kind: 'oom', index: 0 }, page.store), 421);
    page.actions.chooseDevice(1);
    assert.equal(page.store.state.moment, undefined);
    assert.equal(page.store.data.allocatorFacts, undefined);
    assert.equal(page.last('allocatorFacts')?.target.device, 1);
  });

  it('in the block view a click pins the block under it and Escape unpins', () => {
    const page = shown();
    page.actions.click({ kind: 'block', index: 0, record: 10, step: 0 });
    assert.equal(page.store.state.pinnedRecord, 10);
    page.actions.dismiss();
    assert.equal(page.store.state.pinnedRecord, undefined);
    assert.equal(page.store.state.moment, undefined);
  });
});
