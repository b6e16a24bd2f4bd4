/** The pools' ordered set against a plain sorted array, on random operations, in both of its orders. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SortedList } from '../../../../src/engine/allocator/sortedList';

interface Item {
  readonly stream: number;
  readonly size: number;
  readonly ptr: number;
}

function check(bySize: boolean): void {
  const cmp = (a: Item, b: Item) => a.stream - b.stream || (bySize ? a.size - b.size : 0) || a.ptr - b.ptr;
  const list = new SortedList<Item>(bySize);
  const ref: Item[] = [];
  let seed = 12345;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  // Items are identified by (stream, ptr); sizes vary, so the two orders differ.
  const item = (k: number): Item => ({ stream: k % 3, size: 512 * (1 + ((k * 7919) % 50)), ptr: k * 4096 });
  for (let step = 0; step < 20000; step++) {
    const v = item(rand(3000));
    const k = ref.findIndex((x) => cmp(x, v) === 0);
    if (rand(3) === 0) {
      assert.equal(list.delete(v), k >= 0);
      if (k >= 0) ref.splice(k, 1);
    } else {
      assert.equal(list.insert(v), k < 0);
      if (k < 0) {
        ref.push(v);
        ref.sort(cmp);
      }
    }
    const q = item(rand(3100));
    const at = ref.findIndex((x) => cmp(x, q) >= 0);
    assert.equal(list.first(q), at < 0 ? undefined : ref[at]);
    assert.equal(list.lastBelow(q), at < 0 ? ref[ref.length - 1] : at === 0 ? undefined : ref[at - 1]);
    const p = list.lowerBound(q);
    assert.equal(list.isEnd(p) ? undefined : list.at(p), at < 0 ? undefined : ref[at]);
  }
  assert.equal(list.size, ref.length);
  assert.deepEqual(list.toArray(), ref);
  const seen: Item[] = [];
  for (let p = list.begin(); !list.isEnd(p); p = list.next(p)) seen.push(list.at(p));
  assert.deepEqual(seen, ref);
  const back: Item[] = [];
  for (let p = list.end(); !list.isBegin(p); ) {
    p = list.prev(p);
    back.push(list.at(p));
  }
  assert.deepEqual(back.reverse(), ref);
}

describe('SortedList', () => {
  it('agrees with a sorted array, ordered by (stream, size, address)', () => check(true));
  it('agrees with a sorted array, ordered by (stream, address)', () => check(false));
});
