/**
 * `FrameDictCache` (what the quick loop remembers of new frame dicts by memo keys) and its place in
 * `MemoCodes`: a dict is found again only by all four of its keys, the table grows and then stops taking
 * entries, keys it cannot hold are refused, and an overwrite in the memo forgets everything.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FrameDictCache, MemoCodes } from '../../../../src/engine/pickle/entryCodes';
import { Memo } from '../../../../src/engine/pickle/memo';
import type { PyDict } from '../../../../src/engine/pickle/values';

const dict = (label: string): PyDict => ({ label });

describe('FrameDictCache', () => {
  it('finds a dict by its filename key, line, name key and key order, and by nothing less', () => {
    const cache = new FrameDictCache();
    const a = dict('a');
    cache.set(10, 42, 11, 5, a);
    assert.equal(cache.get(10, 42, 11, 5), a);
    assert.equal(cache.get(10, 43, 11, 5), undefined, 'another line');
    assert.equal(cache.get(12, 42, 11, 5), undefined, 'another filename');
    assert.equal(cache.get(10, 42, 12, 5), undefined, 'another name');
    assert.equal(cache.get(10, 42, 11, 7), undefined, 'another key order');
    assert.equal(cache.get(11, 42, 10, 5), undefined, 'filename and name swapped');
  });

  it('keeps every dict apart as it grows past its first table (50,000 of them, many alike)', () => {
    const cache = new FrameDictCache();
    const stored = new Map<string, PyDict>();
    for (let i = 0; i < 50_000; i++) {
      // Memo keys and lines that collide in the low bits, and the six key orders of base 3.
      const keys = [(i % 97) * 1024, i % 5000, (i >> 3) * 4096, [5, 7, 11, 15, 19, 21][i % 6]] as const;
      const d = dict(String(i));
      cache.set(keys[0], keys[1], keys[2], keys[3], d);
      stored.set(keys.join(','), d);
    }
    for (const [key, d] of stored) {
      const [f, line, n, order] = key.split(',').map(Number);
      assert.equal(cache.get(f, line, n, order), d, key);
    }
  });

  it('stops taking dicts once its table is at its largest, and still finds those it holds', () => {
    const cache = new FrameDictCache();
    // 2^20 slots, at most half full.
    const limit = 1 << 19;
    for (let i = 0; i < limit + 1000; i++) cache.set(i, 1, i, 5, dict(String(i)));
    assert.equal((cache.get(0, 1, 0, 5) as unknown as { label: string }).label, '0');
    assert.equal((cache.get(limit - 1, 1, limit - 1, 5) as unknown as { label: string }).label, String(limit - 1));
    assert.equal(cache.get(limit + 10, 1, limit + 10, 5), undefined);
  });

  it('refuses memo keys and lines of 2^31 and more (a LONG_BINGET reaches 2^32)', () => {
    const cache = new FrameDictCache();
    cache.set(2 ** 31, 1, 3, 5, dict('far'));
    cache.set(3, 2 ** 31, 4, 5, dict('far line'));
    assert.equal(cache.get(2 ** 31, 1, 3, 5), undefined);
    assert.equal(cache.get(3, 2 ** 31, 4, 5), undefined);
    assert.equal(cache.get(3, 1, 2 ** 32 - 1, 5), undefined);
  });

  it('is forgotten with every other code when the memo overwrites a key', () => {
    const memo = new Memo();
    const codes = new MemoCodes();
    codes.sync(memo);
    const a = dict('a');
    codes.frameDicts.set(1, 2, 3, 5, a);
    codes.sync(memo);
    assert.equal(codes.frameDicts.get(1, 2, 3, 5), a, 'nothing overwritten: kept');
    memo.put(0, 'x');
    memo.put(0, 'y');
    assert.equal(codes.holds(memo), false);
    codes.sync(memo);
    assert.equal(codes.frameDicts.get(1, 2, 3, 5), undefined);
  });
});
