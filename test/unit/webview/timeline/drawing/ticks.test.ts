/** Axis ticks and their labels: bytes, events and wall time (drawing/ticks.ts). Expected values are worked out in the comments. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { byteTicks, eventTicks, formatDuration, timeTicks } from '../../../../../webview/timeline/drawing/ticks';
import { formatAxisBytes } from '../../../../../src/engine/text/format';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

describe('timeline view: axis ticks', () => {
  it('puts byte ticks on powers of two, labelled in the largest unit', () => {
    // max 1.06 GiB over about 5 intervals: 217 MiB each, rounded up to 256 MiB.
    assert.deepEqual(
      byteTicks(0, 1.06 * GiB, 5).map((t) => t.label),
      ['0', '256 MiB', '512 MiB', '768 MiB', '1 GiB'],
    );
    assert.equal(formatAxisBytes(1.25 * GiB), '1.25 GiB');
    assert.equal(formatAxisBytes(1536), '1.5 KiB');
    assert.equal(byteTicks(0, 12 * GiB, 6)[1].value, 2 * GiB);
    assert.equal(byteTicks(0, 3 * MiB, 3).at(-1)?.label, '3 MiB');
    // A zoomed y range [10.3 GiB, 11.4 GiB) over about 4 intervals: 282 MiB each -> 512 MiB, from 10.5 GiB.
    assert.deepEqual(
      byteTicks(10.3 * GiB, 11.4 * GiB, 4).map((t) => t.label),
      ['10.5 GiB', '11 GiB'],
    );
  });
  it('labels events compactly and wall time relative to the first event', () => {
    // [0, 22333) in about 4 intervals: 5583 each -> step 10000.
    assert.deepEqual(
      eventTicks(0, 22333, 4).map((t) => t.label),
      ['0', '10k', '20k'],
    );
    // [3300, 3480) in about 4 intervals: 45 each -> step 50, written out in full (3.35k would read 3.4k).
    assert.deepEqual(
      eventTicks(3300, 3480, 4).map((t) => t.label),
      ['3,300', '3,350', '3,400', '3,450'],
    );
    // Time from 1000 µs to 3.5 s later in about 3 intervals: step 2 s (1.17 s rounded up to 2).
    assert.deepEqual(
      timeTicks(1000, 1000 + 3_500_000, 1000, 3).map((t) => [t.value, t.label]),
      [
        [1000, '0 s'],
        [2_001_000, '2 s'],
      ],
    );
    assert.equal(formatDuration(1500), '1.5 ms');
    assert.equal(formatDuration(250), '250 µs');
  });
});
