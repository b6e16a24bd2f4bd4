/**
 * What a snapshot file's first bytes say before the pickle decoder sees them: the neighbours of a
 * memory snapshot get a clear message (a torch.save archive, an empty file, another compression), and a
 * gzip'd snapshot is recognised. The engine has no zlib: the runtime's one way in for snapshot bytes
 * (`openSnapshot`, `src/runtime/input/snapshotFile.ts`) inflates gzip as it streams.
 */
import { SnapshotFileError } from './errors';

/**
 * The most a file of another file system may hold (it is read into memory there, and Node's Buffer
 * stops near 2 GiB). Local files are streamed, of any size.
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


/** The longest magic number {@link formatOf} looks at. */
export const MAGIC_BYTES = 6;

/**
 * What a file's first bytes say it is: a pickle, or gzip (whose content is read the same way again,
 * `inGzip`). `start` holds the first {@link MAGIC_BYTES} bytes of the file, or all of a shorter file.
 * @throws SnapshotFileError for an empty file, a torch.save archive, zstd/xz/bzip2 compression, or gzip
 *   inside gzip.
 */
export function formatOf(start: Uint8Array, inGzip = false): 'pickle' | 'gzip' {
  if (start.length === 0) {
    throw new SnapshotFileError('empty', inGzip ? 'the gzip file holds nothing' : 'the file is empty: a memory snapshot is a pickle written by torch.cuda.memory._dump_snapshot');
  }
  if (startsWith(start, ZIP)) {
    throw new SnapshotFileError('torch-save-archive', 'this is a torch.save archive (a zip), not a memory snapshot: write one with torch.cuda.memory._dump_snapshot("snapshot.pickle")');
  }
  if (startsWith(start, GZIP)) {
    if (inGzip) throw new SnapshotFileError('compressed', 'this gzip file holds another gzip file: decompress it with gunzip first');
    return 'gzip';
  }
  const other = startsWith(start, ZSTD) ? ['zstd', 'zstd -d FILE'] : startsWith(start, XZ) ? ['xz', 'xz -d FILE'] : startsWith(start, BZIP2) ? ['bzip2', 'bunzip2 FILE'] : undefined;
  if (other !== undefined) {
    throw new SnapshotFileError('compressed', `this file is ${other[0]}-compressed: decompress it first (${other[1]}) and open the result`);
  }
  return 'pickle';
}

/**
 * The pickle in `bytes` held in memory: the bytes themselves.
 * @throws SnapshotFileError for an empty file, a torch.save archive or a compressed file (a gzip'd one
 *   is read by the runtime's `openSnapshot`, which inflates it as it streams).
 */
export function pickleBytesOf(bytes: Uint8Array): Uint8Array {
  if (formatOf(bytes.subarray(0, MAGIC_BYTES)) === 'gzip') {
    throw new SnapshotFileError('compressed', 'this file is gzip-compressed: decompress it first (gunzip FILE) and open the result');
  }
  return bytes;
}
