/** The RAM warning before a prediction on the program's own data: only when the predicted peak, times the measured factor, exceeds the free memory. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REAL_DATA_RAM_FACTOR, realDataMemoryWarning } from '../../../../src/extension/profile/realDataMemory';

const GiB = 2 ** 30;

describe('the RAM a prediction on real data needs', () => {
  it('says nothing when the peak fits with room, or when no peak is known', () => {
    assert.equal(realDataMemoryWarning(4 * GiB, 16 * GiB), undefined);
    assert.equal(realDataMemoryWarning(10 * GiB, 16 * GiB), undefined, '10 GiB x 1.6 = 16 GiB: just fits');
    assert.equal(realDataMemoryWarning(undefined, 1 * GiB), undefined);
    assert.equal(realDataMemoryWarning(0, 1 * GiB), undefined);
  });

  it('warns with the memory it needs and the memory free, in the units of every figure', () => {
    // The corpus pair: 11.6 GiB predicted, 18.4 GiB peak RSS measured (1.59x; the factor rounds it up).
    assert.ok(18.43 / 11.57 <= REAL_DATA_RAM_FACTOR);
    const text = realDataMemoryWarning(12 * GiB, 8 * GiB);
    assert.ok(text !== undefined);
    assert.match(text, /about 19\.2 GiB/);
    assert.match(text, /predicted peak, 12\.0 GiB/);
    assert.match(text, /8\.0 GiB is free now/);
  });
});
