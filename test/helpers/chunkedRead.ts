/** Readers fed their input in chunks of one size, as a file is read (what tests of chunk boundaries share). */
import type { ReadOptions } from '../../src/engine/decode/load';
import { SnapshotReader } from '../../src/engine/decode/load';
import type { Snapshot } from '../../src/engine/snapshot/model';

/** What takes its input in chunks: the pickle decoder and the snapshot reader. */
export interface ChunkReader<T> {
  readonly wantsMore: boolean;
  feed(chunk: Uint8Array): void;
  finish(): T;
}

/**
 * Feeds `data` to `reader` in chunks of `size` bytes through one reused buffer, overwritten after each
 * feed (so the reader cannot keep a view of bytes it was given), until the reader wants no more.
 */
export function feedInChunks<T>(reader: ChunkReader<T>, data: Uint8Array, size: number): T {
  const buffer = new Uint8Array(size);
  for (let at = 0; at < data.length && reader.wantsMore; at += size) {
    const chunk = buffer.subarray(0, Math.min(size, data.length - at));
    chunk.set(data.subarray(at, at + chunk.length));
    reader.feed(chunk);
    chunk.fill(0xee);
  }
  return reader.finish();
}

/** The snapshot reader fed `pickle` in chunks of `chunk` bytes. */
export function readInChunks(pickle: Uint8Array, chunk: number, options: ReadOptions = {}): Snapshot {
  return feedInChunks(new SnapshotReader({ expectedBytes: pickle.length, ...options }), pickle, chunk);
}
