/**
 * File -> decoder -> model: the one way a snapshot enters the core. Pure; callers supply the bytes
 * (the CLI reads the disk, the extension reads through `vscode.workspace.fs`).
 * Trace entries stream from the decoder straight into columns, so no tree of millions of dicts is
 * ever held.
 */
import { pickleBytesOf } from './input/snapshotBytes';
import { decodePickle } from './pickle/decoder';
import { FrameTable } from './snapshot/intern';
import { TraceSink, snapshotFromPickle } from './snapshot/fromPickle';
import type { Snapshot } from './snapshot/model';

export interface LoadOptions {
  /** Progress while decoding: bytes decoded so far and the total. */
  readonly onProgress?: (bytesDecoded: number, bytesTotal: number) => void;
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
  const bytes = pickleBytesOf(source.bytes);
  const sink = new TraceSink(new FrameTable());
  const root = decodePickle(bytes, { onAppend: sink.onAppend, onScanned: sink.onScanned, onProgress: options.onProgress });
  source.bytes = undefined;
  return snapshotFromPickle(root, sink);
}
