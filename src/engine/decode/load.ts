/**
 * File -> decoder -> model: the one way a snapshot enters the engine. Pure: the runtime's one way in
 * for snapshot bytes (`openSnapshot`, `src/runtime/input/snapshotFile.ts`) feeds a file's bytes (or
 * bytes in memory), in chunks, to a {@link SnapshotReader}, under the one fast-path policy
 * ({@link withFastPath}); a plain pickle in memory goes through {@link snapshotFromBytes}. Trace entries
 * stream from the decoder straight into columns, so neither the file nor a tree of millions of dicts is
 * ever held.
 */
import { pickleBytesOf } from './unpack';
import type { PlainValue } from '../pickle/encoder';
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

  private readonly budget: WorkBudget;
  /** Work already counted toward the budget: the decoder's, and trace entries. */
  private decoderWork = 0;
  private entries = 0;

  constructor(options: ReadOptions = {}) {
    this.budget = new WorkBudget(true, options.expectedBytes ?? 0);
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

/**
 * The one fast-path policy: `pass` reads the whole input into a snapshot, with the trace fast path
 * (`fastPath` true) and, when the pickle needs the general machine ({@link RestartWithoutFastPath},
 * which PyTorch's files never do), once more without it, from the start of the input. `pass` may
 * return a promise (a file read in chunks) or the snapshot itself (bytes in memory).
 */
export function withFastPath<T>(pass: (fastPath: boolean) => T): T {
  const again = (e: unknown): T => {
    if (e instanceof RestartWithoutFastPath) return pass(false);
    throw e;
  };
  let result: T;
  try {
    result = pass(true);
  } catch (e) {
    return again(e);
  }
  return result instanceof Promise ? (result.catch(again) as T) : result;
}

/**
 * A snapshot built in memory as the plain values its pickle holds (a built-in workload's run): the
 * model that pickle decodes to, with nothing encoded or decoded. Its traces are streamed into columns
 * first, as the decoder streams them while it reads, so frames and stacks are numbered as in the file.
 */
export function snapshotFromValue(value: PlainValue): Snapshot {
  const sink = new TraceSink(new FrameTable());
  const traces = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { device_traces?: unknown }).device_traces : undefined;
  if (Array.isArray(traces)) for (const trace of traces) if (Array.isArray(trace)) sink.streamList(trace);
  return snapshotFromPickle(value, sink);
}

/**
 * A snapshot from a whole pickle's bytes in memory (read with the fast path, and again without it when
 * it needs that). A gzip'd file is refused here: the runtime's `openSnapshot` inflates it as it streams.
 */
export function snapshotFromBytes(bytes: Uint8Array): Snapshot {
  // An empty file, a torch.save zip or a compressed file is told apart before decoding.
  return readWhole(pickleBytesOf(bytes));
}

/** Reads `pickle` with the fast path, and again without it when the pickle needs that. */
export function readWhole(pickle: Uint8Array): Snapshot {
  return withFastPath((fastPath) => {
    const reader = new SnapshotReader({ expectedBytes: pickle.length, fastPath });
    reader.feed(pickle);
    return reader.finish();
  });
}
