/** How CLI commands talk to the terminal and the disk, injectable for tests. */
import { SnapshotFileError, snapshotAdvice, snapshotErrorCode } from '../engine/decode/errors';
import type { Snapshot } from '../engine/snapshot/model';
import { terminalText } from '../engine/text/plainText';
import type { OpenOptions } from '../runtime/input/snapshotFile';
import { openSnapshot } from '../runtime/input/snapshotFile';
import { tuneCompiler } from './compilerTuning';
import type { ProgressStream } from './progress';
import { terminalProgress } from './progress';
export interface CliIO {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Where a progress bar may be drawn while a file is read (a terminal's stderr); none in tests. */
  readonly progress?: ProgressStream;
  /**
   * Tunes the process's compiler to a command and the files it reads (`compilerTuning.ts`); returns how
   * to undo it once the command is done. None in tests.
   */
  readonly tuneCompiler?: (command: string, paths: readonly string[]) => (() => void) | undefined;
}

/** The terminal: text from snapshots (file names, dict keys) never writes a control sequence. */
export const processIO: CliIO = {
  out: (text) => process.stdout.write(terminalText(text)),
  err: (text) => process.stderr.write(terminalText(text)),
  progress: process.stderr,
  tuneCompiler,
};

/** An error the user can act on: printed without a stack, with a non-zero exit. */
export class InputError extends Error {
  override readonly name = 'InputError';
}

/**
 * The snapshot in the file at `path`, streamed from disk by the one way in for snapshot bytes
 * (`openSnapshot`; with a progress bar on a terminal's stderr for a big file); what it cannot read
 * becomes an {@link InputError}, told apart by its code.
 */
export async function loadSnapshotFile(path: string, options: OpenOptions = {}, io?: CliIO): Promise<Snapshot> {
  const bar = io?.progress === undefined ? undefined : terminalProgress(io.progress, path);
  try {
    return (await openSnapshot({ kind: 'file', path }, { ...options, onProgress: bar?.onProgress ?? options.onProgress })).snapshot;
  } catch (e) {
    const code = snapshotErrorCode(e);
    if (code === undefined || code === 'cancelled') throw e;
    // A file's own errors name it already; the decoder's and the model's say what is wrong inside it.
    const message = (e as Error).message;
    const advice = snapshotAdvice(code);
    throw new InputError(e instanceof SnapshotFileError ? message : `${path}: ${message}${advice === undefined ? '' : `. ${advice}`}`);
  } finally {
    bar?.done();
  }
}
