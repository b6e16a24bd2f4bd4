import { ContentError } from '../base/errors';

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

/** The file decoded, but it is not a memory snapshot we can read. */
export class SnapshotFormatError extends ContentError {
  override readonly name = 'SnapshotFormatError';
  readonly code = 'not-a-snapshot';
  constructor(message: string) {
    super(`not a memory snapshot: ${message}`);
  }
}
