/**
 * The self-check on hand-written recordings: each trace below is what PyTorch's rules make of the
 * program (every address worked out by hand), so the replay must agree everywhere; then recordings
 * that break a rule on purpose, where it must name the event and the reason.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { selfCheck, selfCheckReplay } from '../../../../src/engine/allocator/selfCheck';
import { MiB } from '../../../../src/engine/allocator/sizes';
import { RecordedTrace } from '../../../helpers/recordedTrace';
import { user } from '../../../helpers/traceBuilder';

const S = 0x7f00_0000_0000;
const T = 0x7f10_0000_0000;
const U = 0x7f20_0000_0000;

/** A 20 MiB segment cut into 3 + 5 MiB; the 3 MiB block reused by a 2 MiB request (1 MiB left is not split off); one small block. */
function simpleProgram(): RecordedTrace {
  return new RecordedTrace()
    .segmentAlloc(S, 20 * MiB, [user('a.py', 1)])
    .alloc(S, 3 * MiB, [user('a.py', 1)])
    .alloc(S + 3 * MiB, 5 * MiB, [user('a.py', 2)])
    .free(S, 3 * MiB)
    .alloc(S, 2 * MiB, [user('a.py', 3)])
    .segmentAlloc(T, 2 * MiB, [user('a.py', 4)])
    .alloc(T, 1000, [user('a.py', 4)]);
}

const SIMPLE_END = [
  { address: S, type: 'large' as const, blocks: [[3 * MiB, 'active_allocated', 2 * MiB], [5 * MiB, 'active_allocated'], [12 * MiB, 'inactive']] as const },
  { address: T, type: 'small' as const, blocks: [[1024, 'active_allocated', 1000], [2 * MiB - 1024, 'inactive']] as const },
];

describe('allocator self-check on hand-written recordings', () => {
  it('agrees with a recording made by the rules: every address, segment event and final block', () => {
    const d = selfCheck(simpleProgram().snapshot(SIMPLE_END, {}), 0);
    assert.deepEqual(d.check, { allocations: 4, atRecordedAddress: 4, segmentEvents: 2, segmentEventsReproduced: 2, firstDeparture: null });
    assert.deepEqual([d.finalBlocks, d.finalBlocksMatching], [5, 5]);
    assert.equal(d.settings, '');
    assert.equal(d.clean, true);
    assert.equal(d.peakReservedBytes, 22 * MiB);
  });

  it('names the event where PyTorch put a block elsewhere than the rules say', () => {
    // Best fit would reuse the freed 3 MiB block at S for 2 MiB; this recording claims S + 8 MiB.
    const t = new RecordedTrace()
      .segmentAlloc(S, 20 * MiB)
      .alloc(S, 3 * MiB)
      .alloc(S + 3 * MiB, 5 * MiB)
      .free(S, 3 * MiB)
      .alloc(S + 8 * MiB, 2 * MiB);
    const d = selfCheck(
      t.snapshot([{ address: S, type: 'large', blocks: [[3 * MiB, 'inactive'], [5 * MiB, 'active_allocated'], [2 * MiB, 'active_allocated'], [10 * MiB, 'inactive']] }], {}),
      0,
    );
    assert.equal(d.check.atRecordedAddress, 2);
    assert.equal(d.check.firstDeparture?.event, 5);
    assert.equal(d.check.firstDeparture?.kind, 'address');
    assert.match(d.check.firstDeparture?.reason ?? '', /2\.0 MiB at 0x7f0000000000; PyTorch put it at 0x7f0000800000/);
  });

  it('names a segment PyTorch made where a cached block would have served', () => {
    const t = new RecordedTrace().segmentAlloc(S, 20 * MiB).alloc(S, 3 * MiB).free(S, 3 * MiB).segmentAlloc(T, 20 * MiB).alloc(T, 3 * MiB);
    const d = selfCheck(
      t.snapshot([
        { address: S, type: 'large', blocks: [[20 * MiB, 'inactive']] },
        { address: T, type: 'large', blocks: [[3 * MiB, 'active_allocated'], [17 * MiB, 'inactive']] },
      ]),
      0,
    );
    assert.equal(d.check.segmentEventsReproduced, 1);
    assert.equal(d.check.firstDeparture?.kind, 'missingSegment');
    assert.equal(d.check.firstDeparture?.event, 5);
  });

  it("tells the program's empty_cache() from a release inside an allocation, and replays it", () => {
    // Everything freed, then empty_cache() (its stack is the call's), then a 3 MiB request needs a new segment.
    const t = new RecordedTrace()
      .segmentAlloc(S, 20 * MiB, [user('a.py', 1)])
      .alloc(S, 3 * MiB, [user('a.py', 1)])
      .free(S, 3 * MiB)
      .segmentFree(S, 20 * MiB, [user('a.py', 9, 'empty')])
      .segmentAlloc(U, 20 * MiB, [user('a.py', 1)])
      .alloc(U, 3 * MiB, [user('a.py', 1)]);
    const snap = t.snapshot([{ address: U, type: 'large', blocks: [[3 * MiB, 'active_allocated'], [17 * MiB, 'inactive']] }], {});
    const d = selfCheck(snap, 0);
    assert.deepEqual(d.check, { allocations: 2, atRecordedAddress: 2, segmentEvents: 3, segmentEventsReproduced: 3, firstDeparture: null });
    assert.equal(d.emptyCacheCalls, 1);
    assert.deepEqual(d.emptyCacheEvents, [4]);
    assert.equal(d.capacityBytes, null, 'no cudaMalloc failed');
  });

  it('reads a release with the allocation\'s own stack as a failed cudaMalloc, and bounds the capacity by it', () => {
    const ctx = [user('a.py', 5)];
    const t = new RecordedTrace()
      .segmentAlloc(S, 600 * MiB, ctx)
      .alloc(S, 600 * MiB, ctx)
      .free(S, 600 * MiB)
      .segmentFree(S, 600 * MiB, ctx)
      .segmentAlloc(U, 700 * MiB, ctx)
      .alloc(U, 700 * MiB, ctx);
    const d = selfCheck(t.snapshot([{ address: U, type: 'large', blocks: [[700 * MiB, 'active_allocated']] }], {}), 0);
    assert.equal(d.check.firstDeparture, null);
    assert.equal(d.emptyCacheCalls, 0);
    assert.equal(d.capacitySource, 'failedMalloc');
    assert.equal(d.capacityBytes, 700 * MiB, 'the most it reserved: 600 MiB more would not fit beside 600 MiB');
    assert.equal(d.clean, false);
  });

  it('works out the size of a block allocated before recording from where the trace allocates next to it', () => {
    // S existed before recording with a 4 MiB request's block at S. PyTorch had not split it: the trace's
    // next allocation starts 0.5 MiB after the 4 MiB, so that block was 4.5 MiB.
    const t = new RecordedTrace().alloc(S + 4.5 * MiB, 6 * MiB).free(S, 4 * MiB).alloc(S, 4 * MiB);
    const snap = t.snapshot([{ address: S, type: 'large', blocks: [[4.5 * MiB, 'active_allocated', 4 * MiB], [6 * MiB, 'active_allocated'], [9.5 * MiB, 'inactive']] }], {});
    const replay = selfCheckReplay(snap, 0);
    assert.deepEqual(
      replay.layout.blocks.map((b) => [b.address, b.size, b.inferred]),
      [[S, 4.5 * MiB, true]],
    );
    const d = selfCheck(snap, 0);
    assert.deepEqual(d.check, { allocations: 2, atRecordedAddress: 2, segmentEvents: 0, segmentEventsReproduced: 0, firstDeparture: null });
    assert.equal(d.finalBlocksMatching, 3);
  });

  it('replays expandable segments: 20 MiB pages mapped at the end of the segment as it grows', () => {
    const B = 0x7e00_0000_0000;
    const t = new RecordedTrace()
      .segmentMap(B, 40 * MiB)
      .alloc(B, 30 * MiB)
      .alloc(B + 30 * MiB, 5 * MiB + 100)
      .segmentMap(B + 40 * MiB, 20 * MiB)
      .alloc(B + 35 * MiB + 512, 10 * MiB);
    const snap = t.snapshot(
      [
        {
          address: B,
          type: 'large',
          expandable: true,
          blocks: [[30 * MiB, 'active_allocated'], [5 * MiB + 512, 'active_allocated', 5 * MiB + 100], [10 * MiB, 'active_allocated'], [15 * MiB - 512, 'inactive']],
        },
      ],
      { expandable: true },
    );
    const d = selfCheck(snap, 0);
    assert.deepEqual(d.check, { allocations: 3, atRecordedAddress: 3, segmentEvents: 2, segmentEventsReproduced: 2, firstDeparture: null });
    assert.equal(d.settings, 'expandable_segments:True');
    assert.equal(d.finalBlocksMatching, 4);
  });

  it('reproduces a recorded OOM, and names it when the replay would have found room', () => {
    const ctx = [user('a.py', 7)];
    const ok = new RecordedTrace().segmentAlloc(S, 100 * MiB, ctx).alloc(S, 100 * MiB, ctx).oom(200 * MiB, 50 * MiB, ctx);
    const d = selfCheck(ok.snapshot([{ address: S, type: 'large', blocks: [[100 * MiB, 'active_allocated']] }], {}), 0);
    assert.deepEqual([d.recordedOoms, d.oomsReproduced, d.capacitySource, d.capacityBytes], [1, 1, 'oom', 150 * MiB]);
    assert.equal(d.check.firstDeparture, null);
    // Here the 100 MiB block was freed before the OOM: the replay finds it for a 60 MiB request.
    const bad = new RecordedTrace().segmentAlloc(S, 100 * MiB, ctx).alloc(S, 100 * MiB, ctx).free(S, 100 * MiB).oom(60 * MiB, 0, ctx);
    const e = selfCheck(bad.snapshot([{ address: S, type: 'large', blocks: [[100 * MiB, 'inactive']] }], {}), 0);
    assert.equal(e.check.firstDeparture?.kind, 'missedOom');
    assert.equal(e.check.firstDeparture?.event, 4);
  });

  it('says when the trace and the final segments disagree', () => {
    const t = new RecordedTrace().segmentAlloc(S, 20 * MiB).alloc(S, 3 * MiB);
    const d = selfCheck(t.snapshot([]), 0);
    assert.equal(d.check.firstDeparture?.kind, 'layout');
    assert.equal(d.check.firstDeparture?.event, -1);
    assert.match(d.check.firstDeparture?.reason ?? '', /segment_alloc of a segment not in the final state/);
    assert.equal(d.settingsRecorded, false);
  });
});
