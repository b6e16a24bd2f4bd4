/** The allocator view's words (controls/allocatorText.ts), on spans, maps and OOMs written by hand. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OomExplanation } from '../../../../../src/engine/allocator/oom';
import type { SegmentMapView } from '../../../../../src/engine/session/allocatorStudy';
import type { AllocatorSpan } from '../../../../../src/engine/timeline/allocatorSpan';
import { allocatorTooltip, mapBlockLines, mapFigures, mapHeading, omittedBlocks, oomAt, oomLines } from '../../../../../webview/timeline/controls/allocatorText';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

const w = {
  stepState: new Int32Array([3, 9]),
  stepFirst: new Int32Array([3, 5]),
  stepLast: new Int32Array([3, 12]),
  reserved: new Float64Array([20 * MiB, 40 * MiB]),
  allocated: new Float64Array([3 * MiB, 30 * MiB]),
  unallocated: new Float64Array([17 * MiB, 10 * MiB]),
  largestFree: new Float64Array([17 * MiB, 6 * MiB]),
  pieceAddress: new Float64Array([0x7f0000000000, 0x7f1000000000]),
  pieceSize: new Float64Array([20 * MiB, 20 * MiB]),
  pieceExpandable: new Uint8Array([0, 1]),
  pieceFromEvent: new Int32Array([-1, 7]),
  pieceToEvent: new Int32Array([12, -1]),
  pieceLine: new Int32Array([-1, 4]),
  lines: [{ id: 4, file: '/home/u/proj/model.py', line: 39, color: 2 }],
} as unknown as AllocatorSpan;

const oom: OomExplanation = {
  event: 421,
  file: '/home/u/proj/models.py',
  line: 181,
  requestedBytes: 4.9 * GiB,
  blockBytes: 4.9 * GiB,
  segmentBytes: 4.9 * GiB,
  reservedBytes: 78.4 * GiB,
  allocatedBytes: 78.3 * GiB,
  cachedFreeBytes: 132.9 * MiB,
  largestFreeBytes: 16.5 * MiB,
  deviceFreeBytes: 91.3 * MiB,
  cause: 'capacity',
  summary: '…',
};

describe('the allocator view\'s words', () => {
  it('a segment: what made it and when it went, and the step\'s figures', () => {
    assert.deepEqual(allocatorTooltip({ kind: 'segment', index: 0, step: 0 }, w), [
      'Segment: 20.0 MiB at 0x7f0000000000',
      'reserved before recording began; released (cudaFree) at event 12',
      '20.0 MiB reserved, 3.0 MiB allocated after event 2',
      '17.0 MiB reserved but unallocated; largest free block 17.0 MiB',
      'Click to see the segment map at this moment',
    ]);
    assert.deepEqual(allocatorTooltip({ kind: 'segment', index: 1, step: 1 }, w).slice(0, 2), [
      'Mapped pages of an expandable segment: 20.0 MiB at 0x7f1000000000',
      'mapped at event 7 for model.py:39; still reserved at the end',
    ]);
    // A step over several states: the most over them (reserved: the representative's).
    assert.deepEqual(allocatorTooltip({ kind: 'allocatorStep', step: 1 }, w), [
      '40.0 MiB reserved, at most 30.0 MiB allocated over events 4-11',
      'at most 10.0 MiB reserved but unallocated; largest free block at most 6.0 MiB',
      'Click to see the segment map at this moment',
    ]);
    // A hit from an older span says nothing.
    assert.deepEqual(allocatorTooltip({ kind: 'segment', index: 5, step: 0 }, w), []);
    assert.deepEqual(allocatorTooltip({ kind: 'allocatorStep', step: 9 }, w), []);
    assert.deepEqual(allocatorTooltip({ kind: 'allocatorStep', step: 0 }, undefined), []);
  });

  it('an OOM explained: asked, the cache, the cause', () => {
    assert.equal(oomAt([oom], 421), oom);
    assert.equal(oomAt([oom], 420), undefined);
    assert.deepEqual(oomLines(oom), [
      'Out of memory at event 421 at models.py:181: 4.9 GiB asked (a 4.9 GiB block; a new segment would be 4.9 GiB)',
      '78.4 GiB reserved, 78.3 GiB allocated; the cache held 132.9 MiB free, its largest free block 16.5 MiB; 91.3 MiB free on the device',
      'Cause: capacity. Not enough free memory, cached or on the device: the program needs less memory, or a larger GPU.',
    ]);
    assert.match(oomLines({ ...oom, cause: 'fragmentation', deviceFreeBytes: null, file: null, line: null })[2], /^Cause: fragmentation\. .*expandable_segments:True/);
  });

  it('the map\'s heading and figures; a block of it', () => {
    const seg = { address: 0x1000, size: 20 * MiB, stream: 0, pool: 'large' as const, expandable: false, createdAt: -1, blocks: [], blocksOmitted: 3 };
    const m = { device: 0, event: 7, reservedBytes: 22 * MiB, allocatedBytes: 8 * MiB, requestedBytes: 7 * MiB, unallocatedBytes: 14 * MiB, largestFreeBytes: 12 * MiB, roundingWasteBytes: MiB, segments: [seg, { ...seg, blocksOmitted: 2 }], lineIds: [], lines: [] } as SegmentMapView;
    assert.equal(mapHeading(m), 'Segment map after event 7');
    assert.equal(mapHeading({ ...m, event: -1 }), 'Segment map before the first event');
    assert.deepEqual(mapFigures(m), [
      '22.0 MiB reserved in 2 segments; 8.0 MiB allocated (7.0 MiB asked for, 1.0 MiB rounding waste)',
      '14.0 MiB reserved but unallocated (64% of reserved); largest free block 12.0 MiB',
    ]);
    assert.equal(omittedBlocks(m), 5);
    const line = { id: 1, file: '/p/model.py', line: 3, color: 0 };
    assert.deepEqual(mapBlockLines(seg, { address: 0x1000, size: 3 * MiB, requestedSize: 2 * MiB, state: 'allocated', allocEvent: 5, line: 1 }, line), [
      'Allocated: 3.0 MiB  model.py:3',
      '2.0 MiB asked for, 1.0 MiB rounding waste, allocated at event 5',
      'in a 20.0 MiB segment (large pool, stream 0) at 0x1000',
      'Click to open the line',
    ]);
    assert.deepEqual(mapBlockLines(seg, { address: 0x1000, size: 2 * MiB, requestedSize: 2 * MiB, state: 'pendingFree', allocEvent: -1, line: -1 }, undefined).slice(0, 2), [
      'Freed, waiting for its stream: 2.0 MiB  allocated before recording began',
      '2.0 MiB asked for',
    ]);
    assert.deepEqual(mapBlockLines(seg, { address: 0x1000, size: 12 * MiB, requestedSize: 0, state: 'free', allocEvent: -1, line: -1 }, undefined)[0], 'Free: 12.0 MiB, cached by PyTorch');
  });
});
