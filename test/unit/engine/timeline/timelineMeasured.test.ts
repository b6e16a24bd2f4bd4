import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { measuredLine } from '../../../../src/engine/timeline/measuredLine';

describe('the measured device-memory line on the timeline', () => {
  it('places every sample by its time when there are few', () => {
    const m = { source: 'nvml', timeUs: Float64Array.of(1000, 2000, 3000), bytes: Float64Array.of(5, 7, 6) };
    const line = measuredLine(m, (us) => us / 1000);
    assert.equal(line.source, 'nvml');
    assert.deepEqual([...line.x], [1, 2, 3]);
    assert.deepEqual([...line.bytes], [5, 7, 6]);
  });

  it('thins many samples to each bucket\'s lowest and highest, in time order, keeping the extremes', () => {
    // 100 samples, 10 points: 5 buckets of 20. Bucket 2 (samples 40-59) has a spike at 45 and a dip at 50.
    const bytes = Float64Array.from({ length: 100 }, (_, i) => 100 + (i % 3));
    bytes[45] = 1000;
    bytes[50] = 1;
    const timeUs = Float64Array.from({ length: 100 }, (_, i) => i);
    const line = measuredLine({ source: 'nvml', timeUs, bytes }, (us) => us, 10);
    assert.ok(line.x.length <= 10);
    for (let k = 1; k < line.x.length; k++) assert.ok(line.x[k] > line.x[k - 1], 'time order');
    assert.equal(Math.max(...line.bytes), 1000);
    assert.equal(Math.min(...line.bytes), 1);
    // The spike comes before the dip, as sampled.
    assert.ok(line.x[[...line.bytes].indexOf(1000)] === 45 && line.x[[...line.bytes].indexOf(1)] === 50);
  });
});
