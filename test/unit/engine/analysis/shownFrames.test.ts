/**
 * Stacks shown to people start past the unwinder's and the allocator's own frames, and say how many
 * they hid; the timeline's block details carry that count and, for blocks without a line, the bucket.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { isAllocatorFrame, skipAllocatorFrames } from '../../../../src/engine/analysis/shownFrames';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { TimelineQueries } from '../../../../src/engine/timeline/queries';
import { corpusDir, corpusMissing } from '../../../helpers/corpus';

const f = (name: string, filename = '??') => ({ name, filename, line: 0 });

/** The innermost frames of a backward-pass allocation as PyTorch 2.8 records them (names as written). */
const BACKWARD_ALLOC = [
  f('torch::unwind::unwind()'),
  f('torch::CapturedTraceback::gather(bool, bool, bool)'),
  f('torch::cuda::(anonymous namespace)::gather_with_cpp()', 'memory_snapshot.cpp'),
  f('c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(unsigned long, CUstream_st*)', 'CUDACachingAllocator.cpp'),
  f('c10::cuda::CUDACachingAllocator::Native::NativeCachingAllocator::malloc(void**, signed char, unsigned long, CUstream_st*)', ''),
  f('c10::cuda::CUDACachingAllocator::Native::NativeCachingAllocator::allocate(unsigned long)', ''),
  f('at::detail::empty_generic(c10::ArrayRef<long>, c10::Allocator*, c10::DispatchKeySet, c10::ScalarType)'),
  f('at::detail::empty_cuda(c10::ArrayRef<long>, c10::TensorOptions const&)'),
  f('at::(anonymous namespace)::create_out(c10::ArrayRef<long>, c10::ArrayRef<long>, c10::TensorOptions const&)', 'RegisterCUDA_0.cpp'),
  f('at::TensorIteratorBase::allocate_or_resize_outputs()'),
  f('at::TensorIteratorBase::build(at::TensorIteratorConfig&)'),
  f('at::_ops::div_Tensor::call(at::Tensor const&, at::Tensor const&)'),
  f('torch::autograd::generated::MeanBackward0::apply(std::vector<at::Tensor>&&)', 'Functions.cpp'),
];

describe('skipAllocatorFrames', () => {
  it('starts at the first frame past the unwinder and the allocator, counting what it hid', () => {
    const shown = skipAllocatorFrames(BACKWARD_ALLOC);
    assert.equal(shown.hidden, 10);
    assert.equal(shown.frames[0].name, 'at::TensorIteratorBase::build(at::TensorIteratorConfig&)');
    assert.equal(shown.frames.length, 3);
  });

  it('hides only the innermost run: the same names further out stay', () => {
    const shown = skipAllocatorFrames([f('torch::unwind::unwind()'), f('at::native::add'), f('c10::cuda::CUDACachingAllocator::emptyCache()')]);
    assert.deepEqual(shown.frames.map((x) => x.name), ['at::native::add', 'c10::cuda::CUDACachingAllocator::emptyCache()']);
    assert.equal(shown.hidden, 1);
  });

  it('leaves Python frames and stacks of nothing else alone', () => {
    const python = [{ name: 'forward', filename: '/proj/model.py', line: 39 }];
    assert.deepEqual(skipAllocatorFrames(python), { frames: python, hidden: 0 });
    assert.equal(isAllocatorFrame(python[0]), false);
    const only = BACKWARD_ALLOC.slice(0, 3);
    assert.deepEqual(skipAllocatorFrames(only), { frames: only, hidden: 0 });
    assert.deepEqual(skipAllocatorFrames([]), { frames: [], hidden: 0 });
  });
});

describe('timeline block detail: trimmed stacks and the bucket of blocks without a line', { skip: corpusMissing }, () => {
  it('a backward-pass block of wedsonlin names its autograd node and starts past the allocator', () => {
    const analysis = analyzeSnapshot(snapshotFromBytes(readFileSync(path.join(corpusDir, 'wedsonlin-cs336-medium-512-training.pickle'))));
    const device = analysis.devices[0];
    const timeline = new TimelineQueries(analysis.snapshot, () => analysis);
    const live = device.liveAtPeak.find((b) => device.buckets.bucketOf(b.record)?.label === 'NegBackward0');
    assert.ok(live, 'a NegBackward0 block is live at the peak (its bucket in peakBreakdown)');
    const block = timeline.block(0, live.record, 50);
    assert.deepEqual(block.bucket, { kind: 'backward', label: 'NegBackward0' });
    assert.equal(block.line, undefined);
    assert.ok(block.hiddenFrames >= 3, `${block.hiddenFrames} frames hidden`);
    assert.ok(!/unwind|CapturedTraceback|CUDACachingAllocator/.test(block.frames[0].name), block.frames[0].name);
    // A block of a line carries no bucket.
    const held = device.liveAtPeak.find((b) => device.buckets.bucketOf(b.record) === undefined);
    assert.ok(held);
    assert.equal(timeline.block(0, held.record, 5).bucket, undefined);
  });
});
