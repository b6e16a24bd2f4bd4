/**
 * File -> decoder -> model: the one way a snapshot enters the core. Pure; callers supply the bytes
 * (the CLI reads the disk, the extension reads through `vscode.workspace.fs`).
 * Trace entries stream from the decoder straight into columns, so no tree of millions of dicts is
 * ever held.
 */
import { decodePickle } from './pickle/decoder';
import { FrameTable } from './snapshot/intern';
import { TraceSink, snapshotFromPickle } from './snapshot/fromPickle';
import type { Snapshot } from './snapshot/model';

export interface LoadOptions {
  /** Progress while decoding: bytes decoded so far and the total. */
  readonly onProgress?: (bytesDecoded: number, bytesTotal: number) => void;
}

export function snapshotFromBytes(bytes: Uint8Array, options: LoadOptions = {}): Snapshot {
  const sink = new TraceSink(new FrameTable());
  const root = decodePickle(bytes, { onAppend: sink.onAppend, onProgress: options.onProgress });
  return snapshotFromPickle(root, sink);
}
