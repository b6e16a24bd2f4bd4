/** The snapshot reader fed a pickle in chunks of one size, as a file is read (what tests of chunk boundaries share). */
import type { ReadOptions } from '../../src/engine/decode/load';
import { SnapshotReader } from '../../src/engine/decode/load';
import type { Snapshot } from '../../src/engine/snapshot/model';

/**
 * Reads `pickle` in chunks of `chunk` bytes through one reused buffer, overwritten after each feed
 * (so the reader cannot keep a view of bytes it was given), until the reader wants no more.
 */
export function readInChunks(pickle: Uint8Array, chunk: number, options: ReadOptions = {}): Snapshot {
  const reader = new SnapshotReader({ expectedBytes: pickle.length, ...options });
  const buffer = new Uint8Array(chunk);
  for (let at = 0; at < pickle.length && reader.wantsMore; at += chunk) {
    const part = buffer.subarray(0, Math.min(chunk, pickle.length - at));
    part.set(pickle.subarray(at, at + part.length));
    reader.feed(part);
    part.fill(0xee);
  }
  return reader.finish();
}
