/** What each line of a file shows: heat step, inline text, overview marks, staleness. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HEAT_BUCKETS, buildFileAnnotations, heatBucket, inlineText } from '../../src/core/annotate/lineAnnotations';
import type { LineFigures } from '../../src/core/analysis/lines';

const GiB = 2 ** 30;
const MiB = 2 ** 20;
const PEAK = 8 * GiB;

function figures(line: number, f: Partial<LineFigures>): LineFigures {
  return {
    file: '/p/model.py',
    line,
    lineId: line,
    allocCount: 0,
    allocBytes: 0,
    freedBytes: 0,
    peakBytes: 0,
    liveAtPeakBytes: 0,
    inclusiveAllocBytes: 0,
    inclusivePeakBytes: 0,
    inclusiveLiveAtPeakBytes: 0,
    ...f,
  };
}

const hot = figures(3, {
  allocCount: 3,
  allocBytes: 2 * GiB,
  peakBytes: 7.9 * GiB,
  inclusiveAllocBytes: 2 * GiB,
  inclusivePeakBytes: 7.9 * GiB,
  liveAtPeakBytes: 1.2 * GiB,
  inclusiveLiveAtPeakBytes: 1.2 * GiB,
});
const caller = figures(10, { inclusiveAllocBytes: 5 * GiB, inclusivePeakBytes: 4 * GiB, inclusiveLiveAtPeakBytes: 0 });
const tiny = figures(12, { allocCount: 1, allocBytes: 10 * MiB, inclusiveAllocBytes: 10 * MiB, inclusivePeakBytes: 7 * GiB });

describe('inlineText', () => {
  it('reads like the issue says: own allocations with count, peak, live at peak', () => {
    assert.equal(inlineText(hot, PEAK, ['allocated', 'peak', 'liveAtPeak']), '+2.0 GiB (x3) · peak 7.9 GiB · 1.2 GiB live at peak');
  });

  it('shows what a call line allocated through its callees, and leaves out zero figures', () => {
    assert.equal(inlineText(caller, PEAK, ['allocated', 'peak', 'liveAtPeak']), '+5.0 GiB in calls · peak 4.0 GiB');
  });

  it('shows only the chosen figures, in a fixed order', () => {
    assert.equal(inlineText(hot, PEAK, ['share', 'allocated']), '+2.0 GiB (x3) · 15% of peak');
    assert.equal(inlineText(figures(1, { allocCount: 1, allocBytes: 512, freedBytes: 512 }), PEAK, ['allocated', 'freed']), '+512 B · -512 B freed');
  });
});

describe('heatBucket', () => {
  it('steps with the inclusive peak relative to the snapshot peak', () => {
    assert.equal(heatBucket(hot, PEAK), HEAT_BUCKETS - 1, '7.9 of 8 GiB is the hottest step');
    assert.equal(heatBucket(caller, PEAK), 4, '4 of 8 GiB: 50% is the fifth step');
    assert.equal(heatBucket(figures(1, { inclusivePeakBytes: 1 }), PEAK), 0);
  });

  it('uses the share of memory live at the peak when a snapshot has no allocation events', () => {
    assert.equal(heatBucket(figures(1, { inclusiveLiveAtPeakBytes: 6 * GiB }), PEAK), 7);
  });
});

describe('buildFileAnnotations', () => {
  it('drops lines under the threshold, and lines past the end of the document', () => {
    const built = buildFileAnnotations([hot, caller, tiny, figures(400, { allocBytes: GiB, inclusiveAllocBytes: GiB })], PEAK, 100, {
      figures: ['allocated'],
      thresholdFraction: 0.01,
      overviewLines: 5,
    });
    // 10 MiB is 0.12% of 8 GiB: under 1%.
    assert.deepEqual(
      built.lines.map((l) => [l.line, l.text]),
      [
        [2, '+2.0 GiB (x3)'],
        [9, '+5.0 GiB in calls'],
      ],
    );
    const lower = buildFileAnnotations([tiny], PEAK, 100, { figures: ['allocated'], thresholdFraction: 0.001, overviewLines: 5 });
    assert.equal(lower.lines.length, 1, 'a lower threshold shows it');
  });

  it('groups fresh lines by heat step and marks the heaviest lines on the overview ruler', () => {
    const built = buildFileAnnotations([hot, caller], PEAK, 100, { figures: ['peak'], thresholdFraction: 0.01, overviewLines: 1 });
    assert.deepEqual(built.byBucket[9].map((l) => l.line), [2]);
    assert.deepEqual(built.byBucket[4].map((l) => l.line), [9]);
    assert.deepEqual(built.overview, [2], 'the line holding the most at the peak');
  });

  it('places lines where edits moved them and marks changed lines stale', () => {
    const built = buildFileAnnotations([hot, caller], PEAK, 100, { figures: ['allocated'], thresholdFraction: 0.01, overviewLines: 0 }, (original) =>
      original === 2 ? { line: 5, stale: true } : undefined,
    );
    assert.deepEqual(
      built.lines.map((l) => [l.line, l.originalLine, l.text, l.stale]),
      [[5, 2, '+2.0 GiB (x3) (stale)', true]],
    );
    assert.deepEqual(built.stale.map((l) => l.line), [5]);
    assert.ok(built.byBucket.every((b) => b.length === 0), 'stale lines are drawn apart from the heat steps');
  });

  it('keeps the heavier line when two recorded files land on the same line', () => {
    const other = { ...figures(3, { allocCount: 1, allocBytes: GiB, inclusiveAllocBytes: GiB }), file: '/q/model.py' };
    const built = buildFileAnnotations([other, hot], PEAK, 100, { figures: ['allocated'], thresholdFraction: 0, overviewLines: 0 });
    assert.deepEqual(built.lines.map((l) => l.text), ['+2.0 GiB (x3)']);
  });

  it('ignores line numbers no file has (0, 2^64-1)', () => {
    const odd = [figures(0, { allocBytes: GiB, inclusiveAllocBytes: GiB }), { ...hot, line: 18446744073709551615n }];
    assert.deepEqual(buildFileAnnotations(odd, PEAK, 100).lines, []);
  });
});
