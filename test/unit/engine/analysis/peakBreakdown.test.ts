/**
 * "Explaining the peak" on a hand-built snapshot: every bucket kind, requested sizes for blocks from
 * before recording, blocks live all along attributed by their own frames, nested and unclosed
 * annotation ranges; expected figures worked out by hand from the contract's text. Also runs the
 * Python oracle's own hand-computed tests, so the oracle the corpus test trusts is checked too.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { describeBucket } from '../../../../src/engine/analysis/peakBreakdown';
import { AnnotationIndex, annotationRanges, innermostRange } from '../../../../src/engine/analysis/annotationRanges';
import { toReport } from '../../../../src/engine/analysis/report';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import type { PlainValue } from '../../../../src/engine/pickle/encoder';
import { encodePickle } from '../../../../src/engine/pickle/encoder';
import { repoRoot } from '../../../helpers/corpus';

const U = '/home/me/proj/train.py';
const M = '/home/me/proj/model.py';
const LIB = '/usr/lib/python3.11/site-packages/torch/nn/modules/module.py';
const fr = (filename: string, line: number, name = 'f'): PlainValue => ({ filename, line, name });
const CPP = fr('??', 0, 'c10::cuda::CUDACachingAllocator::malloc');
const MM = fr('??', 0, 'torch::autograd::generated::MmBackward0::apply(std::vector<at::Tensor>&&)');
const ACC = fr('??', 0, 'torch::autograd::AccumulateGrad::apply(std::vector<at::Tensor>&&)');
const ENGINE = fr('??', 0, 'torch::autograd::Engine::thread_main(std::shared_ptr<torch::autograd::GraphTask> const&)');

function ev(action: string, addr: number, size: number, timeUs: number, frames: PlainValue[] = []): PlainValue {
  return { action, addr, size, stream: 0, time_us: timeUs, frames };
}
function blk(address: number, size: number, requested: number, state: string, frames: PlainValue[]): PlainValue {
  return { address, size, requested_size: requested, state, frames };
}

const SNAPSHOT: PlainValue = {
  segments: [
    {
      device: 0,
      address: 0x10000,
      total_size: 8192,
      stream: 0,
      segment_type: 'large',
      frames: [],
      blocks: [
        blk(0x10000, 512, 500, 'active_allocated', [fr(M, 7)]),
        blk(0x10200, 512, 300, 'active_allocated', []),
        blk(0x10400, 512, 200, 'active_allocated', [fr(LIB, 10)]),
        blk(0x10600, 1024, 1024, 'active_allocated', [fr(U, 1)]),
        blk(0x10a00, 5632, 5632, 'inactive', []),
      ],
    },
  ],
  device_traces: [
    [
      ev('free_completed', 0x90000, 64, 1),
      ev('alloc', 0x10600, 1024, 2, [fr(U, 1)]),
      ev('alloc', 0x20000, 100, 3, [CPP, MM, ENGINE]),
      ev('alloc', 0x20100, 50, 4, [CPP, ACC, ENGINE]),
      ev('alloc', 0x20200, 40, 5, [CPP, ENGINE]),
      ev('alloc', 0x20300, 30, 25, [CPP]),
      ev('alloc', 0x20400, 20, 12, [CPP]),
      ev('alloc', 0x20500, 10, 9, [CPP]),
      ev('alloc', 0x20600, 8, 50, [fr(LIB, 10)]),
      ev('free_completed', 0xa0000, 16, 60),
    ],
  ],
  external_annotations: [
    { stage: 'END', name: 'outer', device: 0, time_us: 2 },
    { stage: 'START', name: 'outer', device: 0, time_us: 10 },
    { stage: 'START', name: 'inner', device: 0, time_us: 20 },
    { stage: 'END', name: 'inner', device: 0, time_us: 30 },
    { stage: 'START', name: 'elsewhere', device: 1, time_us: 0 },
  ],
};

describe('peakBreakdown: every live-at-peak byte no line holds, by bucket', () => {
  const analysis = analyzeSnapshot(snapshotFromBytes(encodePickle(SNAPSHOT)));
  const [device] = toReport(analysis).devices;

  it('counts blocks from before recording by their requested size', () => {
    assert.equal(device.initialActiveBytes, 64 + 16 + 500 + 300 + 200);
    assert.equal(device.peakEventIndex, 8);
    assert.equal(device.peakBytes, 1080 - 64 + 1024 + 100 + 50 + 40 + 30 + 20 + 10 + 8);
  });

  it('attributes a block live all along to the line of its own frames', () => {
    const model = device.lines.find((l) => l.file === M && l.line === 7);
    assert.equal(model?.liveAtPeakBytes, 500);
    assert.equal(model?.allocBytes, 0);
  });

  it('names every bucket, ordered by bytes', () => {
    assert.deepEqual(device.peakBreakdown, [
      { kind: 'beforeRecording', label: '', bytes: 300 + 16 },
      { kind: 'library', label: 'module.py', bytes: 200 },
      { kind: 'backward', label: 'MmBackward0', bytes: 100 },
      { kind: 'backward', label: 'AccumulateGrad', bytes: 50 },
      { kind: 'backward', label: 'autograd', bytes: 40 },
      { kind: 'annotation', label: 'inner', bytes: 30 },
      { kind: 'annotation', label: 'outer', bytes: 20 + 8 },
      { kind: 'noFrames', label: '', bytes: 10 },
    ]);
    const held = device.lines.reduce((s, l) => s + l.liveAtPeakBytes, 0);
    assert.equal(held + device.peakBreakdown.reduce((s, b) => s + b.bytes, 0), device.peakBytes);
  });

  it('reads annotation ranges: END closes the latest open START of its name, equal starts go to the later START', () => {
    const at = (stage: string, name: string, timeUs: number) => ({ stage, name, device: 0, timeUs });
    const ranges = annotationRanges([at('START', 'a', 5), at('START', 'a', 7), at('END', 'a', 8), at('START', 'b', 7), at('END', 'a', 20)], 0);
    assert.deepEqual(
      ranges.map((r) => [r.name, r.start, r.end]),
      [['a', 5, 20], ['a', 7, 8], ['b', 7, Infinity]],
    );
    assert.equal(innermostRange(ranges, 7)?.name, 'b');
    assert.equal(innermostRange(ranges, 8)?.name, 'b');
    assert.equal(innermostRange(ranges, 5)?.name, 'a');
    assert.equal(innermostRange(ranges, 4), undefined);
    assert.equal(innermostRange(ranges, NaN), undefined);
    const index = new AnnotationIndex(ranges);
    for (const t of [4, 5, 6, 7, 8, 9, 20, 21, NaN]) assert.equal(index.innermost(t), innermostRange(ranges, t), `t = ${t}`);
  });

  it('the annotation index answers as the scan of every range does (random nested, overlapping, open and equal-start ranges)', () => {
    let seed = 12345;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let trial = 0; trial < 200; trial++) {
      const annotations = [];
      const count = 1 + random(40);
      for (let i = 0; i < count; i++) {
        annotations.push({ stage: random(3) === 0 ? 'END' : 'START', name: `r${random(4)}`, device: random(5) === 0 ? 1 : 0, timeUs: random(60) });
      }
      const ranges = annotationRanges(annotations, 0);
      const index = new AnnotationIndex(ranges);
      for (let t = -1; t <= 61; t++) assert.equal(index.innermost(t), innermostRange(ranges, t), `trial ${trial}, t = ${t}`);
    }
    assert.equal(new AnnotationIndex([]).innermost(3), undefined);
  });

  it('reads to people as the issue words them', () => {
    assert.equal(describeBucket('backward', 'BmmBackward0'), 'backward: BmmBackward0');
    assert.equal(describeBucket('backward', 'AccumulateGrad'), 'gradients (AccumulateGrad)');
    assert.equal(describeBucket('annotation', 'Optimizer.step#AdamW.step'), 'inside Optimizer.step#AdamW.step');
    assert.equal(describeBucket('beforeRecording', ''), 'allocated before recording began');
  });
});

describe('the Python oracle passes its own hand-computed tests', () => {
  it('python3 test/reference/test_spec_reference.py', () => {
    const script = path.join(repoRoot, 'test', 'reference', 'test_spec_reference.py');
    execFileSync('python3', [script], { stdio: 'pipe' });
  });
});
