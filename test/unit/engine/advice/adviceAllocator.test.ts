/**
 * The advice that rests on the allocator replay: a setting is suggested only when its replay helps,
 * with the replay's figures (worked out by hand below), and empty_cache() calls are priced in
 * cudaMallocs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { advise } from '../../../../src/engine/advice/advise';
import { allocatorSettings } from '../../../../src/engine/advice/rules/allocatorSettings';
import { emptyCacheInLoop } from '../../../../src/engine/advice/rules/emptyCacheInLoop';
import { MiB } from '../../../../src/engine/allocator/sizes';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import type { Snapshot } from '../../../../src/engine/snapshot/model';
import { RecordedTrace } from '../../../helpers/recordedTrace';
import type { TestFrame } from '../../../helpers/traceBuilder';
import { GiB, TraceBuilder, native, torch, user, userPath } from '../../../helpers/traceBuilder';

const S = 0x7f00_0000_0000;
const V = 0x7f30_0000_0000;

function findings(snap: Snapshot, rule = allocatorSettings) {
  return advise(analyzeSnapshot(snap), { rules: [rule] });
}

/** 600 MiB freed and cut into three 200 MiB blocks, the outer two freed; then 300 MiB ran out of memory with 50 MiB free on the device. */
function oomBySplitting(): Snapshot {
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
    .oom(300 * MiB, 50 * MiB, line(5));
  return t.snapshot([{ address: S, type: 'large', blocks: [[200 * MiB, 'inactive'], [200 * MiB, 'active_allocated'], [200 * MiB, 'inactive']] }], {});
}

/**
 * A 770 MiB block freed; 21 requests of 120 MiB split it (20 freed at once, the last kept); then
 * 760 MiB does not fit in the 650 MiB left, so PyTorch made a new segment: 1530 MiB reserved.
 */
function splitThenLarge(): Snapshot {
  const t = new RecordedTrace().segmentAlloc(S, 770 * MiB, [user('g.py', 1)]).alloc(S, 770 * MiB, [user('g.py', 1)]).free(S, 770 * MiB);
  for (let k = 0; k < 20; k++) t.alloc(S, 120 * MiB, [user('g.py', 2)]).free(S, 120 * MiB);
  t.alloc(S, 120 * MiB, [user('g.py', 3)]).segmentAlloc(V, 760 * MiB, [user('g.py', 4)]).alloc(V, 760 * MiB, [user('g.py', 4)]);
  return t.snapshot(
    [
      { address: S, type: 'large', blocks: [[120 * MiB, 'active_allocated'], [650 * MiB, 'inactive']] },
      { address: V, type: 'large', blocks: [[760 * MiB, 'active_allocated']] },
    ],
    {},
  );
}

describe('advice from the allocator replay', () => {
  it('suggests expandable segments when their replay avoids the recorded OOM, on the memory the recording had', () => {
    const [f, ...rest] = findings(oomBySplitting());
    assert.equal(rest.length, 0);
    assert.equal(f.rule, 'allocator-settings');
    assert.equal(f.severity, 'warning');
    assert.deepEqual([f.file, f.line], [userPath('f.py'), 5]);
    assert.equal(f.title, 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True avoids the OOM in the replay');
    // 600 MiB reserved + 50 MiB free = 650 MiB. Expandable: 600 MiB mapped; the 300 MiB request cannot map 100 MiB more,
    // so both free 200 MiB runs are unmapped and 300 MiB mapped after the live block: never more than 600 MiB, two mappings.
    assert.deepEqual(f.evidence, {
      peakReservedBytes: 600 * MiB,
      predictedPeakReservedBytes: 600 * MiB,
      cudaMallocCount: 1,
      predictedCudaMallocCount: 2,
      capacityBytes: 650 * MiB,
      oomEvent: 11,
    });
    assert.match(f.message, /runs out of memory at event 11 \(f\.py:5\) with the recorded settings \(fragmentation\)/);
  });

  it('suggests the setting whose replay reserves least, when it saves at least 10% and 256 MiB', () => {
    const [f, ...rest] = findings(splitThenLarge());
    assert.equal(rest.length, 0);
    // Expandable: 770 MiB maps 39 pages (780 MiB); the 120 MiB requests split it; 760 MiB maps 5 more pages beside the
    // 660 MiB left free: 880 MiB. (max_split_size_mb:128 would reserve 770 + 120 = 890 MiB: it saves less.)
    assert.equal(f.severity, 'information');
    assert.equal(f.title, 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True lowers peak reserved memory by 650.0 MiB in the replay');
    assert.deepEqual(f.evidence, { peakReservedBytes: 1530 * MiB, predictedPeakReservedBytes: 880 * MiB, savedBytes: 650 * MiB, cudaMallocCount: 2, predictedCudaMallocCount: 2 });
  });

  it('stays silent when no setting helps enough, and when the replay does not reproduce the recording', () => {
    const line = [user('h.py', 1)];
    const small = new RecordedTrace().segmentAlloc(S, 600 * MiB, line).alloc(S, 600 * MiB, line);
    assert.deepEqual(findings(small.snapshot([{ address: S, type: 'large', blocks: [[600 * MiB, 'active_allocated']] }], {})), []);
    // TraceBuilder's addresses do not follow the allocator's rules: the self-check departs, so nothing is predicted.
    const b = new TraceBuilder();
    b.segmentAlloc(4 * GiB);
    b.alloc(GiB, [user('train.py', 5)]);
    b.oom(4 * GiB, 0, [user('train.py', 6)]);
    assert.deepEqual(findings(b.snapshot()), []);
  });

  it('prices empty_cache() calls in a loop in cudaMallocs and cudaFrees', () => {
    const emptyCache = (line: number): TestFrame[] => [native('c10::cuda::CUDACachingAllocator::emptyCache()'), torch('cuda/memory.py', 218, 'empty_cache'), user('loop.py', line)];
    const t = new RecordedTrace();
    for (let k = 0; k < 3; k++) {
      t.segmentAlloc(S, 64 * MiB, [user('loop.py', 10)]).alloc(S, 64 * MiB, [user('loop.py', 10)]).free(S, 64 * MiB).segmentFree(S, 64 * MiB, emptyCache(12));
    }
    const [f] = findings(t.snapshot([], {}), emptyCacheInLoop);
    // With the calls: 3 segments made and 3 released; without: the first segment is made once and reused.
    assert.equal(f.evidence.emptyCacheCallCount, 3);
    assert.equal(f.evidence.cudaMallocsCausedCount, 2);
    assert.equal(f.evidence.cudaFreesCausedCount, 3);
    // Reserved peaks at 64 MiB either way: the calls release and remake the same segment.
    assert.deepEqual([f.evidence.peakReservedBytes, f.evidence.peakReservedWithoutEmptyCacheBytes], [64 * MiB, 64 * MiB]);
    assert.match(f.message, /its 3 calls cost 2 cudaMallocs and 3 cudaFrees \(0\.7 cudaMallocs per call\)/);
  });
});
