import { userMessage } from '../base/errors';
import type { PickleErrorCode } from '../pickle/errors';

/** Why a file cannot be read as a snapshot before any of its pickle is decoded. */
export type SnapshotFileCode =
  /** No such file, no permission, not a regular file (a folder, a FIFO, a device), or a read that failed. */
  | 'unreadable'
  /** The file (or a gzip file's content) holds nothing. */
  | 'empty'
  /** A torch.save archive (a zip): another PyTorch file, no memory snapshot. */
  | 'torch-save-archive'
  /** Compressed in a way VRAM Lens does not undo (zstd, xz, bzip2, gzip inside gzip). */
  | 'compressed'
  /** A gzip file that cannot be decompressed: damaged or cut short. */
  | 'gzip-damaged'
  /** A gzip file whose content is far larger than any snapshot's (a decompression bomb). */
  | 'gzip-too-large'
  /** Larger than what this way of reading it can hold (a file of another file system, read into memory). */
  | 'over-limit';

/**
 * What went wrong with a snapshot, as a code that crosses a worker boundary (`ErrorShape.code`): the
 * file's (`SnapshotFileCode`), the pickle's (`PickleErrorCode`: damaged, or `forbidden`: it would run
 * code), the model's (`not-a-snapshot`: it decodes but holds something else), the work budget's
 * (`work-limit`), or `cancelled`. Callers tell errors apart by this code, never by their words.
 */
export type SnapshotErrorCode = SnapshotFileCode | PickleErrorCode | 'not-a-snapshot' | 'work-limit' | 'cancelled';

/** A file we cannot read as a snapshot, before any decoding: not a regular file, too large, empty, another format. */
export class SnapshotFileError extends Error {
  override readonly name = 'SnapshotFileError';
  constructor(
    readonly code: SnapshotFileCode,
    message: string,
  ) {
    super(message);
  }

  /** The same error, its message led by `where` (the file's name). */
  about(where: string): SnapshotFileError {
    return new SnapshotFileError(this.code, `${where}: ${this.message}`);
  }
}

/** The advice a file that decodes but is no snapshot gets: what a snapshot is. */
export const NOT_A_SNAPSHOT_ADVICE = 'A memory snapshot is the file torch.cuda.memory._dump_snapshot() writes.';

/** The advice a snapshot that cannot be decoded gets: what a snapshot is, and the usual cause of a damaged one. */
export const SNAPSHOT_ADVICE = 'Open a file written by torch.cuda.memory._dump_snapshot(); if it is one, it may have been cut short while it was written or copied: copy it again.';

/** The code of an error raised by reading a snapshot (here or, as `RemoteError.code`, in a worker); undefined for any other. */
export function snapshotErrorCode(e: unknown): SnapshotErrorCode | undefined {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' && SNAPSHOT_ERROR_CODES.has(code) ? (code as SnapshotErrorCode) : undefined;
}

const SNAPSHOT_ERROR_CODES: ReadonlySet<string> = new Set<SnapshotErrorCode>([
  'unreadable',
  'empty',
  'torch-save-archive',
  'compressed',
  'gzip-damaged',
  'gzip-too-large',
  'over-limit',
  'truncated',
  'too-large',
  'bad-opcode',
  'forbidden',
  'corrupt',
  'unsupported-protocol',
  'unsupported',
  'not-a-snapshot',
  'work-limit',
  'cancelled',
]);

/** What to do about a snapshot error with this code: what a snapshot is, for a file that is none or is damaged. */
export function snapshotAdvice(code: SnapshotErrorCode | undefined): string | undefined {
  switch (code) {
    case 'forbidden':
    case 'not-a-snapshot':
      return NOT_A_SNAPSHOT_ADVICE;
    case 'truncated':
    case 'bad-opcode':
    case 'corrupt':
    case 'unsupported-protocol':
    case 'unsupported':
    case 'too-large':
      return SNAPSHOT_ADVICE;
    default:
      return undefined;
  }
}

/**
 * Why `file` could not be opened as a snapshot, for the user: `userMessage`'s words, and for a file
 * that is not a snapshot (or a damaged one), what to open instead.
 */
export function snapshotLoadMessage(file: string, e: unknown): string {
  const why = userMessage(e);
  const advice = snapshotAdvice(snapshotErrorCode(e));
  return `${file} could not be read as a PyTorch memory snapshot: ${why}${/[.!?]$/.test(why) ? '' : '.'}${advice ? ` ${advice}` : ''}`;
}
