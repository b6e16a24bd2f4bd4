/**
 * Checkpoints of the self-check replay: the state at an event replayed from the nearest checkpoint
 * must be the state a replay from the start reaches there. The reference is a fresh replay from the
 * start for every position compared (no checkpoint, no fork), on a hand-made trace and on every device
 * trace of the shared corpus; and a checkpoint run on to the end must give the self-check the full
 * replay gives (the fork carries everything the replay decides with).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ReplayCheckpoints } from '../../../../src/engine/allocator/checkpoints';
import { segmentMapOf } from '../../../../src/engine/allocator/segmentMap';
import { selfCheckOf, selfCheckReplayAt } from '../../../../src/engine/allocator/selfCheck';
import type { AllocatorReplay } from '../../../../src/engine/allocator/traceReplay';
import { MiB } from '../../../../src/engine/allocator/sizes';
import { buildLineIndex } from '../../../../src/engine/analysis/lineIndex';
import { userFramePredicate } from '../../../../src/engine/analysis/frameFilter';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import type { Snapshot } from '../../../../src/engine/snapshot/model';
import { Action, devicesOf } from '../../../../src/engine/snapshot/model';
import { AllocatorStudy } from '../../../../src/engine/session/allocatorStudy';
import { corpusFiles, corpusMissing } from '../../../helpers/corpus';
import { RecordedTrace } from '../../../helpers/recordedTrace';
import { user } from '../../../helpers/traceBuilder';

const S = 0x7f00_0000_0000;
const T = 0x7f10_0000_0000;

/** The state a view or a later event could read: the segment map with every block, and the replay's counts. */
function stateOf(replay: AllocatorReplay, snapshot: Snapshot) {
  const a = replay.allocator;
  return {
    position: replay.position,
    map: segmentMapOf(replay, buildLineIndex(snapshot, userFramePredicate()), Infinity),
    pending: [...replay.pendingRecorded],
    counts: [replay.allocations, replay.atRecordedAddress, replay.mismatchCount, replay.segmentEventsReproduced, replay.unknownFrees, replay.cudaMallocs, replay.cudaFrees],
    peak: [replay.peakReserved, replay.peakReservedEvent, replay.allocatedAtPeak],
    pools: [a.small, a.large].map((p) => [p.getFreeBlocksCallCount, p.blocks.toArray().map((b) => [b.ptr, b.size, b.stream, p.gcCount(b)]), p.unmapped.toArray().map((b) => [b.ptr, b.size])]),
    emptyCacheEvents: [...replay.emptyCacheEvents],
  };
}

function fromStart(snapshot: Snapshot, device: number, position: number): AllocatorReplay {
  return selfCheckReplayAt(snapshot, device).runTo(position);
}

/** Segments made, split, merged, released by empty_cache() and made again; a free completed later than requested. */
function program(): Snapshot {
  const t = new RecordedTrace()
    .segmentAlloc(S, 20 * MiB, [user('a.py', 1)])
    .alloc(S, 3 * MiB, [user('a.py', 1)])
    .alloc(S + 3 * MiB, 5 * MiB, [user('a.py', 2)])
    .free(S, 3 * MiB)
    .alloc(S, 2 * MiB, [user('a.py', 3)])
    .segmentAlloc(T, 2 * MiB, [user('a.py', 4)])
    .alloc(T, 1000, [user('a.py', 4)])
    .free(S + 3 * MiB, 5 * MiB)
    .free(S, 2 * MiB)
    .segmentFree(S, 20 * MiB, [user('a.py', 9)])
    .free(T, 1000)
    .segmentAlloc(S, 20 * MiB, [user('a.py', 10)])
    .alloc(S, 6 * MiB, [user('a.py', 10)]);
  return t.snapshot(
    [
      { address: S, type: 'large', blocks: [[6 * MiB, 'active_allocated'], [14 * MiB, 'inactive']] },
      { address: T, type: 'small', blocks: [[2 * MiB, 'inactive']] },
    ],
    {},
  );
}

describe('replay checkpoints', () => {
  it('on a hand-made trace: the state after every event, scrubbed forwards and backwards, is the replay from the start', () => {
    const snap = program();
    const n = snap.traces[0].length;
    assert.equal(selfCheckOf(snap, fromStart(snap, 0, n)).check.firstDeparture, null, 'the replay reproduces the recording');
    const checkpoints = new ReplayCheckpoints(() => selfCheckReplayAt(snap, 0), n, { maxCheckpoints: 100, minSpacing: 3 });
    assert.equal(checkpoints.spacing, 3);
    const order = [...Array(n + 1).keys()];
    for (const position of [...order, ...order.reverse()]) {
      assert.deepEqual(stateOf(checkpoints.at(position), snap), stateOf(fromStart(snap, 0, position), snap), `position ${position}`);
    }
    assert.deepEqual(
      checkpoints.positions,
      order.filter((p) => p % 3 === 0).sort((x, y) => x - y),
    );
    // Once the checkpoints exist, a query replays at most `spacing` - 1 events.
    const before = checkpoints.eventsReplayed;
    checkpoints.at(n - 1);
    assert.ok(checkpoints.eventsReplayed - before <= 2, `${checkpoints.eventsReplayed - before} events`);
  });

  it('the segment map the study shows is the one a replay from the start shows', () => {
    const snap = program();
    const study = new AllocatorStudy(snap, 0);
    const index = buildLineIndex(snap, userFramePredicate());
    for (let event = snap.traces[0].length - 1; event >= -1; event--) {
      const viaCheckpoints = study.segmentMap(event, index, 1000);
      const direct = segmentMapOf(fromStart(snap, 0, event + 1), index, 1000);
      // Where the event is no recorded segment event, the map is the replay's own state right after it.
      const action = snap.traces[0].action[event] as Action | undefined;
      if (action === undefined || ![Action.SegmentAlloc, Action.SegmentFree].includes(action)) {
        assert.deepEqual({ ...viaCheckpoints, lines: undefined }, { ...direct, lines: undefined }, `event ${event}`);
      }
    }
  });

  it('on every corpus device: each checkpoint is the replay from the start, and run on it ends in the same self-check', { skip: corpusMissing }, () => {
    let compared = 0;
    for (const file of corpusFiles()) {
      const snap = snapshotFromBytes(new Uint8Array(readFileSync(file)));
      for (const device of devicesOf(snap)) {
        const n = snap.traces[device]?.length ?? 0;
        if (n === 0) continue;
        const checkpoints = new ReplayCheckpoints(() => selfCheckReplayAt(snap, device), n, { maxCheckpoints: 6, minSpacing: 1 });
        const full = fromStart(snap, device, n);
        checkpoints.at(n);
        const positions = checkpoints.positions;
        assert.ok(positions.length >= Math.min(n, 6) && positions.length <= 7, `${file} device ${device}: ${positions.length} checkpoints`);
        for (const p of positions) {
          const at = `${file} device ${device} position ${p}`;
          const replay = checkpoints.at(p);
          assert.deepEqual(stateOf(replay, snap), stateOf(fromStart(snap, device, p), snap), at);
          replay.runTo();
          assert.deepEqual(selfCheckOf(snap, replay), selfCheckOf(snap, full), `${at}: run on to the end`);
          assert.deepEqual(stateOf(replay, snap), stateOf(full, snap), `${at}: the state at the end`);
          compared++;
        }
      }
    }
    assert.ok(compared >= 100, `compared ${compared} checkpoints`);
  });
});
