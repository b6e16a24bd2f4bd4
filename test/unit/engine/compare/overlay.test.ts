/** Downsampled totals and the two-run overlay: peaks survive, axes line up, a shorter run ends early. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alignTotals } from '../../../../src/engine/compare/overlay';
import { NoTimesError, downsampleTotals } from '../../../../src/engine/compare/totals';

function replay(active: number[], initial = 0) {
  return {
    active: Float64Array.from(active),
    reserved: Float64Array.from(active.map((a) => a + 100)),
    initialActiveBytes: initial,
    initialReservedBytes: initial + 100,
  };
}

describe('downsampleTotals', () => {
  it('keeps the maximum of each bucket of events, the initial state counting as position 0', () => {
    const s = downsampleTotals(replay([10, 30, 20, 50, 0]), new Float64Array(5), 'event', 3);
    assert.deepEqual(s.x, [0, 2, 4]);
    assert.deepEqual(s.active, [10, 30, 50]);
    assert.deepEqual(s.reserved, [110, 130, 150]);
    assert.equal(s.extent, 6);
  });

  it('on the time axis holds the last state through buckets without events', () => {
    const times = Float64Array.from([1000, 1010, 1010, 1040, 1100]);
    const s = downsampleTotals(replay([10, 30, 20, 50, 0]), times, 'time', 4);
    assert.equal(s.extent, 100);
    assert.deepEqual(s.x, [0, 25, 50, 75]);
    assert.deepEqual(s.active, [30, 50, 50, 50]);
  });

  it('refuses a time axis for a trace without timestamps', () => {
    assert.throws(() => downsampleTotals(replay([1, 2]), Float64Array.from([NaN, NaN]), 'time', 4), NoTimesError);
  });

  it('does not lose a one-event spike among a million events', () => {
    const values = new Array<number>(1_000_000).fill(5);
    values[777_777] = 9_000;
    const s = downsampleTotals(replay(values), new Float64Array(values.length), 'event', 1000);
    assert.equal(s.active.length, 1000);
    assert.equal(Math.max(...s.active), 9_000);
    assert.equal(s.active.filter((v) => v === 9_000).length, 1);
  });
});

describe('alignTotals', () => {
  const short = downsampleTotals(replay([10, 30, 20, 50, 0]), new Float64Array(5), 'event', 100); // 6 positions
  const long = downsampleTotals(replay([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]), new Float64Array(11), 'event', 100); // 12 positions

  it('puts both runs on one event axis from their starts; the shorter one ends early', () => {
    const o = alignTotals(short, long, 'event', 4);
    assert.equal(o.extent, 12);
    assert.deepEqual(o.x, [0, 3, 6, 9]);
    assert.deepEqual(o.baseline, [30, 50, null, null]);
    assert.deepEqual(o.current, [2, 5, 8, 11]);
  });

  it('stretches each run to 0-100% on the normalised axis', () => {
    const o = alignTotals(short, long, 'normalized', 2);
    assert.deepEqual(o.x, [0, 50]);
    assert.deepEqual(o.baseline, [30, 50]);
    assert.deepEqual(o.current, [5, 11]);
  });

  it('keeps each run\'s peak when rebucketing to fewer points', () => {
    const spiky = replay(Array.from({ length: 5000 }, (_, i) => (i === 1234 ? 777 : i % 7)));
    const s = downsampleTotals(spiky, new Float64Array(5000), 'event', 800);
    const o = alignTotals(s, s, 'normalized', 37);
    assert.equal(Math.max(...o.baseline.map((v) => v ?? 0)), 777);
  });

  it('refuses to align an event series with a time series', () => {
    const t = downsampleTotals(replay([1, 2]), Float64Array.from([0, 5]), 'time', 4);
    assert.throws(() => alignTotals(short, t, 'normalized', 4));
  });
});
