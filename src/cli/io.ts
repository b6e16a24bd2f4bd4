/** How CLI commands talk to the terminal and the disk, injectable for tests. */
import { WorkLimitError } from '../engine/base/errors';
import { SnapshotFileError } from '../engine/decode/errors';
import { PickleError } from '../engine/pickle/errors';
import { SnapshotFormatError } from '../engine/snapshot/errors';
import type { Snapshot } from '../engine/snapshot/model';
import { terminalText } from '../engine/text/plainText';
import type { FileLoadOptions } from '../runtime/input/snapshotFile';
import { loadSnapshotFile as readSnapshotFile } from '../runtime/input/snapshotFile';
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

/** The snapshot in the file at `path`, streamed from disk; what it cannot read becomes an {@link InputError}. */
export async function loadSnapshotFile(path: string, options: FileLoadOptions = {}): Promise<Snapshot> {
  try {
    return (await readSnapshotFile(path, options)).snapshot;
  } catch (e) {
    if (e instanceof SnapshotFileError) throw new InputError(e.message);
    if (e instanceof PickleError || e instanceof SnapshotFormatError || e instanceof WorkLimitError) throw new InputError(`${path}: ${e.message}`);
    throw e;
  }
}
