/** The timeline page's state transitions (webview/timeline/state/transitions.ts), in Node. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LineBlocks } from '../../../../../src/engine/timeline/types';
import type { SnapshotChoice } from '../../../../../src/protocol/timeline';
import { INITIAL_STATE } from '../../../../../webview/timeline/state/state';
import type { ViewState } from '../../../../../webview/timeline/state/state';
import { onFocusBlocks, onSnapshots, onSort, onTarget } from '../../../../../webview/timeline/state/transitions';

const choice = (id: string, devices: number[]): SnapshotChoice => ({
  id,
  label: `${id}.pickle`,
  devices: devices.map((device) => ({ device, peakBytes: 1, events: 1 })),
  device: devices[0],
  hasTimes: false,
});
const a = choice('a', [0]);
const b = choice('b', [0, 1, 2]);
const zoomed: ViewState = { ...INITIAL_STATE, snapshotId: 'b', device: 2, seenActiveId: 'b', x0: 10, x1: 20, y0: 0, y1: 5, pinnedRecord: 7, focusLine: 3 };

describe('timeline state transitions', () => {
  it('shows nothing when no snapshot is loaded', () => {
    assert.equal(onSnapshots(zoomed, [], undefined), undefined);
  });

  it('keeps the snapshot and device shown while the active snapshot stays the same', () => {
    const next = onSnapshots(zoomed, [a, b], 'b')!;
    assert.deepEqual(next.target, { snapshotId: 'b', device: 2 });
    assert.deepEqual(onTarget(next.state, next.target), next.state, 'the zoom and the pin stay');
    // Against the state before, not only the state onSnapshots made (which could have dropped them already).
    const shown = onTarget(next.state, next.target);
    assert.deepEqual([shown.x0, shown.x1, shown.y0, shown.y1, shown.pinnedRecord, shown.focusLine], [10, 20, 0, 5, 7, 3]);
  });

  it('follows a newly active snapshot, on its own device, forgetting the zoom, the pin and the line', () => {
    const next = onSnapshots(zoomed, [a, b], 'a')!;
    assert.deepEqual(next.target, { snapshotId: 'a', device: 0 });
    assert.equal(next.state.seenActiveId, 'a');
    const shown = onTarget(next.state, next.target);
    assert.deepEqual(
      [shown.snapshotId, shown.device, shown.x0, shown.x1, shown.y0, shown.y1, shown.pinnedRecord, shown.focusLine],
      ['a', 0, undefined, undefined, undefined, undefined, undefined, undefined],
    );
  });

  it('keeps a snapshot the user chose in the view while the active one has not changed since', () => {
    // The page showed B (chosen in its selector) though A is active and was seen already.
    const state: ViewState = { ...zoomed, seenActiveId: 'a' };
    assert.deepEqual(onSnapshots(state, [a, b], 'a')!.target, { snapshotId: 'b', device: 2 });
  });

  it('falls back to the active snapshot, then the first, when the one shown was closed', () => {
    assert.deepEqual(onSnapshots({ ...zoomed, seenActiveId: 'a' }, [a], 'a')!.target, { snapshotId: 'a', device: 0 });
    assert.deepEqual(onSnapshots({ ...zoomed, seenActiveId: undefined }, [a], undefined)!.target, { snapshotId: 'a', device: 0 });
  });

  it('takes the snapshot\'s own device when the one shown is gone', () => {
    const fewer = choice('b', [0, 1]);
    assert.deepEqual(onSnapshots(zoomed, [fewer], 'b')!.target, { snapshotId: 'b', device: 0 });
  });

  it('focusing a line selects it and pins its first block', () => {
    const blocks = { lineId: 9, blocks: [{ record: 42 }, { record: 1 }] } as unknown as LineBlocks;
    const next = onFocusBlocks(zoomed, blocks);
    assert.deepEqual([next.focusLine, next.pinnedRecord, next.x0], [9, 42, 10]);
    const none = onFocusBlocks(zoomed, { lineId: 4, blocks: [] } as unknown as LineBlocks);
    assert.deepEqual([none.focusLine, none.pinnedRecord], [4, undefined]);
  });

  it('sorting: the same column flips, another starts largest first, the line column A to Z', () => {
    const s0: ViewState = { ...INITIAL_STATE, sortKey: 'liveAtPeakBytes', sortDescending: true };
    assert.deepEqual([onSort(s0, 'liveAtPeakBytes').sortKey, onSort(s0, 'liveAtPeakBytes').sortDescending], ['liveAtPeakBytes', false]);
    assert.deepEqual([onSort(s0, 'allocBytes').sortKey, onSort(s0, 'allocBytes').sortDescending], ['allocBytes', true]);
    assert.equal(onSort(s0, 'line').sortDescending, false);
  });
});
