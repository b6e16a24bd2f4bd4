/** The replay's address map against a Map, on random addresses, deletions and growth. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AddressMap } from '../../../../src/engine/allocator/addressMap';

describe('AddressMap', () => {
  it('agrees with a Map through inserts, overwrites, deletes and growth', () => {
    const ours = new AddressMap<number>(4);
    const ref = new Map<number, number>();
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    // Addresses as a GPU hands them out: large, multiples of 512, some far apart (beyond 2^32 and 2^41).
    const address = () => 0x7f00_0000_0000 + rand(4000) * 512 + (rand(4) === 0 ? 2 ** 45 : 0);
    for (let step = 0; step < 50000; step++) {
      const a = address();
      const op = rand(3);
      if (op === 0) {
        assert.equal(ours.delete(a), ref.delete(a));
      } else {
        ours.set(a, step);
        ref.set(a, step);
      }
      const q = address();
      assert.equal(ours.get(q), ref.get(q));
      assert.equal(ours.size, ref.size);
    }
    for (const [k, v] of ref) assert.equal(ours.get(k), v);
    assert.equal(ours.get(0), undefined);
  });
});
