/** The file decoded, but it is not a memory snapshot we can read. */
export class SnapshotFormatError extends Error {
  override readonly name = 'SnapshotFormatError';
  constructor(message: string) {
    super(`not a memory snapshot: ${message}`);
  }
}
