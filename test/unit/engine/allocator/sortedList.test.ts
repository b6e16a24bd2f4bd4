/** The pools' ordered set against a plain sorted array, on random operations. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SortedList } from '../../../../src/engine/allocator/sortedList';

describe('SortedList', () => {
  it('agrees with a sorted array on insert, delete, lower_bound, first and lastBelow', () => {
    const cmp = (a: number, b: number) => a - b;
    const list = new SortedList<number>(cmp);
    const ref: number[] = [];
    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let step = 0; step < 20000; step++) {
      const v = rand(3000);
      if (rand(3) === 0) {
        const k = ref.indexOf(v);
        assert.equal(list.delete(v), k >= 0);
        if (k >= 0) ref.splice(k, 1);
      } else {
        const had = ref.includes(v);
        assert.equal(list.insert(v), !had);
        if (!had) {
          ref.push(v);
          ref.sort(cmp);
        }
      }
      const q = rand(3100);
      const at = ref.findIndex((x) => x >= q);
      assert.equal(list.first(q), at < 0 ? undefined : ref[at]);
      assert.equal(list.lastBelow(q), at < 0 ? ref[ref.length - 1] : at === 0 ? undefined : ref[at - 1]);
      const p = list.lowerBound(q);
      assert.equal(list.isEnd(p) ? undefined : list.at(p), at < 0 ? undefined : ref[at]);
    }
    assert.equal(list.size, ref.length);
    assert.deepEqual(list.toArray(), ref);
    // Walking forward and back from the start visits every item.
    const seen: number[] = [];
    for (let p = list.begin(); !list.isEnd(p); p = list.next(p)) seen.push(list.at(p));
    assert.deepEqual(seen, ref);
    const back: number[] = [];
    for (let p = list.end(); !list.isBegin(p); ) {
      p = list.prev(p);
      back.push(list.at(p));
    }
    assert.deepEqual(back.reverse(), ref);
  });
});
