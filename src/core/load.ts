/**
 * File -> decoder -> model: the one way a snapshot enters the core. Pure; callers supply the bytes
 * (the CLI reads the disk, the extension reads through `vscode.workspace.fs`).
 */
import { decodePickle } from './pickle/decoder';
import { snapshotFromPickle } from './snapshot/fromPickle';
import type { Snapshot } from './snapshot/model';

export function snapshotFromBytes(bytes: Uint8Array): Snapshot {
  return snapshotFromPickle(decodePickle(bytes));
}
