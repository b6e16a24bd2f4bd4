/** How CLI commands talk to the terminal and the disk, injectable for tests. */
import { WorkLimitError } from '../engine/base/errors';
import { SnapshotFileError, snapshotAdvice } from '../engine/decode/errors';
import { PickleError } from '../engine/pickle/errors';
import { SnapshotFormatError } from '../engine/snapshot/errors';
import type { Snapshot } from '../engine/snapshot/model';
import { terminalText } from '../engine/text/plainText';
import type { FileLoadOptions } from '../runtime/input/snapshotFile';
import { loadSnapshotFile as readSnapshotFile } from '../runtime/input/snapshotFile';
import type { ProgressStream } from './progress';
import { terminalProgress } from './progress';
export interface CliIO {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Where a progress bar may be drawn while a file is read (a terminal's stderr); none in tests. */
  readonly progress?: ProgressStream;
}

/** The terminal: text from snapshots (file names, dict keys) never writes a control sequence. */
export const processIO: CliIO = {
  out: (text) => process.stdout.write(terminalText(text)),
  err: (text) => process.stderr.write(terminalText(text)),
  progress: process.stderr,
};

/** An error the user can act on: printed without a stack, with a non-zero exit. */
export class InputError extends Error {
  override readonly name = 'InputError';
}

/**
 * The snapshot in the file at `path`, streamed from disk (with a progress bar on a terminal's stderr
 * for a big file); what it cannot read becomes an {@link InputError}.
 */
export async function loadSnapshotFile(path: string, options: FileLoadOptions = {}, io?: CliIO): Promise<Snapshot> {
  const bar = io?.progress === undefined ? undefined : terminalProgress(io.progress, path);
  try {
    return (await readSnapshotFile(path, { ...options, onProgress: bar?.onProgress ?? options.onProgress })).snapshot;
  } catch (e) {
    if (e instanceof SnapshotFileError) throw new InputError(e.message);
    if (e instanceof PickleError || e instanceof SnapshotFormatError) throw new InputError(`${path}: ${e.message}. ${snapshotAdvice(e.name, e.message) ?? ''}`.trimEnd());
    if (e instanceof WorkLimitError) throw new InputError(`${path}: ${e.message}`);
    throw e;
  } finally {
    bar?.done();
  }
}
