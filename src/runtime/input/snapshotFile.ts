/**
 * Reading a snapshot file from disk with the checks that come before any byte is read: it must be
 * a regular file (a FIFO, a device such as /dev/zero or a directory is refused at once, without
 * blocking) no larger than {@link MAX_SNAPSHOT_BYTES}. Used by the CLI and by the extension for
 * local files. The file is opened non-blocking and checked through its descriptor, so a file
 * swapped for a FIFO between the check and the read cannot block either.
 */
import { constants, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { SnapshotFileError } from '../../engine/decode/errors';
import { MAX_SNAPSHOT_BYTES, sizeInWords } from '../../engine/decode/unpack';

/** What a non-regular file is, in words. */
export function fileKindInWords(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The checks on a file's type and size, as one message; undefined when it may be read. */
export function fileProblem(kind: { isFile: boolean; size: number; kindInWords: string }, maxBytes: number = MAX_SNAPSHOT_BYTES): string | undefined {
  if (!kind.isFile) return `is ${kind.kindInWords}, not a snapshot file`;
  if (kind.size > maxBytes) return `is ${sizeInWords(kind.size)}; VRAM Lens reads snapshot files up to ${sizeInWords(maxBytes)}`;
  return undefined;
}

/**
 * The bytes of the snapshot file at `path`.
 * @throws SnapshotFileError naming the file and why it cannot be read.
 */
export async function readSnapshotFile(path: string, maxBytes: number = MAX_SNAPSHOT_BYTES): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SnapshotFileError(`${path}: no such file`);
    if (code === 'EACCES' || code === 'EPERM') throw new SnapshotFileError(`${path}: permission denied`);
    if (code === 'EISDIR') throw new SnapshotFileError(`${path}: is a directory, not a snapshot file`);
    throw new SnapshotFileError(`${path}: cannot open (${code ?? 'unknown error'})`);
  }
  try {
    const stats = await handle.stat();
    const problem = fileProblem({ isFile: stats.isFile(), size: stats.size, kindInWords: fileKindInWords(stats) }, maxBytes);
    if (problem !== undefined) throw new SnapshotFileError(`${path}: ${problem}`);
    // Read exactly the size found: a file that grows meanwhile is not read past it.
    const bytes = new Uint8Array(stats.size);
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return filled === bytes.length ? bytes : bytes.subarray(0, filled);
  } catch (e) {
    if (e instanceof SnapshotFileError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new SnapshotFileError(`${path}: cannot read (${code ?? 'unknown error'})`);
  } finally {
    await handle.close();
  }
}
