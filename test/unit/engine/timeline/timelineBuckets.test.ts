/**
 * The timeline's buckets on the corpus: the blocks alive at the peak, as the timeline's span
 * gives them, carry the bucket kinds whose bytes add up to the peak breakdown of the independent
 * reading of the contract (test/reference/spec_reference.py), kind by kind and, for the backward
 * pass, autograd node by node; a backward block's stack names an autograd node or the engine (the
 * contract's rule 1, read here from the frames); and the legend's per-kind bytes at the peak equal
 * the reference's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { attributingStack } from '../../../../src/engine/analysis/liveAtPeak';
import { PEAK_BUCKET_KINDS } from '../../../../src/engine/analysis/peakBreakdown';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { NO_STACK } from '../../../../src/engine/snapshot/model';
import { TimelineQueries } from '../../../../src/engine/timeline/queries';
import { MAX_BLOCK_BUDGET } from '../../../../src/engine/timeline/span';
import { bucketLegend, kindsDrawn } from '../../../../webview/timeline/controls/bucketLegend';
import { corpusFiles, corpusMissing, referenceAnalysis } from '../../../helpers/corpus';

interface RefBucket {
  readonly kind: string;
  readonly label: string;
  readonly bytes: number;
}
interface RefDevice {
  readonly device: number;
  readonly peakBytes: number;
  readonly peakEventIndex: number;
  readonly peakBreakdown: readonly RefBucket[];
}

const sumBy = <T>(items: readonly T[], key: (t: T) => string, bytes: (t: T) => number): Map<string, number> => {
  const out = new Map<string, number>();
  for (const t of items) out.set(key(t), (out.get(key(t)) ?? 0) + bytes(t));
  return out;
};
const sorted = (m: Map<string, number>) => [...m.entries()].filter(([, v]) => v !== 0).sort(([a], [b]) => (a < b ? -1 : 1));

/** The contract's rule 1, read from frame names: an autograd node's apply, or the autograd engine. */
const BACKWARD_FRAME = /torch::autograd::(?:generated::)?[A-Za-z_][A-Za-z0-9_]*::apply|torch::autograd::Engine/;

describe('timeline buckets on the corpus', { skip: corpusMissing }, () => {
  const files = corpusFiles();
  const reference = corpusMissing ? {} : (referenceAnalysis(files) as Record<string, { devices: RefDevice[] }>);
  let backwardBlocks = 0;
  const kindsSeen = new Set<string>();

  for (const file of files) {
    it(path.basename(file), () => {
      const snapshot = snapshotFromBytes(readFileSync(file));
      const analysis = analyzeSnapshot(snapshot);
      const q = new TimelineQueries(snapshot, () => analysis);
      for (const ref of reference[file].devices) {
        const d = analysis.devices.find((x) => x.device === ref.device)!;
        const label = `${path.basename(file)} device ${ref.device}`;
        const peakState = ref.peakEventIndex + 1;
        // Every block alive at the peak, one by one (a span of the peak state alone).
        const w = q.span(ref.device, { axis: 'event', states: [peakState, peakState], statesMargin: 0, columns: 1, budget: MAX_BLOCK_BUDGET, runBudget: 1e9 });
        assert.equal(w.moreBlocks, false, `${label}: every block drawn`);
        const step = Array.from(w.stepState).indexOf(peakState);
        assert.ok(step >= 0, `${label}: the peak state is a step`);
        const alive: number[] = [];
        for (let j = 0; j < w.blockRecord.length; j++) if (w.blockFirstStep[j] <= step && step <= w.blockLastStep[j]) alive.push(j);
        assert.equal(
          alive.reduce((s, j) => s + w.blockSize[j], 0),
          ref.peakBytes,
          `${label}: the blocks alive at the peak add up to the peak`,
        );
        for (const j of alive) {
          // A block has a line or a bucket, never both, never neither.
          assert.equal(w.blockLine[j] >= 0, w.blockBucket[j] < 0, `${label}: block ${w.blockRecord[j]} has a line xor a bucket`);
        }
        // Per kind: the bucketed blocks at the peak equal the reference's peak breakdown.
        const unlined = alive.filter((j) => w.blockBucket[j] >= 0);
        const timelineKinds = sumBy(unlined, (j) => PEAK_BUCKET_KINDS[w.blockBucket[j]], (j) => w.blockSize[j]);
        const refKinds = sumBy(ref.peakBreakdown, (b) => b.kind, (b) => b.bytes);
        assert.deepEqual(sorted(timelineKinds), sorted(refKinds), `${label}: bytes per bucket kind at the peak`);
        for (const k of timelineKinds.keys()) kindsSeen.add(k);

        // Backward blocks: the label the timeline's block detail names, node by node, as the reference counts them.
        const backward = unlined.filter((j) => PEAK_BUCKET_KINDS[w.blockBucket[j]] === 'backward');
        const perNode = sumBy(backward, (j) => q.block(ref.device, w.blockRecord[j], 0).bucket!.label, (j) => w.blockSize[j]);
        const refNodes = sumBy(ref.peakBreakdown.filter((b) => b.kind === 'backward'), (b) => b.label, (b) => b.bytes);
        assert.deepEqual(sorted(perNode), sorted(refNodes), `${label}: backward bytes per autograd node`);
        for (const j of backward) {
          const stack = attributingStack(d.allocations, w.blockRecord[j]);
          assert.notEqual(stack, NO_STACK);
          assert.ok(snapshot.stacks[stack].some((f) => BACKWARD_FRAME.test(snapshot.frames[f].name)), `${label}: block ${w.blockRecord[j]} has an autograd frame`);
          backwardBlocks++;
        }

        // The legend the page draws: per kind, the reference's bytes at the peak.
        const overview = q.overview(ref.device, 'event', 100);
        const legend = bucketLegend(overview.peakBreakdown, kindsDrawn(w.blockBucket));
        assert.deepEqual(
          legend.filter((e) => e.peakBytes > 0).map((e) => [e.kind, e.peakBytes]).sort(([a], [b]) => (a < b ? -1 : 1)),
          sorted(refKinds),
          `${label}: legend bytes per kind`,
        );
        // Every kind drawn has an entry; the entry lists the kind's buckets.
        for (const k of kindsDrawn(w.blockBucket)) assert.ok(legend.some((e) => e.kind === k), `${label}: legend entry for ${k}`);
        for (const e of legend) assert.equal(e.buckets.length, ref.peakBreakdown.filter((b) => b.kind === e.kind).length, `${label}: ${e.kind} buckets listed`);
      }
    });
  }

  it('covered backward blocks and more than one bucket kind', () => {
    assert.ok(backwardBlocks > 10, `${backwardBlocks} backward blocks checked`);
    assert.ok(kindsSeen.has('backward') && kindsSeen.has('beforeRecording'), [...kindsSeen].join(', '));
  });
});

describe('bucket legend', () => {
  it('one entry per kind at the peak or drawn, bytes summed per kind, buckets in the summary\'s words', () => {
    const legend = bucketLegend(
      [
        { kind: 'backward', label: 'BmmBackward0', bytes: 3 * 2 ** 20 },
        { kind: 'beforeRecording', label: '', bytes: 2 ** 30 },
        { kind: 'backward', label: 'AccumulateGrad', bytes: 5 * 2 ** 20 },
      ],
      new Set(['library']),
    );
    assert.deepEqual(
      legend.map((e) => [e.kind, e.name, e.peakBytes, e.buckets]),
      [
        ['backward', 'backward pass', 8 * 2 ** 20, ['gradients (AccumulateGrad): 5.0 MiB', 'backward: BmmBackward0: 3.0 MiB']],
        ['library', 'library code', 0, []],
        ['beforeRecording', 'allocated before recording began', 2 ** 30, ['allocated before recording began: 1.0 GiB']],
      ],
    );
  });
});
