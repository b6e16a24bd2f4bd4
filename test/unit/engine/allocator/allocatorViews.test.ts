/**
 * What the views read from the allocator replay: the segment map at a moment (blocks with their
 * lines and rounding waste), reserved memory by segment over time, and the OOM explanation, on
 * hand-written recordings whose figures are worked out by hand.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AllocatorStudy } from '../../../../src/engine/session/allocatorStudy';
import { MiB } from '../../../../src/engine/allocator/sizes';
import { buildLineIndex } from '../../../../src/engine/analysis/lineIndex';
import { userFramePredicate } from '../../../../src/engine/analysis/frameFilter';
import { RecordedTrace } from '../../../helpers/recordedTrace';
import { user, userPath } from '../../../helpers/traceBuilder';

const S = 0x7f00_0000_0000;
const T = 0x7f10_0000_0000;

function program() {
  const t = new RecordedTrace()
    .segmentAlloc(S, 20 * MiB, [user('a.py', 1)]) // 0
    .alloc(S, 3 * MiB, [user('a.py', 1)]) // 1
    .alloc(S + 3 * MiB, 5 * MiB, [user('a.py', 2)]) // 2
    .free(S, 3 * MiB) // 3, 4
    .alloc(S, 2 * MiB, [user('a.py', 3)]) // 5
    .segmentAlloc(T, 2 * MiB, [user('a.py', 4)]) // 6
    .alloc(T, 1000, [user('a.py', 4)]) // 7
    .free(S + 3 * MiB, 5 * MiB) // 8, 9
    .segmentFree(T, 2 * MiB, [user('a.py', 9)]); // 10: nothing to explain it: empty_cache()? no: T still holds a block
  return t.snapshot(
    [
      { address: S, type: 'large', blocks: [[3 * MiB, 'active_allocated', 2 * MiB], [17 * MiB, 'inactive']] },
      { address: T, type: 'small', blocks: [[1024, 'active_allocated', 1000], [2 * MiB - 1024, 'inactive']] },
    ],
    {},
  );
}

describe('allocator views', () => {
  it('the segment map after an event: segments, blocks with their lines, and the rounding waste', () => {
    const snap = program();
    const index = buildLineIndex(snap, userFramePredicate());
    const study = new AllocatorStudy(snap, 0);
    const map = study.segmentMap(7, index, 100);
    const lineOf = (id: number) => (id < 0 ? null : `${index.lines[id].file}:${String(index.lines[id].line)}`);
    assert.deepEqual(
      map.segments.map((s) => ({
        address: s.address,
        size: s.size,
        pool: s.pool,
        blocks: s.blocks.map((b) => [b.address - s.address, b.size, b.requestedSize, b.state, b.allocEvent, lineOf(b.line)]),
      })),
      [
        {
          address: S,
          size: 20 * MiB,
          pool: 'large',
          blocks: [
            [0, 3 * MiB, 2 * MiB, 'allocated', 5, `${userPath('a.py')}:3`],
            [3 * MiB, 5 * MiB, 5 * MiB, 'allocated', 2, `${userPath('a.py')}:2`],
            [8 * MiB, 12 * MiB, 0, 'free', -1, null],
          ],
        },
        {
          address: T,
          size: 2 * MiB,
          pool: 'small',
          blocks: [
            [0, 1024, 1000, 'allocated', 7, `${userPath('a.py')}:4`],
            [1024, 2 * MiB - 1024, 0, 'free', -1, null],
          ],
        },
      ],
    );
    assert.equal(map.event, 7);
    assert.equal(map.reservedBytes, 22 * MiB);
    assert.equal(map.allocatedBytes, 8 * MiB + 1024);
    assert.equal(map.requestedBytes, 7 * MiB + 1000);
    assert.equal(map.roundingWasteBytes, MiB + 24, '3 MiB held for 2 MiB, 1024 bytes for 1000');
    assert.equal(map.largestFreeBytes, 12 * MiB);
    assert.deepEqual(
      map.lines.map((l) => l.line),
      [1, 2, 3, 4].filter((n) => n !== 1),
    );
    const before = study.segmentMap(-1, index, 100);
    assert.deepEqual([before.event, before.segments.length, before.reservedBytes], [-1, 0, 0]);
    const capped = study.segmentMap(7, index, 2);
    assert.deepEqual(
      capped.segments.map((s) => [s.blocks.length, s.blocksOmitted]),
      [
        [2, 1],
        [0, 2],
      ],
    );
  });

  it('the segment map right after a recorded segment_alloc: the new segment, one free block, counted in reserved', () => {
    const snap = program();
    const index = buildLineIndex(snap, userFramePredicate());
    const study = new AllocatorStudy(snap, 0);
    const shape = (m: ReturnType<typeof study.segmentMap>) => [
      m.event,
      m.reservedBytes / MiB,
      m.allocatedBytes,
      m.largestFreeBytes / MiB,
      m.segments.map((s) => [s.address, s.blocks.map((b) => [b.size, b.state])]),
    ];
    // Event 0 is S's segment_alloc: PyTorch has made S (20 MiB, free) and not yet given event 1 its 3 MiB.
    assert.deepEqual(shape(study.segmentMap(0, index, 100)), [0, 20, 0, 20, [[S, [[20 * MiB, 'free']]]]]);
    // Event 6 is T's segment_alloc: T (2 MiB, free) beside S, whose blocks are those after event 5.
    assert.deepEqual(shape(study.segmentMap(6, index, 100)), [
      6,
      22,
      8 * MiB,
      12,
      [
        [S, [[3 * MiB, 'allocated'], [5 * MiB, 'allocated'], [12 * MiB, 'free']]],
        [T, [[2 * MiB, 'free']]],
      ],
    ]);
    // Event 1: the allocation took the front of S.
    assert.deepEqual(shape(study.segmentMap(1, index, 100)), [1, 20, 3 * MiB, 17, [[S, [[3 * MiB, 'allocated'], [17 * MiB, 'free']]]]]);
  });

  it('the series: reserved, allocated, largest free block and each segment, from the event where PyTorch recorded it', () => {
    const snap = program();
    const study = new AllocatorStudy(snap, 0, { series: true });
    const data = study.series()!;
    const mib = (a: Float64Array) => [...a].map((b) => b / MiB);
    assert.deepEqual([data.initialReserved, data.initialAllocated, data.initialLargestFree], [0, 0, 0]);
    // Index i is the state right after event i. The replay makes S while replaying the allocation of
    // event 1 and T while replaying event 7; each counts at its recorded segment_alloc (events 0 and 6),
    // where the recording's reserved line rises. Event 10's release is not reproduced (T holds a block).
    assert.deepEqual(mib(data.reserved), [20, 20, 20, 20, 20, 20, 22, 22, 22, 22, 22]);
    const k = 1024 / MiB;
    assert.deepEqual(mib(data.allocated), [0, 3, 8, 8, 5, 8, 8, 8 + k, 8 + k, 3 + k, 3 + k], 'the 2 MiB request holds the whole 3 MiB block');
    // Right after event 0, S is one free 20 MiB block (the allocation that asked for it takes it at event 1).
    assert.deepEqual(mib(data.largestFree), [20, 17, 12, 12, 12, 12, 12, 12, 12, 17, 17], 'the freed 5 MiB merges with the 12 MiB after it');
    assert.deepEqual(
      data.spans.map((s) => [s.address, s.size, s.from, s.to]),
      [
        [S, 20 * MiB, 0, -1],
        [T, 2 * MiB, 6, -1],
      ],
    );
    // The segment_free of T (event 10) has no allocation to explain it and T still holds a block: not reproduced.
    assert.equal(study.check().check.firstDeparture?.event, 10);
  });

  it('the OOM explanation: asked, reserved, what the cache held and its largest block', () => {
    const ctx = [user('o.py', 3)];
    // 300 MiB allocated and freed, cut into three 100 MiB blocks, the outer two freed: 150 MiB cannot be placed.
    const t = new RecordedTrace()
      .segmentAlloc(S, 300 * MiB, ctx)
      .alloc(S, 300 * MiB, ctx)
      .free(S, 300 * MiB)
      .alloc(S, 100 * MiB, ctx)
      .alloc(S + 100 * MiB, 100 * MiB, ctx)
      .alloc(S + 200 * MiB, 100 * MiB, ctx)
      .free(S, 100 * MiB)
      .free(S + 200 * MiB, 100 * MiB)
      .oom(150 * MiB, 40 * MiB, [user('o.py', 8)]);
    const snap = t.snapshot([{ address: S, type: 'large', blocks: [[100 * MiB, 'inactive'], [100 * MiB, 'active_allocated'], [100 * MiB, 'inactive']] }], {});
    const index = buildLineIndex(snap, userFramePredicate());
    const [o] = new AllocatorStudy(snap, 0).ooms(index);
    assert.deepEqual(
      { ...o, summary: undefined },
      {
        event: 11,
        file: userPath('o.py'),
        line: 8,
        requestedBytes: 150 * MiB,
        blockBytes: 150 * MiB,
        segmentBytes: 150 * MiB,
        reservedBytes: 300 * MiB,
        allocatedBytes: 100 * MiB,
        cachedFreeBytes: 200 * MiB,
        largestFreeBytes: 100 * MiB,
        deviceFreeBytes: 40 * MiB,
        cause: 'fragmentation',
        summary: undefined,
      },
    );
    assert.match(o.summary, /200\.0 MiB free but its largest block was 100\.0 MiB: fragmentation/);
  });
});
