/**
 * File -> decoder -> model: the one way a snapshot enters the engine. Pure: the runtime reads the
 * file (`src/runtime/input/snapshotFile.ts`) and feeds its bytes, in chunks, to a {@link SnapshotReader};
 * bytes already in memory go through {@link snapshotFromBytes}. Trace entries stream from the decoder
 * straight into columns, so neither the file nor a tree of millions of dicts is ever held.
 */
import type { Gunzip } from './unpack';
import { pickleBytesOf } from './unpack';
import { COST, WorkBudget } from '../base/workBudget';
import { PickleDecoder } from '../pickle/decoder';
import { RestartWithoutFastPath } from '../pickle/memo';
import { TraceEntryReader } from '../pickle/traceEntries';
import { FrameTable } from '../snapshot/intern';
import { TraceSink, snapshotFromPickle } from '../snapshot/fromPickle';
import type { LoadWindow, Snapshot } from '../snapshot/model';
import { formatCount } from '../text/format';

export { RestartWithoutFastPath } from '../pickle/memo';

export interface ReadOptions {
  /** The pickle's length when known beforehand: sizes the trace storage (see `TraceSink`). */
  readonly expectedBytes?: number;
  /**
   * Read trace entries through the decoder's fast path (default). A pickle that needs the general
   * machine throws {@link RestartWithoutFastPath} from `feed` or `finish`: read it again with false.
   */
  readonly fastPath?: boolean;
  /** Keep only this window of each device's trace, with what is live when it opens carried in. */
  readonly window?: LoadWindow;
  /**
   * False: the trace events' stacks are not kept (`Snapshot.stacksNotRead`); their frames are still
   * read and checked, so what is refused is the same. For the what-if, which needs no stack unless an
   * allocation fails or the allocator released memory before one.
   */
  readonly stacks?: boolean;
}

/**
 * Reads a snapshot pickle pushed to it in chunks of any size (the runtime's file reader, or one
 * buffer): {@link feed} them until {@link wantsMore} is false or the input ends, then {@link finish}.
 */
export class SnapshotReader {
  private readonly sink: TraceSink;
  private readonly decoder: PickleDecoder;

  private readonly budget = new WorkBudget();
  /** Work already counted toward the budget: the decoder's, and trace entries. */
  private decoderWork = 0;
  private entries = 0;

  constructor(options: ReadOptions = {}) {
    this.sink = new TraceSink(new FrameTable(this.budget), options.expectedBytes ?? 0, options.window, options.stacks ?? true);
    this.decoder = new PickleDecoder({
      onAppend: this.sink.onAppend,
      entries: options.fastPath === false ? undefined : new TraceEntryReader(this.sink),
    });
  }

  /** Decodes what `chunk` completes (its buffer may be reused once this returns). */
  feed(chunk: Uint8Array): void {
    this.budget.bytes += chunk.length;
    this.decoder.feed(chunk);
    this.count();
  }

  /** Counts what decoding did since the last call toward the budget. */
  private count(): void {
    const work = this.decoder.work;
    this.budget.spend((work - this.decoderWork) * COST.decoded, () => `the pickle's ${formatCount(work)} containers and memo references`);
    this.decoderWork = work;
    const entries = this.sink.entries;
    this.budget.spend((entries - this.entries) * COST.traceEntry, () => `device_traces: ${formatCount(entries)} trace entries`);
    this.entries = entries;
  }

  /** False once the pickle has ended (STOP): the rest of the input need not be read. */
  get wantsMore(): boolean {
    return this.decoder.wantsMore;
  }

  /** Bytes decoded so far. */
  get bytesDecoded(): number {
    return this.decoder.bytesDecoded;
  }

  /** The snapshot, once the input has ended. */
  finish(): Snapshot {
    const root = this.decoder.finish();
    this.count();
    return snapshotFromPickle(root, this.sink);
  }
}

export interface LoadOptions {
  /** Decompresses a gzip'd snapshot held in memory (the runtime's `gunzipBounded`); without it such a file is refused. */
  readonly gunzip?: Gunzip;
}

/** A snapshot from a whole file's bytes in memory (a gzip'd one is decompressed first, with `options.gunzip`). */
export function snapshotFromBytes(bytes: Uint8Array, options: LoadOptions = {}): Snapshot {
  // An empty file, a torch.save zip or a compressed file is told apart (or unpacked) before decoding.
  const pickle = pickleBytesOf(bytes, options.gunzip);
  return readWhole(pickle);
}

/** Reads `pickle` with the fast path, and again without it when the pickle needs that. */
export function readWhole(pickle: Uint8Array): Snapshot {
  try {
    return readOnce(pickle, true);
  } catch (e) {
    if (!(e instanceof RestartWithoutFastPath)) throw e;
    return readOnce(pickle, false);
  }
}

function readOnce(pickle: Uint8Array, fastPath: boolean): Snapshot {
  const reader = new SnapshotReader({ expectedBytes: pickle.length, fastPath });
  reader.feed(pickle);
  return reader.finish();
}
