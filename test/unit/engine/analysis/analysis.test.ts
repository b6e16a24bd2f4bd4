/**
 * The analysis on traces small enough to work out by hand. Each expected figure is computed in the
 * comment above it from the spec's definitions, not from the code.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { toReport } from '../../../../src/engine/analysis/report';
import { peakLine, topLines } from '../../../../src/engine/analysis/summary';
import { snapshotFromPickle } from '../../../../src/engine/snapshot/fromPickle';
import { ev, frame, rawSnapshot, segment } from '../../../helpers/traces';

const user = (line: number, name = 'f') => frame('/home/alice/proj/train.py', line, name);
const lib = (line: number) => frame('/usr/lib/python3.11/site-packages/torch/nn/functional.py', line, 'linear');
const cpp = frame('CUDACachingAllocator.cpp', 0, 'malloc');

function analyse(raw: unknown, filter = {}) {
  return analyzeSnapshot(snapshotFromPickle(raw), filter);
}

describe('replay', () => {
  it('tracks active bytes, the first peak, and the final state', () => {
    // active: 100, 300, 300 (free_requested moves nothing), 200, 500 (peak), 300, 0
    const a = analyse(
      rawSnapshot([
        [
          ev('alloc', 1, 100, [user(10)]),
          ev('alloc', 2, 200, [user(11)]),
          ev('free_requested', 1, 100, [user(12)]),
          ev('free_completed', 1, 100, [user(12)]),
          ev('alloc', 3, 300, [user(13)]),
          ev('free_completed', 2, 200),
          ev('free_completed', 3, 300),
        ],
      ]),
    );
    const d = a.devices[0];
    assert.deepEqual([...d.active], [100, 300, 300, 200, 500, 300, 0]);
    assert.equal(d.peakBytes, 500);
    assert.equal(d.peakEventIndex, 4);
    assert.equal(d.finalActiveBytes, 0);
    assert.equal(d.initialActiveBytes, 0);
  });

  it('counts blocks freed but never allocated in the trace, and live blocks never allocated, as initial memory', () => {
    // free of addr 9 (64 B) has no alloc before it: initial += 64.
    // segments hold a live block at 0x5000 (32 B) never allocated in the trace: initial += 32.
    const a = analyse(
      rawSnapshot(
        [[ev('free_completed', 9, 64), ev('alloc', 7, 16, [user(1)])]],
        [segment(0, 0x5000, 1024, [{ address: 0x5000, size: 32, state: 'active_allocated' }, { address: 7, size: 16, state: 'active_allocated' }])],
      ),
    );
    const d = a.devices[0];
    assert.equal(d.initialActiveBytes, 96);
    // after free: 32, after alloc: 48; the initial 96 is the peak.
    assert.deepEqual([...d.active], [32, 48]);
    assert.equal(d.peakBytes, 96);
    assert.equal(d.peakEventIndex, -1);
    // The line's figures follow the active bytes from the initial 96 too: 48 after its alloc.
    assert.equal(d.lines.find((l) => l.line === 1)?.peakWhileAllocatingBytes, 48);
  });

  it('works out the active bytes after each event when first read, once', () => {
    // The per-line figures follow them as they walk the trace: an analysis holds no array of them
    // until a view asks (a 100 MB snapshot's is 10 MB).
    const a = analyse(rawSnapshot([[ev('alloc', 1, 100, [user(10)]), ev('free_completed', 1, 100)]]));
    const d = a.devices[0];
    assert.equal(typeof Object.getOwnPropertyDescriptor(d, 'active')?.get, 'function');
    assert.deepEqual([...d.active], [100, 0]);
    assert.equal(d.active, d.active);
    assert.equal(d.lines[0].peakWhileAllocatingBytes, 100);
  });

  it('when the initial state is the peak, live-at-peak comes from the blocks in segments with their frames', () => {
    const a = analyse(
      rawSnapshot(
        [[ev('free_completed', 9, 64)]],
        [segment(0, 0x5000, 1024, [{ address: 0x5000, size: 32, state: 'active_allocated', frames: [user(40)] }])],
      ),
    );
    const rows = toReport(a).devices[0].lines;
    assert.deepEqual(
      rows.map((r) => [r.line, r.liveAtPeakBytes, r.inclusiveLiveAtPeakBytes, r.allocCount]),
      [[40, 32, 32, 0]],
    );
  });

  it('derives reserved memory from segment events and the final segments', () => {
    // final reserved = 2048 + 1024 = 3072; growth 1024 (alloc) + 512 (map); shrink 256 (unmap)
    // initial = 3072 - 1536 + 256 = 1792; after events: 2816, 2560, 3072 -> peak 3072
    const a = analyse(
      rawSnapshot(
        [[ev('segment_alloc', 0, 1024), ev('segment_unmap', 0, 256), ev('segment_map', 0, 512)]],
        [segment(0, 0x1000, 2048), segment(0, 0x9000, 1024)],
      ),
    );
    const d = a.devices[0];
    assert.equal(d.initialReservedBytes, 1792);
    assert.deepEqual([...d.reserved], [2816, 2560, 3072]);
    assert.equal(d.peakReservedBytes, 3072);
    assert.equal(d.finalReservedBytes, 3072);
  });
});

describe('per-line figures', () => {
  it('attributes self to the innermost user frame and inclusive to every distinct user line', () => {
    // Stack (innermost first): C++, library, train.py:20 (inner), train.py:30, train.py:20 again (recursion).
    const stack = [cpp, lib(100), user(20, 'inner'), user(30, 'outer'), user(20, 'inner')];
    const a = analyse(
      rawSnapshot([[ev('alloc', 1, 1000, stack), ev('alloc', 2, 500, [user(30, 'outer')]), ev('free_requested', 1, 1000, [user(31)]), ev('free_completed', 1, 1000)]]),
    );
    const rows = toReport(a).devices[0].lines;
    const byLine = new Map(rows.map((r) => [r.line, r]));
    // line 20: self alloc 1000 (active after = 1000); inclusive once despite appearing twice.
    assert.deepEqual(byLine.get(20), {
      file: '/home/alice/proj/train.py',
      line: 20,
      allocCount: 1,
      allocBytes: 1000,
      freedBytes: 0,
      peakWhileAllocatingBytes: 1000,
      // peak = 1500 after event 1; both blocks live then.
      liveAtPeakBytes: 1000,
      inclusiveAllocBytes: 1000,
      inclusivePeakWhileAllocatingBytes: 1000,
      inclusiveLiveAtPeakBytes: 1000,
      reservedGrowthBytes: 0,
      deviceCallCount: 0,
      // The renamed figures under their former keys (the spec's), for one release.
      peakBytes: 1000,
      inclusivePeakBytes: 1000,
    });
    // line 30: self alloc 500 (active after 1500), inclusive 1000 + 500.
    assert.deepEqual(byLine.get(30), {
      file: '/home/alice/proj/train.py',
      line: 30,
      allocCount: 1,
      allocBytes: 500,
      freedBytes: 0,
      peakWhileAllocatingBytes: 1500,
      liveAtPeakBytes: 500,
      inclusiveAllocBytes: 1500,
      inclusivePeakWhileAllocatingBytes: 1500,
      inclusiveLiveAtPeakBytes: 1500,
      reservedGrowthBytes: 0,
      deviceCallCount: 0,
      peakBytes: 1500,
      inclusivePeakBytes: 1500,
    });
    // line 31 only frees (free_requested carries its stack).
    assert.equal(byLine.get(31)?.freedBytes, 1000);
    assert.equal(byLine.get(31)?.allocCount, 0);
    // library and C++ frames are never lines by default.
    assert.deepEqual([...byLine.keys()].sort(), [20, 30, 31]);
  });

  it('can attribute to library frames when asked', () => {
    const a = analyse(rawSnapshot([[ev('alloc', 1, 8, [cpp, lib(100), user(20)])]]), { includeLibraryFrames: true });
    const rows = toReport(a).devices[0].lines;
    assert.deepEqual(
      rows.map((r) => [r.file.endsWith('functional.py'), r.allocBytes, r.inclusiveAllocBytes]),
      [
        [false, 0, 8],
        [true, 8, 8],
      ],
    );
  });

  it('treats extra library paths like site-packages', () => {
    const a = analyse(rawSnapshot([[ev('alloc', 1, 8, [frame('/opt/vendor/kernels.py', 5), user(20)])]]), { extraLibraryPaths: ['/OPT/vendor/'] });
    assert.deepEqual(
      toReport(a).devices[0].lines.map((r) => [r.line, r.allocBytes]),
      [[20, 8]],
    );
  });

  it('sorts rows by file then line and keeps lines beyond 2^53 exact', () => {
    const huge = 18446744073709551615n;
    const a = analyse(
      rawSnapshot([[ev('alloc', 1, 1, [frame('/b.py', 2)]), ev('alloc', 2, 1, [frame('/a.py', huge)]), ev('alloc', 3, 1, [frame('/a.py', 7)])]]),
    );
    assert.deepEqual(
      toReport(a).devices[0].lines.map((r) => `${r.file}:${String(r.line)}`),
      ['/a.py:7', `/a.py:${huge}`, '/b.py:2'],
    );
  });

  it('names the line that reached the peak and ranks lines by memory live at the peak', () => {
    const a = analyse(rawSnapshot([[ev('alloc', 1, 10, [user(1)]), ev('alloc', 2, 30, [user(2)]), ev('free_completed', 1, 10), ev('alloc', 3, 5, [user(3)])]]));
    const d = a.devices[0];
    assert.equal(d.peakEventIndex, 1);
    assert.equal(peakLine(a, d)?.line, 2);
    assert.deepEqual(
      topLines(d, 2).map((l) => l.line),
      [2, 1],
    );
  });
});

describe('devices', () => {
  it('lists every device with segments or a non-empty trace, ascending', () => {
    const a = analyse(rawSnapshot([[], [ev('alloc', 1, 4)], [], []], [segment(2, 0, 64)]));
    assert.deepEqual(
      a.devices.map((d) => d.device),
      [1, 2],
    );
  });

  it('reads PyTorch 2.0 blocks: address from the segment and the sizes before, frames from history', () => {
    const a = analyse({
      segments: [
        {
          device: 0,
          address: 1000,
          total_size: 300,
          blocks: [
            { size: 100, state: 'inactive' },
            { size: 200, state: 'active_allocated', history: [{ addr: 1100, real_size: 200, frames: [user(77)] }] },
          ],
        },
      ],
      device_traces: [[ev('free_completed', 1100, 200)]],
    });
    assert.equal(a.snapshot.layout, 'torch-2.0-history');
    assert.equal(a.snapshot.segments[0].blocks[1].address, 1100);
    // The live block at 1100 is freed in the trace without an alloc: initial = 200 (free) + 200
    // (live at end per segments, not live after the replay) = 400; peak is initial.
    const d = a.devices[0];
    assert.equal(d.initialActiveBytes, 400);
    assert.equal(d.peakEventIndex, -1);
    assert.equal(toReport(a).devices[0].lines[0].liveAtPeakBytes, 200);
  });

  it('reads a bare list of segments', () => {
    const a = analyse([segment(0, 0, 4096, [{ address: 0, size: 512, state: 'active_allocated', frames: [user(3)] }])]);
    assert.equal(a.snapshot.layout, 'segments-list');
    assert.equal(a.devices[0].peakBytes, 512);
    assert.equal(a.devices[0].finalReservedBytes, 4096);
  });

  it('records OOM events with the free device memory', () => {
    const a = analyse(rawSnapshot([[ev('alloc', 1, 10, [user(1)]), ev('oom', 0, 1 << 30, [user(9)], { device_free: 12345 })]]));
    assert.deepEqual(a.devices[0].ooms, [{ eventIndex: 1, requestedBytes: 1 << 30, deviceFreeBytes: 12345, stack: a.snapshot.traces[0].stack[1] }]);
  });
});
