import { ContentError } from '../base/errors';

/** The file decoded, but it is not a memory snapshot we can read. */
export class SnapshotFormatError extends ContentError {
  override readonly name = 'SnapshotFormatError';
  constructor(message: string) {
    super(`not a memory snapshot: ${message}`);
  }
}
