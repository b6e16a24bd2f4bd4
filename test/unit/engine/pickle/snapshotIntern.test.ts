/**
 * Issue 16 item 2: a long string the pickle shares through its memo is interned by identity, never
 * copied per frame. Before the fix, 1,000 frames sharing one 8 MiB file name cost 8 GB (one
 * concatenated key per frame) and 100,000 frames sharing 1 MiB took minutes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodePickle } from '../../../../src/engine/pickle/encoder';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';

function sharedStringSnapshot(stringBytes: number, frames: number): Uint8Array {
  const long = 'x'.repeat(stringBytes);
  const blocks = Array.from({ length: frames }, (_, i) => ({
    size: 512,
    state: 'active_allocated',
    frames: [{ filename: long, line: i + 1, name: long }],
  }));
  return encodePickle({ segments: [{ address: 0, total_size: 512 * frames, blocks }] });
}

describe('interning shared strings', () => {
  for (const [stringBytes, frames, seconds] of [
    [8 << 20, 1000, 5],
    [1 << 20, 100_000, 5],
  ] as const) {
    it(`${frames} frames sharing one ${stringBytes >> 20} MiB string load in under ${seconds} s without copies`, () => {
      const bytes = sharedStringSnapshot(stringBytes, frames);
      assert.ok(bytes.length < 2 * stringBytes + frames * 40, `the file is small (${bytes.length} bytes)`);
      const heapBefore = process.memoryUsage().rss;
      const started = performance.now();
      const snapshot = snapshotFromBytes(bytes);
      const elapsed = (performance.now() - started) / 1000;
      const grown = process.memoryUsage().rss - heapBefore;
      assert.equal(snapshot.frames.length, frames);
      assert.equal(snapshot.frames[frames - 1].filename.length, stringBytes);
      assert.ok(elapsed < seconds, `took ${elapsed.toFixed(2)} s`);
      assert.ok(grown < 512 * 2 ** 20, `grew ${(grown / 2 ** 20).toFixed(0)} MiB`);
    });
  }
});
