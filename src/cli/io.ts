/** How CLI commands talk to the terminal and the disk, injectable for tests. */
import { SnapshotFileError, snapshotAdvice } from '../engine/decode/errors';
import { readSnapshotFile } from '../runtime/input/snapshotFile';
import { PickleError } from '../engine/pickle/errors';
import { SnapshotFormatError } from '../engine/snapshot/errors';
import type { Snapshot } from '../engine/snapshot/model';
import type { OwnedBytes } from '../engine/decode/load';
import { snapshotFromOwnedBytes } from '../engine/decode/load';
import { terminalText } from '../engine/text/plainText';
import { gunzipBounded } from '../runtime/input/gunzip';

export interface CliIO {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** The terminal: text from snapshots (file names, dict keys) never writes a control sequence. */
export const processIO: CliIO = {
  out: (text) => process.stdout.write(terminalText(text)),
  err: (text) => process.stderr.write(terminalText(text)),
};

/** An error the user can act on: printed without a stack, with a non-zero exit. */
export class InputError extends Error {
  override readonly name = 'InputError';
}

export async function loadSnapshotFile(path: string): Promise<Snapshot> {
  const owned: OwnedBytes = { bytes: undefined };
  try {
    owned.bytes = await readSnapshotFile(path);
  } catch (e) {
    if (e instanceof SnapshotFileError) throw new InputError(e.message);
    throw e;
  }
  try {
    return snapshotFromOwnedBytes(owned, { gunzip: gunzipBounded });
  } catch (e) {
    if (e instanceof PickleError || e instanceof SnapshotFormatError) throw new InputError(`${path}: ${e.message}. ${snapshotAdvice(e.name, e.message) ?? ''}`.trimEnd());
    if (e instanceof SnapshotFileError) throw new InputError(`${path}: ${e.message}`);
    throw e;
  }
}
