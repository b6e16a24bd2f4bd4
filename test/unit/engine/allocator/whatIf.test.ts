/**
 * Predictions on hand-written recordings, each worked out by hand: what the allocator reserves,
 * how many cudaMallocs, and where and why it runs out on a smaller device or under other settings.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AllocatorStudy } from '../../../../src/engine/session/allocatorStudy';
import { settingsOf } from '../../../../src/engine/allocator/selfCheck';
import { applyAllocConf } from '../../../../src/engine/allocator/settings';
import { GiB, MiB } from '../../../../src/engine/allocator/sizes';
import { chooseMaxSplit, whatIf, whatIfBasis, whatIfTable } from '../../../../src/engine/allocator/whatIf';
import { buildLineIndex } from '../../../../src/engine/analysis/lineIndex';
import { userFramePredicate } from '../../../../src/engine/analysis/frameFilter';
import { RecordedTrace } from '../../../helpers/recordedTrace';
import { user, userPath } from '../../../helpers/traceBuilder';

const S = 0x7f00_0000_0000;
const U = 0x7f20_0000_0000;
const V = 0x7f30_0000_0000;

/** 600 MiB allocated and freed, then 700 MiB: recorded on a large GPU (no release). */
function growing() {
  const t = new RecordedTrace()
    .segmentAlloc(S, 600 * MiB, [user('t.py', 1)])
    .alloc(S, 600 * MiB, [user('t.py', 1)])
    .free(S, 600 * MiB)
    .segmentAlloc(U, 700 * MiB, [user('t.py', 2)])
    .alloc(U, 700 * MiB, [user('t.py', 2)]);
  return t.snapshot(
    [
      { address: S, type: 'large', blocks: [[600 * MiB, 'inactive']] },
      { address: U, type: 'large', blocks: [[700 * MiB, 'active_allocated']] },
    ],
    {},
  );
}

/**
 * 600 MiB allocated and freed, cut into three 200 MiB blocks, the first and third freed (400 MiB
 * free in two pieces), then 300 MiB: PyTorch made a new segment for it.
 */
function fragmented() {
  const line = (n: number) => [user('f.py', n)];
  const t = new RecordedTrace()
    .segmentAlloc(S, 600 * MiB, line(1))
    .alloc(S, 600 * MiB, line(1))
    .free(S, 600 * MiB)
    .alloc(S, 200 * MiB, line(2))
    .alloc(S + 200 * MiB, 200 * MiB, line(3))
    .alloc(S + 400 * MiB, 200 * MiB, line(4))
    .free(S, 200 * MiB)
    .free(S + 400 * MiB, 200 * MiB)
    .segmentAlloc(V, 300 * MiB, line(5))
    .alloc(V, 300 * MiB, line(5));
  return t.snapshot(
    [
      { address: S, type: 'large', blocks: [[200 * MiB, 'inactive'], [200 * MiB, 'active_allocated'], [200 * MiB, 'inactive']] },
      { address: V, type: 'large', blocks: [[300 * MiB, 'active_allocated']] },
    ],
    {},
  );
}

/**
 * Recording began mid-run: a 600 MiB segment S held a 500 MiB tensor (never freed) and U a cached
 * 100 MiB segment, both from before recording. The trace allocates 80 MiB from the free end of S
 * (best fit: S's and U's free 100 MiB blocks tie, S has the lower address; 20 MiB split off), then,
 * with `grow`, 150 MiB, which nothing cached holds: a new segment V.
 */
function beganMidRun(grow = true) {
  const t = new RecordedTrace().alloc(S + 500 * MiB, 80 * MiB, [user('m.py', 1)]);
  if (grow) t.segmentAlloc(V, 150 * MiB, [user('m.py', 2)]).alloc(V, 150 * MiB, [user('m.py', 2)]);
  return t.snapshot(
    [
      { address: S, type: 'large', blocks: [[500 * MiB, 'active_allocated'], [80 * MiB, 'active_allocated'], [20 * MiB, 'inactive']] },
      { address: U, type: 'large', blocks: [[100 * MiB, 'inactive']] },
      ...(grow ? [{ address: V, type: 'large' as const, blocks: [[150 * MiB, 'active_allocated']] as const }] : []),
    ],
    {},
  );
}

describe('allocator what-if from a recording that began mid-run', () => {
  // When recording began: 700 MiB reserved (S and U), 500 MiB allocated (the tensor in S).
  const started = { reservedBytes: 700 * MiB, allocatedBytes: 500 * MiB, neededBytes: 500 * MiB };

  it('the self-check agrees with the recording (so the cases below are what PyTorch would do)', () => {
    const basis = whatIfBasis(beganMidRun(), 0);
    assert.equal(basis.check.clean, true);
    assert.equal(basis.check.peakReservedBytes, 850 * MiB);
  });

  it('more allocated when recording began than the GPU holds: does not fit, certainly, and nothing is replayed', () => {
    const r = whatIf(whatIfBasis(beganMidRun(), 0), { settings: settingsOf(beganMidRun()), capacity: 400 * MiB });
    assert.equal(r.fits, false);
    assert.equal(r.replayed, false);
    assert.deepEqual(r.start, { outcome: 'allocated', limitBytes: 400 * MiB, ...started, keptBytes: 700 * MiB });
    assert.deepEqual([r.peakReservedBytes, r.cudaMallocs, r.oom], [null, null, null]);
  });

  it('a memory fraction counts: 500 MiB allocated do not fit half of 900 MiB', () => {
    const r = whatIf(whatIfBasis(beganMidRun(), 0), { settings: settingsOf(beganMidRun()), capacity: 900 * MiB, memoryFraction: 0.5 });
    assert.equal(r.fits, false);
    assert.equal(r.start?.limitBytes, 450 * MiB);
  });

  it('the tensors fit but the segment holding them does not (S stays 600 MiB: its free end cannot be released): unknown', () => {
    const r = whatIf(whatIfBasis(beganMidRun(), 0), { settings: settingsOf(beganMidRun()), capacity: 550 * MiB });
    assert.equal(r.fits, null);
    assert.equal(r.replayed, false);
    assert.deepEqual(r.start, { outcome: 'reserved', limitBytes: 550 * MiB, ...started, keptBytes: 600 * MiB });
  });

  it('only a cached segment held the excess: the replay releases U first, then runs from the 600 MiB left', () => {
    const fitting = whatIfBasis(beganMidRun(false), 0);
    const r = whatIf(fitting, { settings: settingsOf(fitting.snapshot), capacity: 650 * MiB });
    assert.deepEqual(r.start, { outcome: 'released', limitBytes: 650 * MiB, ...started, keptBytes: 600 * MiB });
    // 80 MiB from the free end of S: nothing new, and the release before recording is not counted.
    assert.deepEqual([r.fits, r.replayed, r.peakReservedBytes, r.cudaMallocs, r.cudaFrees], [true, true, 600 * MiB, 0, 0]);
    // With V's 150 MiB too: 600 + 150 MiB does not fit 650 and nothing cached is whole: capacity (20 MiB free).
    const growing = whatIfBasis(beganMidRun(), 0);
    const tight = whatIf(growing, { settings: settingsOf(growing.snapshot), capacity: 650 * MiB });
    assert.deepEqual([tight.fits, tight.peakReservedBytes, tight.oom?.event, tight.oom?.cause, tight.oom?.reservedBytes], [false, 600 * MiB, 2, 'capacity', 600 * MiB]);
    // 800 MiB holds the start as it was: V's cudaMalloc fails once, U is released, the retry succeeds.
    const roomy = whatIf(growing, { settings: settingsOf(growing.snapshot), capacity: 800 * MiB });
    assert.deepEqual([roomy.start, roomy.fits, roomy.peakReservedBytes, roomy.cudaMallocs, roomy.cudaFrees], [null, true, 750 * MiB, 1, 1]);
  });

  it('the table says the same in each cell: fits, OOM, or unknown with its reason', () => {
    const basis = whatIfBasis(beganMidRun(), 0);
    const row = whatIfTable(basis, [400 * MiB, 550 * MiB, 650 * MiB, 800 * MiB, GiB]).rows[0];
    assert.deepEqual(
      row.cells.map((c) => [c.fits, c.start?.outcome ?? null, c.peakReservedBytes]),
      [
        [false, 'allocated', null],
        [null, 'reserved', null],
        [false, 'released', 600 * MiB],
        [true, null, 750 * MiB],
        [true, null, 850 * MiB],
      ],
    );
    assert.equal(row.unlimited.peakReservedBytes, 850 * MiB);
  });
});

describe('allocator what-if', () => {
  it('with no limit, reserves what PyTorch reserved (the recording made again)', () => {
    const basis = whatIfBasis(growing(), 0);
    const r = whatIf(basis, { settings: settingsOf(basis.snapshot) });
    assert.deepEqual(
      [r.peakReservedBytes, r.reservedFreeAtPeakBytes, r.cudaMallocs, r.cudaFrees, r.oom, r.capacityBytes],
      [1300 * MiB, 600 * MiB, 2, 0, null, null],
    );
  });

  it('on a device of 1 GiB, releases the cached 600 MiB segment to make room for 700 MiB', () => {
    const basis = whatIfBasis(growing(), 0);
    const r = whatIf(basis, { settings: settingsOf(basis.snapshot), capacity: GiB });
    assert.deepEqual([r.peakReservedBytes, r.cudaMallocs, r.cudaFrees, r.oom], [700 * MiB, 2, 1, null]);
  });

  it('on a device of 650 MiB, runs out at the 700 MiB request with nothing left to release: capacity', () => {
    const snap = growing();
    const index = buildLineIndex(snap, userFramePredicate());
    const basis = whatIfBasis(snap, 0, index);
    const r = whatIf(basis, { settings: settingsOf(snap), capacity: 650 * MiB });
    assert.deepEqual(r.oom, {
      event: 5,
      file: userPath('t.py'),
      line: 2,
      requestedBytes: 700 * MiB,
      reservedBytes: 0,
      largestFreeBytes: 0,
      cause: 'capacity',
      recorded: false,
    });
    assert.equal(r.peakReservedBytes, 600 * MiB);
  });

  it('names fragmentation: 400 MiB free in two 200 MiB pieces, none fits 300 MiB, the segment cannot be released', () => {
    const basis = whatIfBasis(fragmented(), 0);
    const r = whatIf(basis, { settings: settingsOf(basis.snapshot), capacity: 650 * MiB });
    assert.equal(r.oom?.event, 12);
    assert.equal(r.oom?.cause, 'fragmentation');
    assert.equal(r.oom?.reservedBytes, 600 * MiB);
    assert.equal(r.oom?.largestFreeBytes, 200 * MiB);
  });

  it('with expandable segments the same program fits in 650 MiB: free pages are unmapped and mapped again where 300 MiB fits', () => {
    const basis = whatIfBasis(fragmented(), 0);
    const settings = applyAllocConf(settingsOf(basis.snapshot), 'expandable_segments:True');
    const r = whatIf(basis, { settings, capacity: 650 * MiB });
    assert.equal(r.oom, null);
    // Mapped 600 MiB; on the 300 MiB request mapping 100 MiB more fails, both free 200 MiB runs are unmapped
    // (200 MiB left mapped), then 300 MiB are mapped after the live middle block: 500 MiB.
    assert.equal(r.peakReservedBytes, 600 * MiB);
    assert.deepEqual([r.cudaMallocs, r.cudaFrees], [2, 2]);
  });

  it('fills the table: fits where the device holds the peak, else the first failing allocation', () => {
    const basis = whatIfBasis(fragmented(), 0);
    const table = whatIfTable(basis, [650 * MiB, 700 * MiB, GiB]);
    const recorded = table.rows.find((r) => r.kind === 'recorded')!;
    assert.equal(recorded.unlimited.peakReservedBytes, 900 * MiB);
    assert.deepEqual(
      recorded.cells.map((c) => (c.fits ? 'fits' : c.oom?.cause)),
      ['fragmentation', 'fragmentation', 'fits'],
    );
    const expandable = table.rows.find((r) => r.kind === 'expandable')!;
    assert.equal(expandable.label, 'expandable_segments:True');
    assert.deepEqual(
      expandable.cells.map((c) => c.fits),
      [true, true, true],
    );
  });

  it('chooses max_split_size_mb at the size of 90% of the large allocations, at least 32 MiB', () => {
    const basis = whatIfBasis(fragmented(), 0);
    // Allocations over 1 MiB: 600, 200, 200, 200, 300 MiB; the 90th percentile is 600 MiB: 1024 MiB.
    assert.equal(chooseMaxSplit(basis, settingsOf(basis.snapshot)).maxSplitSize, 1024 * MiB);
  });

  it('the study answers a what-if request with an alloc-conf string, and the recording implies the capacity when it ran short', () => {
    const ctx = [user('a.py', 5)];
    const t = new RecordedTrace()
      .segmentAlloc(S, 600 * MiB, ctx)
      .alloc(S, 600 * MiB, ctx)
      .free(S, 600 * MiB)
      .segmentFree(S, 600 * MiB, ctx)
      .segmentAlloc(U, 700 * MiB, ctx)
      .alloc(U, 700 * MiB, ctx);
    const study = new AllocatorStudy(t.snapshot([{ address: U, type: 'large', blocks: [[700 * MiB, 'active_allocated']] }], {}), 0);
    const asRecorded = study.whatIf({});
    assert.deepEqual([asRecorded.capacityBytes, asRecorded.peakReservedBytes, asRecorded.cudaMallocs, asRecorded.cudaFrees], [700 * MiB, 700 * MiB, 2, 1]);
    const unlimited = study.whatIf({ capacity: 10 * GiB });
    assert.equal(unlimited.peakReservedBytes, 1300 * MiB, 'with room, nothing is released');
    assert.throws(() => study.whatIf({ allocConf: 'max_split_size_mb:1' }), /max_split_size_mb must be >= 20/);
  });
});
