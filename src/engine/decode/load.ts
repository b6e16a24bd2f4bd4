/**
 * File -> decoder -> model: the one way a snapshot enters the engine. Pure; callers supply the bytes
 * (the runtime reads the file: `src/runtime/input`) and, for gzip'd files, the inflater.
 * Trace entries stream from the decoder straight into columns, so no tree of millions of dicts is
 * ever held.
 */
import type { Gunzip } from './unpack';
import { pickleBytesOf } from './unpack';
import { decodePickle } from '../pickle/decoder';
import { FrameTable } from '../snapshot/intern';
import { TraceSink, snapshotFromPickle } from '../snapshot/fromPickle';
import type { Snapshot } from '../snapshot/model';

export interface LoadOptions {
  /** Progress while decoding: bytes decoded so far and the total. */
  readonly onProgress?: (bytesDecoded: number, bytesTotal: number) => void;
  /** Decompresses a gzip'd snapshot (the runtime's `gunzipBounded`); without it such a file is refused. */
  readonly gunzip?: Gunzip;
}

export function snapshotFromBytes(bytes: Uint8Array, options: LoadOptions = {}): Snapshot {
  return snapshotFromOwnedBytes({ bytes }, options);
}

/** Holds a file's bytes that the loader may drop once decoded. */
export interface OwnedBytes {
  bytes: Uint8Array | undefined;
}

/**
 * Like `snapshotFromBytes`, but takes the bytes out of `source` once they are decoded, so a caller
 * that keeps no other reference lets the file buffer be freed before the model is finished.
 */
export function snapshotFromOwnedBytes(source: OwnedBytes, options: LoadOptions = {}): Snapshot {
  if (source.bytes === undefined) throw new Error('snapshotFromOwnedBytes: the bytes were already taken');
  // An empty file, a torch.save zip or a compressed file is told apart (or unpacked) before decoding.
  const bytes = pickleBytesOf(source.bytes, options.gunzip);
  const sink = new TraceSink(new FrameTable(), bytes.length);
  const root = decodePickle(bytes, { onAppend: sink.onAppend, onProgress: options.onProgress });
  source.bytes = undefined;
  return snapshotFromPickle(root, sink);
}
