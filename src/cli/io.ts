/** How CLI commands talk to the terminal and the disk, injectable for tests. */
import { readFile } from 'node:fs/promises';
import { PickleError } from '../core/pickle/errors';
import { SnapshotFormatError } from '../core/snapshot/errors';
import type { Snapshot } from '../core/snapshot/model';
import type { OwnedBytes } from '../core/load';
import { snapshotFromOwnedBytes } from '../core/load';

export interface CliIO {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

export const processIO: CliIO = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** An error the user can act on: printed without a stack, with a non-zero exit. */
export class InputError extends Error {
  override readonly name = 'InputError';
}

export async function loadSnapshotFile(path: string): Promise<Snapshot> {
  const owned: OwnedBytes = { bytes: undefined };
  try {
    owned.bytes = await readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new InputError(`${path}: no such file`);
    if (code === 'EISDIR') throw new InputError(`${path}: is a directory, not a snapshot file`);
    throw new InputError(`${path}: cannot read (${code ?? String(e)})`);
  }
  try {
    return snapshotFromOwnedBytes(owned);
  } catch (e) {
    if (e instanceof PickleError || e instanceof SnapshotFormatError) throw new InputError(`${path}: ${e.message}`);
    throw e;
  }
}
