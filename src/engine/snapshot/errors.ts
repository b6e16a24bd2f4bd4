import { ContentError } from '../base/errors';

/** The file decoded, but it is not a memory snapshot we can read. */
/**
 * A trace event's stack was asked of a snapshot read without them (`Snapshot.stacksNotRead`): not a
 * problem of the file; the caller reads it again with its stacks.
 */
export class StacksNotReadError extends Error {
  override readonly name = 'StacksNotReadError';
  constructor() {
    super('the snapshot was read without its stacks');
  }
}

export class SnapshotFormatError extends ContentError {
  override readonly name = 'SnapshotFormatError';
  constructor(message: string) {
    super(`not a memory snapshot: ${message}`);
  }
}
