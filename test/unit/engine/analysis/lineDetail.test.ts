/**
 * Per-line hover details and per-function figures, on a snapshot small enough to work out by hand,
 * and on the corpus against the Python oracle's per-line figures.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { lineDetail } from '../../../../src/engine/analysis/lineDetail';
import { rangeFigures } from '../../../../src/engine/analysis/rangeFigures';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { snapshotFromPickle } from '../../../../src/engine/snapshot/fromPickle';
import { corpusDir, corpusMissing, referenceAnalysis } from '../../../helpers/corpus';
import { ev, frame, rawSnapshot } from '../../../helpers/traces';

const model10 = frame('/p/model.py', 10, 'forward');
const model20 = frame('/p/model.py', 20, 'block');
const train5 = frame('/p/train.py', 5, 'main');
const linear = frame('/venv/lib/python3.11/site-packages/torch/nn/functional.py', 100, 'linear');
const cpp = frame('??', 0, 'at::empty');
const S0 = [linear, model10, model20, train5];
const S1 = [cpp, model20, train5];
const S2 = [cpp, linear, model10, model20, train5]; // the same Python frames as S0
const S3 = [train5];
// active after each event: 100, 400, 450, 450, 350, 1350 (the peak), 350, 550
const snapshot = snapshotFromPickle(
  rawSnapshot([
    [
      ev('alloc', 1, 100, S0),
      ev('alloc', 2, 300, S1),
      ev('alloc', 3, 50, S2),
      ev('free_requested', 1, 100, S0),
      ev('free_completed', 1, 100, S0),
      ev('alloc', 4, 1000, S3),
      ev('free_completed', 4, 1000, S3),
      ev('alloc', 5, 200, S0),
    ],
  ]),
);
const analysis = analyzeSnapshot(snapshot);
const device = analysis.devices[0];

describe('lineDetail on a hand-built snapshot', () => {
  it('lists the sizes of the allocations the line made itself, largest first', () => {
    const d = lineDetail(analysis, device, '/p/model.py', 10);
    assert.deepEqual(d.allocationSizes, [200, 100, 50]);
    assert.equal(d.allocationCount, 3);
  });

  it('caps the sizes but keeps the count', () => {
    const d = lineDetail(analysis, device, '/p/model.py', 10, { maxSizes: 2 });
    assert.deepEqual(d.allocationSizes, [200, 100]);
    assert.equal(d.allocationCount, 3);
  });

  it('names its largest allocation by record and alloc event, for the timeline', () => {
    const d = lineDetail(analysis, device, '/p/model.py', 10);
    assert.equal(d.largest?.allocEvent, 7);
    assert.equal(d.largest?.bytes, 200);
    assert.equal(d.largest?.self, true);
    assert.equal(device.allocations.allocEvent[d.largest.record], 7);
  });

  it('falls back to the largest allocation made through a line that allocates nothing itself', () => {
    const d = lineDetail(analysis, device, '/p/train.py', 5);
    assert.deepEqual(d.largest && { event: d.largest.allocEvent, bytes: d.largest.bytes, self: d.largest.self }, { event: 5, bytes: 1000, self: true });
    const framesOnly = snapshotFromPickle(rawSnapshot([[ev('alloc', 1, 64, [model10, train5])]]));
    const a = analyzeSnapshot(framesOnly);
    const caller = lineDetail(a, a.devices[0], '/p/train.py', 5);
    assert.equal(caller.allocationCount, 0);
    assert.deepEqual(caller.largest && { event: caller.largest.allocEvent, bytes: caller.largest.bytes, self: caller.largest.self }, { event: 0, bytes: 64, self: false });
  });

  it('lists the blocks it holds at the peak', () => {
    // Live after event 5: addr 2 (300, S1: self line model:20), addr 3 (50, S2: model:10), addr 4 (1000, S3: train:5).
    assert.deepEqual(lineDetail(analysis, device, '/p/model.py', 10).liveBlockSizes, [50]);
    assert.deepEqual(lineDetail(analysis, device, '/p/model.py', 20).liveBlockSizes, [300]);
    assert.deepEqual(lineDetail(analysis, device, '/p/train.py', 5).liveBlockSizes, [1000]);
  });

  it('groups stacks that differ only in C++ frames and ranks stacks by bytes', () => {
    const d = lineDetail(analysis, device, '/p/model.py', 20);
    assert.equal(d.stackCount, 2);
    assert.deepEqual(
      d.stacks.map((s) => [s.bytes, s.count]),
      [
        [350, 3],
        [300, 1],
      ],
    );
    assert.deepEqual(
      d.stacks[0].frames.map((f) => `${f.name}:${String(f.line)}:${f.user ? 'user' : 'lib'}`),
      ['linear:100:lib', 'forward:10:user', 'block:20:user', 'main:5:user'],
    );
    assert.deepEqual(
      d.stacks[1].frames.map((f) => f.name),
      ['block', 'main'],
      'C++ frames are left out',
    );
  });

  it('answers empty for a line the snapshot does not know', () => {
    const d = lineDetail(analysis, device, '/p/model.py', 11);
    assert.equal(d.allocationCount, 0);
    assert.equal(d.largest, undefined);
    assert.deepEqual(d.stacks, []);
  });
});

describe('rangeFigures on a hand-built snapshot', () => {
  it('counts each allocation once per function even when it passes through several of its lines', () => {
    const [f] = rangeFigures(analysis, device, [{ files: ['/p/model.py'], startLine: 10, endLine: 20 }]);
    // Allocations through model.py:10 or :20: events 0, 1, 2, 7 = 100 + 300 + 50 + 200.
    // Live at the peak through them: addr 2 (300) and addr 3 (50); per-line inclusive sums would say 50 + 350.
    // Freed through them: the free of addr 1 (100, stack S0).
    assert.deepEqual(f, { allocCount: 4, allocBytes: 650, peakWhileAllocatingBytes: 550, liveAtPeakBytes: 350, freedBytes: 100, reservedGrowthBytes: 0, deviceCallCount: 0 });
  });

  it('sees nothing in a range without user lines, and everything under the outermost caller', () => {
    const [none, all] = rangeFigures(analysis, device, [
      { files: ['/p/model.py'], startLine: 1, endLine: 9 },
      { files: ['/p/train.py', '/other/train.py'], startLine: 1, endLine: 10 },
    ]);
    assert.deepEqual(none, { allocCount: 0, allocBytes: 0, peakWhileAllocatingBytes: 0, liveAtPeakBytes: 0, freedBytes: 0, reservedGrowthBytes: 0, deviceCallCount: 0 });
    assert.deepEqual(all, { allocCount: 5, allocBytes: 1650, peakWhileAllocatingBytes: 1350, liveAtPeakBytes: 1350, freedBytes: 100, reservedGrowthBytes: 0, deviceCallCount: 0 });
  });
});

interface RefLine {
  file: string;
  line: number | bigint;
  allocCount: number;
  allocBytes: number;
  liveAtPeakBytes: number;
  inclusiveAllocBytes: number;
  /** The spec's name (the registry's inclusivePeakWhileAllocatingBytes). */
  inclusivePeakBytes: number;
  inclusiveLiveAtPeakBytes: number;
}

describe('lineDetail agrees with the oracle\'s per-line figures on the corpus', { skip: corpusMissing }, () => {
  const names = ['wedsonlin-cs336-medium-512-training.pickle', 'jaspersolt-eor-nn.pickle', 'yiyi-llm-inference-1.3b-torch20.pickle'];
  const files = names.map((n) => path.join(corpusDir, n));
  let reference: Record<string, { devices: { device: number; lines: RefLine[] }[] }> = {};
  before(() => {
    reference = referenceAnalysis(files) as typeof reference;
  });

  for (const file of files) {
    it(path.basename(file), () => {
      const a = analyzeSnapshot(snapshotFromBytes(readFileSync(file)));
      for (const refDevice of reference[file].devices) {
        const dev = a.devices.find((d) => d.device === refDevice.device)!;
        assert.ok(refDevice.lines.length > 0);
        for (const ref of refDevice.lines) {
          const where = `${ref.file}:${String(ref.line)}`;
          const d = lineDetail(a, dev, ref.file, ref.line, { maxSizes: 1e9, maxStacks: 1e9 });
          const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);
          assert.equal(d.allocationCount, ref.allocCount, `${where} allocation count`);
          assert.equal(sum(d.allocationSizes), ref.allocBytes, `${where} allocated bytes`);
          assert.equal(sum(d.liveBlockSizes), ref.liveAtPeakBytes, `${where} live at peak`);
          assert.equal(sum(d.stacks.map((s) => s.bytes)), ref.inclusiveAllocBytes, `${where} bytes through the line`);
          const [asRange] = rangeFigures(a, dev, [{ files: [ref.file], startLine: Number(ref.line), endLine: Number(ref.line) }]);
          if (typeof ref.line === 'number') {
            assert.equal(asRange.allocBytes, ref.inclusiveAllocBytes, `${where} range of one line: allocated`);
            assert.equal(asRange.peakWhileAllocatingBytes, ref.inclusivePeakBytes, `${where} range of one line: peak`);
            assert.equal(asRange.liveAtPeakBytes, ref.inclusiveLiveAtPeakBytes, `${where} range of one line: live at peak`);
          }
        }
      }
    });
  }
});
