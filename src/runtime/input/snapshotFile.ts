/**
 * Reading a snapshot file from disk, streamed: the checks that come before any byte is read (it must
 * be a regular file: a FIFO, a device such as /dev/zero or a directory is refused at once, without
 * blocking), then the file read in chunks into the engine's `SnapshotReader`, through zlib when it is
 * gzip'd. The file is never held whole, so its size has no limit but the model's. Used by the CLI and
 * by the analysis worker (which reads the file itself, by path). The file is opened non-blocking and
 * checked through its descriptor, so a file swapped for a FIFO between the check and the read cannot
 * block either.
 */
import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { SnapshotFileError } from '../../engine/decode/errors';
import { RestartWithoutFastPath, SnapshotReader } from '../../engine/decode/load';
import { MAGIC_BYTES, NESTED_GZIP, formatOf } from '../../engine/decode/unpack';
import type { LoadWindow, Snapshot } from '../../engine/snapshot/model';

/** Bytes read from the file at a time (two buffers: one is decoded while the next is read). */
export const CHUNK_BYTES = 2 * 1024 * 1024;

/**
 * How much larger than the file a gzip'd snapshot may be once decompressed. Snapshot pickles compress
 * 10 to 35 times; zlib's limit is about 1,000. A file that expands further is a decompression bomb.
 */
export const MAX_GZIP_RATIO = 200;

/** What a non-regular file is, in words. */
export function fileKindInWords(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The checks on a file's type, as one message; undefined when it may be read. */
export function fileProblem(kind: { isFile: boolean; kindInWords: string }): string | undefined {
  return kind.isFile ? undefined : `is ${kind.kindInWords}, not a snapshot file`;
}

/** A load stopped by its `AbortSignal`. */
export class LoadCancelledError extends Error {
  override readonly name = 'LoadCancelledError';
  constructor() {
    super('cancelled');
  }
}

export interface FileLoadOptions {
  /** Progress: bytes of the file read so far, and its size. */
  readonly onProgress?: (bytesRead: number, bytesTotal: number) => void;
  /** Stops the load (it then rejects with {@link LoadCancelledError}) between two chunks. */
  readonly signal?: AbortSignal;
  /** Bytes per read (tests use odd sizes; default {@link CHUNK_BYTES}). */
  readonly chunkBytes?: number;
  /** Keep only this window of each device's trace (`LoadWindow`): memory live when it opens is carried in. */
  readonly window?: LoadWindow;
  /** False: the trace events' stacks are not kept (see `ReadOptions.stacks`). */
  readonly stacks?: boolean;
}

export interface LoadedFile {
  readonly snapshot: Snapshot;
  /** The file's size on disk. */
  readonly fileBytes: number;
  /** The pickle's size: the file's, or its content's for a gzip'd file. */
  readonly pickleBytes: number;
}

/**
 * The snapshot in the file at `path`, read in chunks.
 * @throws SnapshotFileError naming the file and why it cannot be read; PickleError, SnapshotFormatError
 *   and WorkLimitError from the engine for what it holds; LoadCancelledError when `signal` aborts.
 */
export async function loadSnapshotFile(path: string, options: FileLoadOptions = {}): Promise<LoadedFile> {
  const handle = await openSnapshotFile(path);
  try {
    const stats = await handle.stat();
    const problem = fileProblem({ isFile: stats.isFile(), kindInWords: fileKindInWords(stats) });
    if (problem !== undefined) throw new SnapshotFileError(`${path}: ${problem}`);
    // Read exactly the size found: a file that grows meanwhile is not read past it.
    const size = stats.size;
    const head = new Uint8Array(Math.min(size, MAGIC_BYTES));
    await readFully(handle, head, 0, path);
    const gzip = formatOf(head) === 'gzip';
    try {
      return await readOnce(handle, path, size, gzip, true, options);
    } catch (e) {
      if (!(e instanceof RestartWithoutFastPath)) throw e;
      return await readOnce(handle, path, size, gzip, false, options);
    }
  } catch (e) {
    if (e instanceof SnapshotFileError || !isSystemError(e)) throw e;
    throw new SnapshotFileError(`${path}: cannot read (${e.code ?? 'unknown error'})`);
  } finally {
    await handle.close();
  }
}

async function openSnapshotFile(path: string): Promise<FileHandle> {
  try {
    return await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SnapshotFileError(`${path}: no such file`);
    if (code === 'EACCES' || code === 'EPERM') throw new SnapshotFileError(`${path}: permission denied`);
    if (code === 'EISDIR') throw new SnapshotFileError(`${path}: is a directory, not a snapshot file`);
    throw new SnapshotFileError(`${path}: cannot open (${code ?? 'unknown error'})`);
  }
}

function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && typeof (e as NodeJS.ErrnoException).syscall === 'string';
}

async function readFully(handle: FileHandle, into: Uint8Array, position: number, path: string): Promise<void> {
  let filled = 0;
  while (filled < into.length) {
    const { bytesRead } = await handle.read(into, filled, into.length - filled, position + filled);
    if (bytesRead === 0) throw new SnapshotFileError(`${path}: the file shrank while it was read`);
    filled += bytesRead;
  }
}

async function readOnce(handle: FileHandle, path: string, size: number, gzip: boolean, fastPath: boolean, options: FileLoadOptions): Promise<LoadedFile> {
  const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
  if (!gzip) {
    const reader = new SnapshotReader({ expectedBytes: size, fastPath, window: options.window, stacks: options.stacks });
    await forEachChunk(handle, size, chunkBytes, options, (chunk) => {
      reader.feed(chunk);
      return reader.wantsMore;
    });
    return { snapshot: reader.finish(), fileBytes: size, pickleBytes: reader.bytesDecoded };
  }
  // A gzip'd file: its content read the same way, through a streaming inflater.
  const reader = new SnapshotReader({ fastPath, window: options.window, stacks: options.stacks });
  const gunzip = createGunzip({ chunkSize: chunkBytes });
  const limit = MAX_GZIP_RATIO * Math.max(size, 1 << 16);
  let inflated = 0;
  let head: Uint8Array = new Uint8Array(0);
  let failure: Error | undefined;
  gunzip.on('data', (out: Buffer) => {
    if (failure !== undefined) return;
    try {
      inflated += out.length;
      if (inflated > limit) throw new SnapshotFileError(`${path}: this gzip file expands more than ${MAX_GZIP_RATIO} times: not a memory snapshot (a decompression bomb?)`);
      if (head.length < MAGIC_BYTES) {
        // The content's first bytes say what it is, like a file's.
        head = concat(head, out);
        if (head.length < MAGIC_BYTES) return;
        checkContent(head, path);
        reader.feed(head);
      } else {
        reader.feed(out);
      }
    } catch (e) {
      failure = e instanceof Error ? e : new Error(String(e));
    }
  });
  const inflateErrors = new Promise<never>((_, reject) => gunzip.on('error', reject));
  inflateErrors.catch(() => undefined);
  const write = (chunk: Uint8Array): Promise<void> =>
    new Promise((resolve, reject) => {
      gunzip.write(Buffer.from(chunk), (e) => (e ? reject(e) : resolve()));
    });
  try {
    await forEachChunk(handle, size, chunkBytes, options, async (chunk) => {
      // A copy: the inflater may still read the chunk after this returns.
      await Promise.race([write(new Uint8Array(chunk)), inflateErrors]);
      if (failure !== undefined) throw failure;
      return reader.wantsMore;
    });
    if (reader.wantsMore) {
      await Promise.race([
        new Promise<void>((resolve) => {
          gunzip.once('end', resolve);
          gunzip.end();
        }),
        inflateErrors,
      ]);
      if (failure !== undefined) throw failure;
      if (head.length < MAGIC_BYTES) {
        checkContent(head, path);
        reader.feed(head);
      }
    }
  } catch (e) {
    if (e instanceof Error && (e as NodeJS.ErrnoException).code?.startsWith('Z_')) {
      throw new SnapshotFileError(`${path}: this gzip file cannot be decompressed: it is damaged or was cut short; copy it again`);
    }
    throw e;
  } finally {
    gunzip.destroy();
  }
  return { snapshot: reader.finish(), fileBytes: size, pickleBytes: reader.bytesDecoded };
}

function checkContent(head: Uint8Array, path: string): void {
  try {
    if (formatOf(head) === 'gzip') throw new SnapshotFileError(NESTED_GZIP);
  } catch (e) {
    if (e instanceof SnapshotFileError) throw new SnapshotFileError(`${path}: ${e.message.replace('the file is empty', 'the gzip file holds nothing')}`);
    throw e;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * Reads `size` bytes of the file in chunks, handing each to `use` while the next is read; stops early
 * when `use` returns false.
 */
async function forEachChunk(
  handle: FileHandle,
  size: number,
  chunkBytes: number,
  options: FileLoadOptions,
  use: (chunk: Uint8Array) => boolean | Promise<boolean>,
): Promise<void> {
  const buffers = [new Uint8Array(Math.min(chunkBytes, Math.max(size, 1))), new Uint8Array(Math.min(chunkBytes, Math.max(size, 1)))];
  const readAt = (k: number, position: number) => handle.read(buffers[k], 0, Math.min(buffers[k].length, size - position), position);
  let position = 0;
  let k = 0;
  let next = size > 0 ? readAt(0, 0) : undefined;
  try {
    while (next !== undefined) {
      const { bytesRead } = await next;
      next = undefined;
      if (bytesRead === 0) break;
      const chunk = buffers[k].subarray(0, bytesRead);
      position += bytesRead;
      k ^= 1;
      if (position < size) next = readAt(k, position);
      if (options.signal?.aborted) throw new LoadCancelledError();
      const more = await use(chunk);
      options.onProgress?.(position, size);
      if (!more) break;
    }
  } finally {
    // A read in flight must end before its buffer or the file goes away.
    if (next !== undefined) await next.catch(() => undefined);
  }
}
