import { userMessage } from '../base/errors';

/** A file we cannot read as a snapshot, before any decoding: not a regular file, too large, empty, another format. */
export class SnapshotFileError extends Error {
  override readonly name = 'SnapshotFileError';
}

/** The advice a file that decodes but is no snapshot gets: what a snapshot is. */
export const NOT_A_SNAPSHOT_ADVICE = 'A memory snapshot is the file torch.cuda.memory._dump_snapshot() writes.';

/** The advice a snapshot that cannot be decoded gets: what a snapshot is, and the usual cause of a damaged one. */
export const SNAPSHOT_ADVICE = 'Open a file written by torch.cuda.memory._dump_snapshot(); if it is one, it may have been cut short while it was written or copied: copy it again.';

/** What to do about a file the decoder refused (by the error's class name and words: a worker passes only those on). */
export function snapshotAdvice(name: unknown, message: string): string | undefined {
  if (name !== 'PickleError' && name !== 'SnapshotFormatError') return undefined;
  return message.includes('not a memory snapshot') ? NOT_A_SNAPSHOT_ADVICE : SNAPSHOT_ADVICE;
}

/**
 * Why `file` could not be opened as a snapshot, for the user: `userMessage`'s words, and for a file
 * that is not a snapshot (or a damaged one), what to open instead.
 */
export function snapshotLoadMessage(file: string, e: unknown): string {
  const name = typeof e === 'object' && e !== null ? ((e as { errorName?: unknown }).errorName ?? (e as { name?: unknown }).name) : undefined;
  const why = userMessage(e);
  const advice = snapshotAdvice(name, why);
  return `${file} could not be read as a PyTorch memory snapshot: ${why}${/[.!?]$/.test(why) ? '' : '.'}${advice ? ` ${advice}` : ''}`;
}
