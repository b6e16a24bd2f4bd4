/**
 * `HeldSpans.peakWithout`: the device's peak with some bytes not held for a while, against a
 * brute force that subtracts every span from every event it covers, on random traces and spans.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HeldSpans } from '../../../../src/engine/analysis/peakWithout';

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('HeldSpans.peakWithout', () => {
  it('equals the brute force on 200 random traces', () => {
    const next = random(24);
    for (let round = 0; round < 200; round++) {
      const events = 1 + Math.floor(next() * 60);
      const initialActiveBytes = Math.floor(next() * 100);
      const active = Float64Array.from({ length: events }, () => initialActiveBytes + Math.floor(next() * 1000));
      const spans = new HeldSpans();
      const brute = Float64Array.from(active);
      const count = Math.floor(next() * 8);
      for (let k = 0; k < count; k++) {
        const start = Math.floor(next() * events);
        const end = start + Math.floor(next() * (events - start + 1));
        const size = Math.floor(next() * 300);
        spans.add(start, end, size);
        for (let e = start; e < end; e++) brute[e] -= size;
      }
      const expected = Math.max(initialActiveBytes, ...brute);
      assert.equal(spans.peakWithout({ active, events, initialActiveBytes }), expected, `round ${round}`);
    }
  });

  it('ignores empty spans; with none, the peak is the replay\'s', () => {
    const spans = new HeldSpans();
    spans.add(3, 3, 100);
    spans.add(2, 1, 100);
    spans.add(0, 2, 0);
    assert.equal(spans.count, 0);
    assert.equal(spans.peakWithout({ active: Float64Array.of(5, 9, 7), events: 3, initialActiveBytes: 4 }), 9);
  });

  it('the initial state counts: a peak before the first event does not drop', () => {
    const spans = new HeldSpans();
    spans.add(0, 3, 50);
    assert.equal(spans.peakWithout({ active: Float64Array.of(60, 70, 80), events: 3, initialActiveBytes: 90 }), 90);
  });
});
