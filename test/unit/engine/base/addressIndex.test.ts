/**
 * The replay's address index against a `Map`: the record each address holds and the one a store
 * replaces, through the table's growth, for addresses PyTorch records (512-aligned, around 2^47),
 * address 0 (a fresh Float64Array's every slot), and addresses that share their low 32 bits.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AddressIndex } from '../../../../src/engine/base/addressIndex';

/** A small deterministic generator (xorshift32), so that a failure replays. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x1_0000_0000;
  };
}

describe('AddressIndex', () => {
  it('gives what a Map gives, through its growth, for addresses a program reuses', () => {
    const next = random(7);
    const base = 0x7f00_0000_0000;
    // 20,000 distinct addresses, 200,000 stores and reads: the table grows from 16 slots many times.
    const addresses = Array.from({ length: 20_000 }, (_, i) => (i % 5 === 0 ? i * 2 ** 32 : base + 512 * i));
    const index = new AddressIndex();
    const reference = new Map<number, number>();
    for (let record = 0; record < 200_000; record++) {
      const address = addresses[Math.floor(next() * addresses.length)];
      if (next() < 0.3) {
        assert.equal(index.get(address), reference.get(address) ?? -1);
        continue;
      }
      assert.equal(index.swap(address, record), reference.get(address) ?? -1, `store ${record} at ${address}`);
      reference.set(address, record);
    }
    assert.equal(index.size, reference.size);
    for (const address of addresses) assert.equal(index.get(address), reference.get(address) ?? -1);
  });

  it('holds address 0 and tells an empty table from it', () => {
    const index = new AddressIndex(4);
    assert.equal(index.get(0), -1);
    assert.equal(index.swap(0, 5), -1);
    assert.equal(index.get(0), 5);
    assert.equal(index.swap(0, 6), 5);
    assert.equal(index.get(0), 6);
    assert.equal(index.get(512), -1);
    assert.equal(index.size, 1);
  });

  it('tells apart addresses whose low 32 bits are the same', () => {
    const index = new AddressIndex();
    for (let k = 0; k < 100; k++) assert.equal(index.swap(k * 2 ** 32 + 4096, k), -1);
    for (let k = 0; k < 100; k++) assert.equal(index.get(k * 2 ** 32 + 4096), k);
    assert.equal(index.get(100 * 2 ** 32 + 4096), -1);
    assert.equal(index.size, 100);
  });
});
