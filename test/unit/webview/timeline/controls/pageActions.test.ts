/** What each input does on the timeline page (controls/pageActions.ts), with the parts wired as main.ts wires them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BlockDetail } from '../../../../../src/engine/timeline/types';
import type { LineRow } from '../../../../../src/protocol/timeline';
import { choice, MiB, overviewOf, pageUnderTest, spanOf } from '../../../../helpers/timelinePage';

const row: LineRow = { id: 1, file: '/p/model.py', line: 7, color: 0, allocCount: 1, allocBytes: 1, peakWhileAllocatingBytes: 1, liveAtPeakBytes: 1, inclusiveLiveAtPeakBytes: 1, freedBytes: 0, inclusiveAllocBytes: 1, inclusivePeakWhileAllocatingBytes: 1, reservedGrowthBytes: 0, deviceCallCount: 0 };

function shown(hit?: Parameters<typeof pageUnderTest>[1]) {
  const page = pageUnderTest(undefined, hit);
  page.receive({ type: 'snapshots', snapshots: [choice('a', [0])], activeId: 'a' });
  page.answer('overview', { overview: overviewOf() });
  page.answer('span', { span: spanOf(0, 1000) });
  return page;
}

const detail = (record: number, line?: { file: string; line: number }): BlockDetail => ({
  record,
  size: MiB,
  address: 0,
  firstState: 1,
  lastState: 2,
  allocEvent: 0,
  freeEvent: -1,
  allocTimeUs: undefined,
  freeTimeUs: undefined,
  line: line ? { id: 9, color: 0, ...line } : undefined,
  frames: [],
  totalFrames: 0,
  hiddenFrames: 0,
});

describe('timeline page actions', () => {
  it('opens a line with the one openLine message: a table row, a frame, a pinned block, a double-clicked block', () => {
    const page = shown();
    page.actions.open(row);
    page.actions.openLine('/p/train.py', 12);
    assert.deepEqual(page.posted.filter((m) => m.type === 'openLine'), [
      { type: 'openLine', file: '/p/model.py', line: 7 },
      { type: 'openLine', file: '/p/train.py', line: 12 },
    ]);
    // Go to Source: nothing until the pinned block's detail is here, then its line.
    page.actions.pin(10);
    page.actions.goToSource();
    assert.equal(page.posted.filter((m) => m.type === 'openLine').length, 2);
    page.answer('block', { detail: detail(10, { file: '/p/layers.py', line: 40 }) });
    page.actions.goToSource();
    assert.deepEqual(page.last('openLine'), { type: 'openLine', file: '/p/layers.py', line: 40 });
    // A double-click on block 0 of the span: its line, model.py:7 (spanOf's line 1).
    page.actions.openBlock({ kind: 'block', index: 0, record: 10, step: 0 });
    assert.deepEqual(page.last('openLine'), { type: 'openLine', file: '/home/u/proj/model.py', line: 7 });
  });

  it('pins a block and asks for its detail once; Escape unpins', () => {
    const page = shown();
    page.actions.pin(10);
    page.actions.pin(10);
    assert.equal(page.store.state.pinnedRecord, 10);
    assert.equal(page.posted.filter((m) => m.type === 'block').length, 1);
    page.actions.pin(undefined);
    assert.equal(page.store.state.pinnedRecord, undefined);
  });

  it('asks for the detail of a hovered block', () => {
    const page = shown({ kind: 'block', index: 0, record: 10, step: 0 });
    page.actions.hover(5, 5);
    assert.equal(page.last('block')?.record, 10);
  });

  it('selects a line from the table, and again unselects it; the span is asked again with it first', () => {
    const page = shown();
    page.actions.select(row);
    assert.equal(page.store.state.focusLine, 1);
    assert.equal(page.last('span')?.request.focusLine, 1);
    page.answer('span', { span: spanOf(0, 1000) });
    page.actions.select(row);
    assert.equal(page.store.state.focusLine, undefined);
    assert.equal(page.last('span')?.request.focusLine, undefined);
  });

  it('sorts: the same column flips, and each change is saved', () => {
    const page = shown();
    page.actions.sort('allocBytes');
    page.actions.sort('allocBytes');
    assert.deepEqual(page.saved.slice(-2).map((s) => [s.sortKey, s.sortDescending]), [['allocBytes', true], ['allocBytes', false]]);
  });

  it('asks the host to run a command by its key only', () => {
    const page = shown();
    page.actions.runCommand('openSnapshot');
    assert.deepEqual(page.last('runCommand'), { type: 'runCommand', command: 'openSnapshot' });
  });
});
