/** The size rules, against values worked out by hand from CUDACachingAllocator.cpp. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS, applyAllocConf } from '../../../../src/engine/allocator/settings';
import { MiB, allocationSize, divisionsFor, floorLog2, roundSize, roundupPower2NextDivision } from '../../../../src/engine/allocator/sizes';

describe('allocator sizes', () => {
  it('floorLog2 is exact next to powers of two, beyond 2^32 too', () => {
    for (const k of [1, 9, 20, 31, 32, 33, 45, 52]) {
      assert.equal(floorLog2(2 ** k), k);
      assert.equal(floorLog2(2 ** k - 1), k - 1);
      assert.equal(floorLog2(2 ** k + 1), k === 0 ? 1 : k);
    }
  });

  it('round_size: at least 512 bytes, else up to a multiple of 512', () => {
    assert.equal(roundSize(0, DEFAULT_SETTINGS), 512);
    assert.equal(roundSize(511, DEFAULT_SETTINGS), 512);
    assert.equal(roundSize(513, DEFAULT_SETTINGS), 1024);
    assert.equal(roundSize(5308694528, DEFAULT_SETTINGS), 5308694528, 'already a multiple of 512');
    assert.equal(roundSize(130220, DEFAULT_SETTINGS), 130560, '254.3 x 512 rounds to 255 x 512');
  });

  it('roundup_power2_next_division, as the comment in PyTorch says: 1200 with 4 divisions is 1280', () => {
    assert.equal(roundupPower2NextDivision(1200, 4), 1280);
    assert.equal(roundupPower2NextDivision(1024, 4), 1024, 'a power of two stays');
    assert.equal(roundupPower2NextDivision(1280, 4), 1280, 'a division boundary stays');
    assert.equal(roundupPower2NextDivision(3 * MiB + 1, 2), 4 * MiB);
    assert.equal(roundupPower2NextDivision(600, 1024), 1024, 'a step below one byte rounds to the next power of two');
  });

  it('divisions by power-of-two interval: [1 MiB, 2 MiB) is entry 0, 32 GiB and above the last', () => {
    const s = applyAllocConf(DEFAULT_SETTINGS, 'roundup_power2_divisions:[1:1,2:2,4:4,>:8]');
    assert.equal(divisionsFor(100, s), 1, 'under 1 MiB: the first interval');
    assert.equal(divisionsFor(MiB, s), 1);
    assert.equal(divisionsFor(2 * MiB, s), 2);
    assert.equal(divisionsFor(5 * MiB, s), 4);
    assert.equal(divisionsFor(9 * MiB, s), 8);
    assert.equal(divisionsFor(2 ** 40, s), 8);
  });

  it('get_allocation_size: 2 MiB small segments, 20 MiB up to 10 MiB, then rounded to 2 MiB', () => {
    assert.equal(allocationSize(512, DEFAULT_SETTINGS), 2 * MiB);
    assert.equal(allocationSize(MiB, DEFAULT_SETTINGS), 2 * MiB, '1 MiB is still small');
    assert.equal(allocationSize(MiB + 512, DEFAULT_SETTINGS), 20 * MiB);
    assert.equal(allocationSize(10 * MiB - 512, DEFAULT_SETTINGS), 20 * MiB);
    assert.equal(allocationSize(10 * MiB, DEFAULT_SETTINGS), 10 * MiB);
    assert.equal(allocationSize(10 * MiB + 512, DEFAULT_SETTINGS), 12 * MiB);
  });
});
