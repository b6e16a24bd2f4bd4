/** What each line of a file shows: heat step, inline text, overview marks, staleness. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HEAT_STEPS, lineHeat } from '../../../../src/engine/annotate/heat';
import { inlineText } from '../../../../src/engine/annotate/inlineFigures';
import { buildFileAnnotations } from '../../../../src/engine/annotate/lineAnnotations';
import type { LineFigures } from '../../../../src/engine/analysis/lines';

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
    peakWhileAllocatingBytes: 0,
    liveAtPeakBytes: 0,
    inclusiveAllocBytes: 0,
    inclusivePeakWhileAllocatingBytes: 0,
    inclusiveLiveAtPeakBytes: 0,
    reservedGrowthBytes: 0,
    deviceCallCount: 0,
    ...f,
  };
}

const hot = figures(3, {
  allocCount: 3,
  allocBytes: 2 * GiB,
  peakWhileAllocatingBytes: 7.9 * GiB,
  inclusiveAllocBytes: 2 * GiB,
  inclusivePeakWhileAllocatingBytes: 7.9 * GiB,
  liveAtPeakBytes: 1.2 * GiB,
  inclusiveLiveAtPeakBytes: 1.2 * GiB,
});
const caller = figures(10, { inclusiveAllocBytes: 5 * GiB, inclusivePeakWhileAllocatingBytes: 4 * GiB, inclusiveLiveAtPeakBytes: 0 });
const tiny = figures(12, { allocCount: 1, allocBytes: 10 * MiB, inclusiveAllocBytes: 10 * MiB, inclusivePeakWhileAllocatingBytes: 7 * GiB });

describe('inlineText', () => {
  it('by default says what the line holds at the peak and its share, in at most 30 characters', () => {
    // 1.2 GiB of 8 GiB = 15%.
    assert.equal(inlineText(hot, PEAK), '1.2 GiB at peak (15%)');
    assert.ok(inlineText(hot, PEAK).length <= 30);
    assert.equal(inlineText(caller, PEAK), '', 'a line that holds nothing itself at the peak says nothing by default');
  });

  it('shows the chosen registry figures in the chosen order, leaving out zero figures', () => {
    assert.equal(inlineText(hot, PEAK, ['allocBytes', 'allocCount', 'peakWhileAllocatingBytes'], 80), '+2.0 GiB · x3 · peak 7.9 GiB');
    assert.equal(inlineText(caller, PEAK, ['allocBytes', 'inclusiveAllocBytes', 'inclusivePeakWhileAllocatingBytes'], 80), '+5.0 GiB in calls · peak 4.0 GiB in calls');
    assert.equal(inlineText(figures(1, { allocCount: 1, allocBytes: 512, freedBytes: 512 }), PEAK, ['freedBytes', 'allocBytes'], 80), '-512 B freed · +512 B');
  });

  it('drops whole figures that do not fit rather than cutting the text', () => {
    const all = ['liveAtPeakBytes', 'allocBytes', 'allocCount', 'peakWhileAllocatingBytes'] as const;
    assert.equal(inlineText(hot, PEAK, all, 80), '1.2 GiB at peak (15%) · +2.0 GiB · x3 · peak 7.9 GiB');
    // 21 + 11 = 32 > 30: "+2.0 GiB" is dropped, "x3" (26 chars in all) still fits, the peak does not.
    assert.equal(inlineText(hot, PEAK, all, 30), '1.2 GiB at peak (15%) · x3');
    assert.equal(inlineText(hot, PEAK, all, 10), '+2.0 GiB', 'the first figure too long: the next that fits');
    assert.equal(inlineText(hot, PEAK, ['liveAtPeakBytes'], 5), '');
  });
});

describe('lineHeat', () => {
  it('steps with the share of the peak the line itself holds at the peak, roughly doubling per step', () => {
    const at = (share: number) => lineHeat(figures(1, { liveAtPeakBytes: share * PEAK }), PEAK);
    assert.equal(at(1), HEAT_STEPS - 1);
    assert.equal(at(0.6), 9);
    assert.equal(at(0.59), 8);
    assert.equal(at(0.27), 7, 'nn_utils.py:6 of the issue, 27% of the peak');
    assert.equal(at(0.14), 5, 'model.py, 14% of the peak');
    assert.equal(at(0.01), 2);
    assert.equal(at(0.006), 1);
    assert.equal(at(0.004), 0);
    assert.equal(at(0), 0);
  });

  it('ignores what the line allocated and how high memory was while it allocated', () => {
    // Both allocate at a peak of 7.9 of 8 GiB; only what they hold at the peak tells them apart.
    assert.equal(lineHeat(hot, PEAK), 6, '1.2 GiB of 8 GiB = 15%: from 15% on, step 6');
    assert.equal(lineHeat(tiny, PEAK), 0);
    assert.equal(lineHeat(caller, PEAK), 0, 'memory held through callees is the callees\' heat');
  });
});

describe('buildFileAnnotations', () => {
  it('drops lines under the threshold, and lines past the end of the document', () => {
    const built = buildFileAnnotations([hot, caller, tiny, figures(400, { allocBytes: GiB, inclusiveAllocBytes: GiB })], PEAK, 100, {
      figures: ['allocBytes', 'allocCount', 'inclusiveAllocBytes'],
      maxLength: 80,
      thresholdFraction: 0.01,
      overviewLines: 5,
    });
    // 10 MiB is 0.12% of 8 GiB: under 1%.
    assert.deepEqual(
      built.lines.map((l) => [l.line, l.text]),
      [
        [2, '+2.0 GiB · x3 · +2.0 GiB in calls'],
        [9, '+5.0 GiB in calls'],
      ],
    );
    const lower = buildFileAnnotations([tiny], PEAK, 100, { figures: ['allocBytes'], maxLength: 30, thresholdFraction: 0.001, overviewLines: 5 });
    assert.equal(lower.lines.length, 1, 'a lower threshold shows it');
  });

  it('groups fresh lines by heat step and marks the heaviest lines on the overview ruler', () => {
    const built = buildFileAnnotations([hot, caller], PEAK, 100, { figures: ['peakWhileAllocatingBytes'], maxLength: 30, thresholdFraction: 0.01, overviewLines: 1 });
    assert.deepEqual(built.byBucket[6].map((l) => l.line), [2], '15% of the peak held');
    assert.deepEqual(built.byBucket[0].map((l) => l.line), [9], 'holds nothing itself');
    assert.deepEqual(built.overview, [2], 'the line holding the most at the peak');
  });

  it('places lines where edits moved them and marks changed lines stale', () => {
    const built = buildFileAnnotations([hot, caller], PEAK, 100, { figures: ['allocBytes'], maxLength: 30, thresholdFraction: 0.01, overviewLines: 0 }, (original) =>
      original === 2 ? { line: 5, stale: true } : undefined,
    );
    assert.deepEqual(
      built.lines.map((l) => [l.line, l.originalLine, l.text, l.stale]),
      [[5, 2, '+2.0 GiB (stale)', true]],
    );
    assert.deepEqual(built.stale.map((l) => l.line), [5]);
    assert.ok(built.byBucket.every((b) => b.length === 0), 'stale lines are drawn apart from the heat steps');
  });

  it('places relocated lines on their new line and says so; marks lines outside their function', () => {
    const options = { figures: ['liveAtPeakBytes'] as const, maxLength: 30, thresholdFraction: 0, overviewLines: 0 };
    const built = buildFileAnnotations([hot, caller], PEAK, 100, options, undefined, (f, line) =>
      f === hot ? { line: line + 1, kind: 'relocated' } : { line, kind: 'notFound' },
    );
    assert.deepEqual(
      built.lines.map((l) => [l.line, l.originalLine, l.relocation, l.text]),
      [
        [3, 2, 'relocated', '1.2 GiB at peak (15%) (moved)'],
        [9, 9, 'notFound', ''],
      ],
    );
    const big = figures(20, { liveAtPeakBytes: 3.2 * GiB, inclusiveAllocBytes: 3.2 * GiB });
    const outside = buildFileAnnotations([big], PEAK, 100, options, undefined, (_f, line) => ({ line, kind: 'notFound' }));
    // "3.2 GiB at peak (40%) (changed?)" would be 32 characters: the mark alone, the figures stay in the hover.
    assert.deepEqual(outside.lines.map((l) => l.text), ['(changed?)']);
  });

  it('keeps the heavier line when two recorded files land on the same line', () => {
    const other = { ...figures(3, { allocCount: 1, allocBytes: GiB, inclusiveAllocBytes: GiB }), file: '/q/model.py' };
    const built = buildFileAnnotations([other, hot], PEAK, 100, { figures: ['allocBytes'], maxLength: 30, thresholdFraction: 0, overviewLines: 0 });
    assert.deepEqual(built.lines.map((l) => l.text), ['+2.0 GiB']);
  });

  it('ignores line numbers no file has (0, 2^64-1)', () => {
    const odd = [figures(0, { allocBytes: GiB, inclusiveAllocBytes: GiB }), { ...hot, line: 18446744073709551615n }];
    assert.deepEqual(buildFileAnnotations(odd, PEAK, 100).lines, []);
  });
});
