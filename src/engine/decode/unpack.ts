/**
 * What a snapshot file's first bytes say before the pickle decoder sees them: the neighbours of a
 * memory snapshot get a clear message (a torch.save archive, an empty file) and a gzip-compressed
 * snapshot held in memory is decompressed, bounded by {@link MAX_SNAPSHOT_BYTES}, by the inflater the
 * runtime passes in (the engine itself has no zlib: `src/runtime/input/gunzip.ts`; files are streamed
 * through zlib there).
 */
import { SnapshotFileError } from './errors';
import { formatFileSize } from '../text/format';

/**
 * The most a gzip'd snapshot held in memory may hold once decompressed (Node's Buffer stops near 2
 * GiB). Files are not held in memory: the runtime streams them, of any size, gzip'd or not.
 */
export const MAX_SNAPSHOT_BYTES = 2 ** 31 - 1;

const ZIP = [0x50, 0x4b, 0x03, 0x04];
const GZIP = [0x1f, 0x8b];
const ZSTD = [0x28, 0xb5, 0x2f, 0xfd];
const XZ = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00];
const BZIP2 = [0x42, 0x5a, 0x68];

function startsWith(bytes: Uint8Array, magic: readonly number[]): boolean {
  return bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b);
}


/**
 * Decompresses a whole gzip member, producing at most `maxOutputLength` bytes.
 * @throws RangeError (or an error whose `code` is `ERR_BUFFER_TOO_LARGE`) when the content is larger.
 */
export type Gunzip = (bytes: Uint8Array, maxOutputLength: number) => Uint8Array;

/** The longest magic number {@link formatOf} looks at. */
export const MAGIC_BYTES = 6;

/**
 * What a file's first bytes say it is: a pickle, or gzip (whose content is read the same way again).
 * `start` holds the first {@link MAGIC_BYTES} bytes of the file, or all of a shorter file.
 * @throws SnapshotFileError for an empty file, a torch.save archive, or zstd/xz/bzip2 compression.
 */
export function formatOf(start: Uint8Array): 'pickle' | 'gzip' {
  if (start.length === 0) throw new SnapshotFileError('the file is empty: a memory snapshot is a pickle written by torch.cuda.memory._dump_snapshot');
  if (startsWith(start, ZIP)) {
    throw new SnapshotFileError('this is a torch.save archive (a zip), not a memory snapshot: write one with torch.cuda.memory._dump_snapshot("snapshot.pickle")');
  }
  if (startsWith(start, GZIP)) return 'gzip';
  const other = startsWith(start, ZSTD) ? ['zstd', 'zstd -d FILE'] : startsWith(start, XZ) ? ['xz', 'xz -d FILE'] : startsWith(start, BZIP2) ? ['bzip2', 'bunzip2 FILE'] : undefined;
  if (other !== undefined) {
    throw new SnapshotFileError(`this file is ${other[0]}-compressed: decompress it first (${other[1]}) and open the result`);
  }
  return 'pickle';
}

/** The message for a gzip file whose content is itself gzip'd. */
export const NESTED_GZIP = 'this gzip file holds another gzip file: decompress it with gunzip first';

/**
 * The pickle inside `bytes`: the bytes themselves, or the decompressed content of a gzip file.
 * @throws SnapshotFileError for an empty file, a torch.save archive, zstd/xz/bzip2 compression, or
 *   a gzip whose content is damaged or larger than `maxBytes`.
 */
export function pickleBytesOf(bytes: Uint8Array, gunzip: Gunzip | undefined, maxBytes: number = MAX_SNAPSHOT_BYTES): Uint8Array {
  if (formatOf(bytes.subarray(0, MAGIC_BYTES)) === 'pickle') return bytes;
  if (gunzip === undefined) throw new SnapshotFileError('this file is gzip-compressed: decompress it first (gunzip FILE) and open the result');
  let inner: Uint8Array;
  try {
    inner = gunzip(bytes, maxBytes);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
      throw new SnapshotFileError(`this gzip file holds more than ${formatFileSize(maxBytes)}, larger than VRAM Lens reads`);
    }
    throw new SnapshotFileError('this gzip file cannot be decompressed: it is damaged or was cut short; copy it again');
  }
  if (startsWith(inner, GZIP)) throw new SnapshotFileError(NESTED_GZIP);
  return pickleBytesOf(inner, gunzip, maxBytes);
}
