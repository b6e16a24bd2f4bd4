/** A file we cannot read as a snapshot, before any decoding: not a regular file, too large, empty, another format. */
export class SnapshotFileError extends Error {
  override readonly name = 'SnapshotFileError';
}
