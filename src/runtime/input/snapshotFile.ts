/**
 * The one way in for snapshot bytes: `openSnapshot` reads a file from disk (the CLI, the analysis
 * worker), bytes already in memory (a file of another file system, read by the editor), or a snapshot
 * built in memory (a built-in workload's run), and owns what every reader needs:
 *
 * - the checks before any byte is read: a file must be a regular file (a FIFO, a device such as
 *   /dev/zero or a directory is refused at once, without blocking; the file is opened non-blocking and
 *   checked through its descriptor, so a file swapped for a FIFO between the check and the read cannot
 *   block either);
 * - what the first bytes say (`formatOf`): an empty file, a torch.save archive, another compression;
 * - gzip, inflated as it streams, within one limit ({@link MAX_GZIP_RATIO} times the compressed size);
 * - the bytes fed in chunks to the engine's `SnapshotReader` (the file is never held whole, so its size
 *   has no limit but the model's), with progress and cancellation between chunks;
 * - the fast path's policy (`withFastPath`): a pickle that needs the general machine is read once more
 *   from its start without it (PyTorch's files never do);
 * - typed errors: every refusal carries a `SnapshotErrorCode` (`code`), which survives a worker
 *   boundary; callers tell errors apart by it, never by their words.
 */
import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { SnapshotFileError } from '../../engine/decode/errors';
import { SnapshotReader, snapshotFromValue, withFastPath } from '../../engine/decode/load';
import { MAGIC_BYTES, formatOf } from '../../engine/decode/unpack';
import type { PlainValue } from '../../engine/pickle/encoder';
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
  readonly code = 'cancelled';
  constructor() {
    super('cancelled');
  }
}

/** Where a snapshot comes from. */
export type SnapshotInput =
  /** A file on disk, read in chunks. */
  | { readonly kind: 'file'; readonly path: string }
  /** A file's bytes already in memory (plain or gzip'd); `name` leads its messages when given. */
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array; readonly name?: string }
  /** A snapshot built in memory as the plain values a pickle of it would hold (a built-in workload's run). */
  | { readonly kind: 'value'; readonly value: PlainValue };

export interface OpenOptions {
  /** Progress: bytes of the input read so far, and its size. */
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

export interface OpenedSnapshot {
  readonly snapshot: Snapshot;
  /** The input's size: the file's on disk, or of the bytes given (0 for a snapshot built in memory). */
  readonly fileBytes: number;
  /** The pickle's size: the input's, or its content's for a gzip'd one (0 for a snapshot built in memory). */
  readonly pickleBytes: number;
}

/**
 * The snapshot of `input`, read in chunks.
 * @throws SnapshotFileError naming the file and why it cannot be read; PickleError, SnapshotFormatError
 *   and WorkLimitError from the engine for what it holds; LoadCancelledError when `signal` aborts. Each
 *   carries its `SnapshotErrorCode` as `code`.
 */
export async function openSnapshot(input: SnapshotInput, options: OpenOptions = {}): Promise<OpenedSnapshot> {
  switch (input.kind) {
    case 'value':
      return { snapshot: snapshotFromValue(input.value), fileBytes: 0, pickleBytes: 0 };
    case 'bytes':
      return readSource(bytesSource(input.bytes), input.name, options);
    case 'file':
      return readFile(input.path, options);
  }
}

/** The bytes of an input, from its start, as often as the fast path's policy reads them. */
interface ByteSource {
  readonly size: number;
  /** The first `n` bytes (fewer for a shorter input). */
  head(n: number): Promise<Uint8Array>;
  /** Hands each chunk to `use` in order (its buffer may be reused once `use` resolves); stops when `use` returns false. */
  forEachChunk(chunkBytes: number, options: OpenOptions, use: (chunk: Uint8Array) => boolean | Promise<boolean>): Promise<void>;
}

async function readFile(path: string, options: OpenOptions): Promise<OpenedSnapshot> {
  const handle = await openFile(path);
  try {
    const stats = await handle.stat();
    const problem = fileProblem({ isFile: stats.isFile(), kindInWords: fileKindInWords(stats) });
    if (problem !== undefined) throw new SnapshotFileError('unreadable', `${path}: ${problem}`);
    // Read exactly the size found: a file that grows meanwhile is not read past it.
    return await readSource(fileSource(handle, stats.size, path), path, options);
  } catch (e) {
    if (!isSystemError(e)) throw e;
    throw new SnapshotFileError('unreadable', `${path}: cannot read (${e.code ?? 'unknown error'})`);
  } finally {
    await handle.close();
  }
}

async function openFile(path: string): Promise<FileHandle> {
  try {
    return await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SnapshotFileError('unreadable', `${path}: no such file`);
    if (code === 'EACCES' || code === 'EPERM') throw new SnapshotFileError('unreadable', `${path}: permission denied`);
    if (code === 'EISDIR') throw new SnapshotFileError('unreadable', `${path}: is a directory, not a snapshot file`);
    throw new SnapshotFileError('unreadable', `${path}: cannot open (${code ?? 'unknown error'})`);
  }
}

function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && typeof (e as NodeJS.ErrnoException).syscall === 'string';
}

/** Reads `input`: its first bytes say what it is, then it is decoded under the fast path's policy. */
async function readSource(source: ByteSource, where: string | undefined, options: OpenOptions): Promise<OpenedSnapshot> {
  const named = (e: SnapshotFileError) => (where === undefined ? e : e.about(where));
  let gzip: boolean;
  try {
    gzip = formatOf(await source.head(MAGIC_BYTES)) === 'gzip';
  } catch (e) {
    throw e instanceof SnapshotFileError ? named(e) : e;
  }
  const pass = gzip ? readGzip : readPlain;
  const { snapshot, pickleBytes } = await withFastPath((fastPath) => pass(source, fastPath, options, named));
  return { snapshot, fileBytes: source.size, pickleBytes };
}

interface Decoded {
  readonly snapshot: Snapshot;
  readonly pickleBytes: number;
}

async function readPlain(source: ByteSource, fastPath: boolean, options: OpenOptions): Promise<Decoded> {
  const reader = new SnapshotReader({ expectedBytes: source.size, fastPath, window: options.window, stacks: options.stacks });
  await source.forEachChunk(options.chunkBytes ?? CHUNK_BYTES, options, (chunk) => {
    reader.feed(chunk);
    return reader.wantsMore;
  });
  return { snapshot: reader.finish(), pickleBytes: reader.bytesDecoded };
}

/** A gzip'd input: its content read the same way, through a streaming inflater. */
async function readGzip(source: ByteSource, fastPath: boolean, options: OpenOptions, named: (e: SnapshotFileError) => SnapshotFileError): Promise<Decoded> {
  const { createGunzip } = zlib();
  const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
  const reader = new SnapshotReader({ fastPath, window: options.window, stacks: options.stacks });
  const gunzip = createGunzip({ chunkSize: chunkBytes });
  const limit = MAX_GZIP_RATIO * Math.max(source.size, 1 << 16);
  let inflated = 0;
  let head: Uint8Array = new Uint8Array(0);
  let failure: Error | undefined;
  gunzip.on('data', (out: Buffer) => {
    if (failure !== undefined) return;
    try {
      inflated += out.length;
      if (inflated > limit) {
        throw named(new SnapshotFileError('gzip-too-large', `this gzip file expands more than ${MAX_GZIP_RATIO} times: not a memory snapshot (a decompression bomb?)`));
      }
      if (head.length < MAGIC_BYTES) {
        // The content's first bytes say what it is, like a file's.
        head = concat(head, out);
        if (head.length < MAGIC_BYTES) return;
        checkContent(head, named);
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
    await source.forEachChunk(chunkBytes, options, async (chunk) => {
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
        checkContent(head, named);
        reader.feed(head);
      }
    }
  } catch (e) {
    if (e instanceof Error && (e as NodeJS.ErrnoException).code?.startsWith('Z_')) {
      throw named(new SnapshotFileError('gzip-damaged', 'this gzip file cannot be decompressed: it is damaged or was cut short; copy it again'));
    }
    throw e;
  } finally {
    gunzip.destroy();
  }
  return { snapshot: reader.finish(), pickleBytes: reader.bytesDecoded };
}

/** node:zlib, loaded when a gzip'd snapshot is read (most are not: the CLI does not load it at start-up). */
function zlib(): typeof import('node:zlib') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy, synchronous load of a built-in module
  return require('node:zlib') as typeof import('node:zlib');
}

/** A gzip file's content must itself be a pickle: not empty, not gzip again, no other format. */
function checkContent(head: Uint8Array, named: (e: SnapshotFileError) => SnapshotFileError): void {
  try {
    formatOf(head, true);
  } catch (e) {
    throw e instanceof SnapshotFileError ? named(e) : e;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Bytes in memory as a source: chunks are views, nothing is copied. */
function bytesSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    head: (n) => Promise.resolve(bytes.subarray(0, n)),
    async forEachChunk(chunkBytes, options, use) {
      for (let position = 0; position < bytes.length; ) {
        const chunk = bytes.subarray(position, Math.min(bytes.length, position + chunkBytes));
        position += chunk.length;
        if (options.signal?.aborted) throw new LoadCancelledError();
        const more = await use(chunk);
        options.onProgress?.(position, bytes.length);
        if (!more) break;
      }
    },
  };
}

/** An open file of `size` bytes as a source: read into two buffers, one decoded while the next is read. */
function fileSource(handle: FileHandle, size: number, path: string): ByteSource {
  return {
    size,
    async head(n) {
      const into = new Uint8Array(Math.min(size, n));
      let filled = 0;
      while (filled < into.length) {
        const { bytesRead } = await handle.read(into, filled, into.length - filled, filled);
        if (bytesRead === 0) throw new SnapshotFileError('unreadable', `${path}: the file shrank while it was read`);
        filled += bytesRead;
      }
      return into;
    },
    async forEachChunk(chunkBytes, options, use) {
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
    },
  };
}
