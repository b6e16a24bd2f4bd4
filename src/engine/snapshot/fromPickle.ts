/**
 * Turns a decoded snapshot pickle (plain dicts, lists and scalars) into the `Snapshot` model.
 * Accepts every layout PyTorch has written: a bare list of segments (`torch.cuda.memory_snapshot()`),
 * PyTorch 2.0 blocks with `history`, and the 2.1+ layouts with `device_traces`.
 */
import { SnapshotFormatError } from './errors';
import { FrameTable } from './intern';
import type { Dict } from './pyFields';
import { MAX_DEVICE, describe, device, integer, isDict, list, optionalInteger, text } from './pyFields';
import { COST, WorkBudget } from '../base/workBudget';
import { ACTION_BY_NAME, TraceArena, TraceColumns, looksLikeTraceEntry } from './traceColumns';
import type { Block, DeviceTrace, ExternalAnnotation, LoadWindow, MeasuredDeviceMemory, Segment, Snapshot, SnapshotLayout, SnapshotProducer, SnapshotWindow } from './model';
import { WindowCarry } from './window';
import { readPrediction } from './prediction';
import { NO_STACK, STACK_NOT_READ } from './model';
import type { EntryFields, EntryFrames } from '../pickle/traceEntries';
import type { PyDict } from '../pickle/values';
import { formatCount } from '../text/format';

/**
 * Input bytes per trace entry the arena is sized for: a trace entry PyTorch writes takes 40 bytes or
 * more (the bench's files 60), so an arena of one entry per this many bytes holds every trace.
 */
export const ARENA_BYTES_PER_ENTRY = 24;

/**
 * Streams trace entries into columns while the pickle is decoded: the decoder's append hook hands
 * over each batch appended to a list; a list whose first item looks like a trace entry becomes a
 * trace (its entries are consumed, never stored), every other list is built as usual.
 */
export class TraceSink {
  private readonly mark = Symbol('traceColumns');
  private arena: TraceArena | undefined;
  /**
   * @param expectedBytes the pickle's length when known: sizes one storage block for every trace
   *   (see {@link ARENA_BYTES_PER_ENTRY}); its pages that no entry fills are never touched, so they
   *   cost address space, not memory. Without it, or once it is full, traces grow by chunks.
   */
  /** Time 0 of a time window: the first traced time of the file (NaN until one is read). */
  private readonly origin = { us: NaN };

  constructor(
    readonly table: FrameTable,
    private readonly expectedBytes = 0,
    /** Keep only this window of each trace (see `LoadWindow`). */
    readonly window?: LoadWindow,
    /**
     * False: trace entries' stacks are not interned (their frames are still read and checked, as with
     * stacks): every event's stack is STACK_NOT_READ, and the snapshot says so (`stacksNotRead`).
     */
    readonly stacks = true,
  ) {}

  /** The window loaded, with its time origin, when one was asked for. */
  snapshotWindow(): SnapshotWindow | undefined {
    return this.window === undefined ? undefined : { ...this.window, originUs: this.origin.us };
  }

  /** The columns of one more trace. */
  newColumns(arena?: TraceArena): TraceColumns {
    const carry = this.window === undefined ? undefined : new WindowCarry(this.window, this.origin);
    return new TraceColumns(this.table, arena, carry, this.stacks);
  }

  /** The budget the table counts against (the reader's). */
  get budget(): WorkBudget {
    return this.table.budget;
  }

  /** Trace entries written so far (by both paths): counted toward the budget by the reader. */
  entries = 0;

  private arenaFor(): TraceArena | undefined {
    if (this.arena === undefined && this.expectedBytes > 0) this.arena = new TraceArena(Math.ceil(this.expectedBytes / ARENA_BYTES_PER_ENTRY));
    return this.arena;
  }

  /** For `DecodeOptions.onAppend`: true when the items were consumed. */
  readonly onAppend = (list: unknown[], items: readonly unknown[], start: number, end: number): boolean => {
    let columns = this.columnsOf(list);
    if (columns === undefined) {
      if (list.length !== 0 || start >= end || !looksLikeTraceEntry(items[start])) return false;
      columns = this.begin(list);
    }
    for (let i = start; i < end; i++) columns.push(items[i]);
    this.entries += end - start;
    return true;
  };

  /**
   * A whole list built in memory (a snapshot made as plain values) streamed into columns as the decoder
   * streams a list it reads, if its first item looks like a trace entry: its frames are then interned in
   * the decoder's order (a trace's before the segments').
   */
  streamList(list: unknown[]): void {
    if (this.columnsOf(list) !== undefined || list.length === 0 || !looksLikeTraceEntry(list[0])) return;
    const columns = this.begin(list);
    for (const item of list) columns.push(item);
    this.entries += list.length;
  }

  /** For the decoder's fast path (`EntrySink`): a trace being streamed, or an empty list its first entry makes one. */
  accepts(list: unknown[]): boolean {
    return list.length === 0 || this.columnsOf(list) !== undefined;
  }

  /** For the decoder's fast path: whether `list` is a trace being streamed. */
  isTrace(list: unknown[]): boolean {
    return this.columnsOf(list) !== undefined;
  }

  /** For the decoder's fast path: one entry read from the bytes; returns the stack id of its frames. */
  push(list: unknown[], entry: EntryFields): number {
    const columns = this.columnsOf(list) ?? this.begin(list);
    const frames = entry.frames;
    const stack = !this.stacks ? this.checkFrames(frames) : frames.kind === 'stack' ? frames.stack : this.stackOfFrames(frames);
    columns.pushEntry(entry, stack);
    this.entries++;
    return stack;
  }

  /** For the decoder's quick loop: the columns of a trace being streamed. */
  quickTarget(list: unknown[]): TraceColumns | undefined {
    return this.columnsOf(list);
  }

  /** For the decoder's quick loop: the stack of a new frames list of frames interned before (as `push` gives it). */
  quickStack(ids: Int32Array, count: number, hash: number): number {
    return this.stacks ? this.table.stackOfIds(ids, count, hash) : STACK_NOT_READ;
  }

  /** For the decoder's quick loop: entries it wrote. */
  countQuick(n: number): void {
    this.entries += n;
  }

  /** For the decoder's fast path: an action name's code (-1 for a name PyTorch does not write). */
  actionCode(name: string): number {
    return ACTION_BY_NAME.get(name) ?? -1;
  }

  /** For the fast path: the frame id of a frame dict interned before, -1 for anything else. */
  frameIdOf(value: unknown): number {
    return this.table.internedFrameId(value);
  }

  /** For the decoder's quick loop: the stack of a frames list built by the general machine that `push` has read (see `stackOf`). */
  stackOfListRead(value: unknown): number | undefined {
    return this.table.stackIdOf(value);
  }

  /** For the fast path: an interned frame dict of these items (see `FrameTable.internedLike`). */
  sameFrame(order: number, filename: unknown, line: unknown, name: unknown): PyDict | undefined {
    return this.table.internedLike(order, filename, line, name) as PyDict | undefined;
  }

  /**
   * For the fast path when frames are to be read and checked only (see `stacks`): the frame dicts the
   * reader could not name by id are interned (which checks them), a list built by the general machine
   * is read as with stacks.
   */
  private checkFrames(frames: EntryFrames): number {
    if (frames.kind === 'list') this.table.stackOf(frames.list);
    else if (frames.kind === 'ids') for (let j = 0; j < frames.pendingCount; j++) this.table.frameOf(frames.pending[j]);
    return STACK_NOT_READ;
  }

  private stackOfFrames(frames: EntryFrames): number {
    switch (frames.kind) {
      case 'stack':
        return frames.stack;
      case 'list':
        return this.table.stackOf(frames.list);
      case 'ids': {
        if (frames.pendingCount === 0) return this.table.stackOfIds(frames.ids, frames.idCount, frames.hash);
        // Frame dicts not interned before are interned in the list's order, as the general machine would.
        const ids = frames.ids;
        for (let i = 0; i < frames.idCount; i++) if (ids[i] < 0) ids[i] = this.table.frameOf(frames.pending[-1 - ids[i]]);
        return this.table.stackOfIds(ids, frames.idCount);
      }
      default:
        return NO_STACK;
    }
  }

  private begin(list: unknown[]): TraceColumns {
    const columns = this.newColumns(this.arenaFor());
    (list as unknown as Record<symbol, TraceColumns | undefined>)[this.mark] = columns;
    return columns;
  }

  /** The columns streamed into this decoded list, if it was a trace. */
  columnsOf(list: unknown[]): TraceColumns | undefined {
    return (list as unknown as Record<symbol, TraceColumns | undefined>)[this.mark];
  }
}

function readTrace(sink: TraceSink, device: number, entries: unknown[], segments: readonly Segment[]): DeviceTrace {
  // Every reference to a trace reads all its entries (a list shared by many devices is as many traces).
  let columns = sink.columnsOf(entries);
  const length = columns?.length ?? entries.length;
  sink.budget.spend(length * COST.traceEntry, () => `device_traces[${device}]: ${formatCount(length)} trace entries`);
  if (columns === undefined) {
    columns = sink.newColumns();
    for (const entry of entries) columns.push(entry);
  }
  return columns.build(device, segments.filter((s) => s.device === device));
}

/**
 * Counts the segments and all their blocks before any is read: a list that repeats one segment
 * object (or a segment that repeats one block) is refused here, having built nothing.
 */
function spendOnSegments(budget: WorkBudget, raw: readonly unknown[]): void {
  let blocks = 0;
  for (const s of raw) if (isDict(s) && Array.isArray(s.blocks)) blocks += s.blocks.length;
  budget.spend(raw.length * COST.segment + blocks * COST.block, () => `segments: ${formatCount(raw.length)} segments holding ${formatCount(blocks)} blocks`);
}

function readBlocks(table: FrameTable, segment: Dict, segmentAddress: number, where: string): { blocks: Block[]; history: boolean } {
  const raw = segment.blocks === undefined ? [] : list(segment.blocks, `${where} blocks`);
  const blocks: Block[] = [];
  let offset = segmentAddress;
  let history = false;
  raw.forEach((b, j) => {
    if (!isDict(b)) throw new SnapshotFormatError(`${where} block ${j} is ${describe(b)}, expected a dict`);
    const size = integer(b.size, `${where} block ${j} size`);
    let stack = table.stackOf(b.frames);
    let requestedSize = size;
    if (b.history !== undefined) {
      history = true;
      const first: unknown = Array.isArray(b.history) ? b.history[0] : undefined;
      if (stack === NO_STACK && isDict(first)) stack = table.stackOf(first.frames);
      // PyTorch 2.0 keeps the bytes asked for as history[0].real_size (spec: "Input").
      if (isDict(first)) requestedSize = optionalInteger(first.real_size, size, `${where} block ${j} history[0].real_size`);
    }
    const address = b.address === undefined ? offset : integer(b.address, `${where} block ${j} address`);
    blocks.push({
      address,
      size,
      requestedSize: optionalInteger(b.requested_size, requestedSize, `${where} block ${j} requested_size`),
      state: text(b.state),
      stack,
    });
    offset += size;
  });
  return { blocks, history };
}

function readSegments(table: FrameTable, raw: unknown[]): { segments: Segment[]; history: boolean } {
  spendOnSegments(table.budget, raw);
  let history = false;
  const segments = raw.map((s, i): Segment => {
    const where = `segment ${i}`;
    if (!isDict(s)) throw new SnapshotFormatError(`${where} is ${describe(s)}, expected a dict`);
    const address = integer(s.address, `${where} address`);
    const read = readBlocks(table, s, address, where);
    history ||= read.history;
    return {
      device: device(s.device, `${where} device`),
      address,
      totalSize: integer(s.total_size, `${where} total_size`),
      allocatedSize: optionalInteger(s.allocated_size, 0, `${where} allocated_size`),
      activeSize: optionalInteger(s.active_size, 0, `${where} active_size`),
      requestedSize: optionalInteger(s.requested_size, 0, `${where} requested_size`),
      stream: typeof s.stream === 'number' && Number.isFinite(s.stream) ? s.stream : 0,
      segmentType: text(s.segment_type),
      isExpandable: s.is_expandable === true,
      privatePool: isPrivatePoolId(s.segment_pool_id),
      stack: table.stackOf(s.frames),
      blocks: read.blocks,
    };
  });
  return { segments, history };
}

/** A value of `allocator_settings` kept in the model: text, numbers and flags. */
function isScalar(v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean';
}

/**
 * `allocator_settings` as plain data: its scalar values, and one level of lists and dicts of scalars
 * (`roundup_power2_divisions`); anything else, a deeper container, or one shared with the rest of the
 * pickle (a file can make the settings hold its root), is left out, so the model never keeps a
 * reference into the decoded tree and the readers see the same settings however the pickle was decoded.
 */
function plainSettings(budget: WorkBudget, raw: Dict): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (isScalar(value)) {
      out[key] = value;
    } else if (Array.isArray(value)) {
      const items: readonly unknown[] = value;
      budget.spend(items.length * COST.item, () => `allocator_settings.${key}: ${formatCount(items.length)} items`);
      if (items.every(isScalar)) out[key] = [...items];
    } else if (isDict(value)) {
      const entries = Object.entries(value);
      budget.spend(entries.length * COST.item, () => `allocator_settings.${key}: ${formatCount(entries.length)} items`);
      if (entries.every(([, v]) => isScalar(v))) out[key] = Object.fromEntries(entries);
    }
  }
  return out;
}

/** `segment_pool_id` is a tuple (a list once decoded) `(0, 0)` for the default pool. */
function isPrivatePoolId(id: unknown): boolean {
  return Array.isArray(id) && id.some((part) => (typeof part === 'number' || typeof part === 'bigint') && Number(part) !== 0);
}

function readAnnotations(budget: WorkBudget, raw: unknown): ExternalAnnotation[] {
  if (!Array.isArray(raw)) return [];
  budget.spend(raw.length * COST.annotation, () => `external_annotations: ${formatCount(raw.length)} annotations`);
  const out: ExternalAnnotation[] = [];
  raw.forEach((a, i) => {
    if (!isDict(a)) return;
    out.push({
      stage: text(a.stage),
      name: text(a.name),
      device: device(a.device, `external annotation ${i} device`),
      timeUs: a.time_us === undefined || a.time_us === null ? NaN : integer(a.time_us, `external annotation ${i} time_us`),
    });
  });
  return out;
}

/**
 * Builds the model from a decoded pickle; throws SnapshotFormatError when it is something else.
 * Pass the sink that streamed the traces during decoding, if one did.
 */
export function snapshotFromPickle(root: unknown, sink: TraceSink = new TraceSink(new FrameTable())): Snapshot {
  const table = sink.table;
  if (Array.isArray(root)) {
    const { segments, history } = readSegments(table, root);
    return finish(table, history ? 'torch-2.0-history' : 'segments-list', segments, [], [], undefined);
  }
  if (!isDict(root)) throw new SnapshotFormatError(`the file holds ${describe(root)}, not a dict of segments and traces`);
  if (root.segments === undefined && root.device_traces === undefined) {
    const keys = Object.keys(root).slice(0, 5).join(', ');
    throw new SnapshotFormatError(`the dict has no 'segments' or 'device_traces' (keys: ${keys || 'none'})`);
  }
  const { segments, history } = readSegments(table, root.segments === undefined ? [] : list(root.segments, "'segments'"));
  const rawTraces = root.device_traces === undefined ? [] : list(root.device_traces, "'device_traces'");
  if (rawTraces.length > MAX_DEVICE + 1) {
    throw new SnapshotFormatError(`'device_traces' holds ${formatCount(rawTraces.length)} traces: a snapshot has one per CUDA device, numbered 0 to ${MAX_DEVICE}`);
  }
  table.budget.spend(rawTraces.length * COST.trace, () => `device_traces: ${formatCount(rawTraces.length)} traces`);
  const traces = rawTraces.map((t, device) => readTrace(sink, device, list(t, `device_traces[${device}]`), segments));
  const settings = isDict(root.allocator_settings) ? plainSettings(table.budget, root.allocator_settings) : undefined;
  const annotations = readAnnotations(table.budget, root.external_annotations);
  const snapshot = finish(table, history ? 'torch-2.0-history' : 'torch-2.1+', segments, traces, annotations, settings);
  const measured = readMeasuredDeviceMemory(table.budget, root.vram_lens);
  const producer = readProducer(root.vram_lens);
  const prediction = readPrediction(root.vram_lens);
  const window = sink.snapshotWindow();
  return {
    ...snapshot,
    ...(measured ? { measuredDeviceMemory: measured } : {}),
    ...(producer ? { producer } : {}),
    ...(prediction ? { prediction } : {}),
    ...(window ? { window } : {}),
    ...(sink.stacks ? {} : { stacksNotRead: true as const }),
  };
}

/** `vram_lens` = {producer: 'vram-lens', summary: {provider: 'cpu' | 'cuda' | 'webgpu', ...}}, written with a workload run's snapshot. */
function readProducer(raw: unknown): SnapshotProducer | undefined {
  if (!isDict(raw) || raw.producer !== 'vram-lens') return undefined;
  const provider = isDict(raw.summary) ? raw.summary.provider : undefined;
  return provider === 'cpu' || provider === 'cuda' || provider === 'webgpu' ? { tool: 'vram-lens', provider } : { tool: 'vram-lens' };
}

/** `vram_lens.device_memory` = {source, time_us: [...], bytes: [...]}, written by a workload run; malformed is ignored. */
function readMeasuredDeviceMemory(budget: WorkBudget, raw: unknown): MeasuredDeviceMemory | undefined {
  if (!isDict(raw) || !isDict(raw.device_memory)) return undefined;
  const line: Dict = raw.device_memory;
  for (const key of ['time_us', 'bytes']) {
    const values = line[key];
    if (Array.isArray(values)) budget.spend(values.length * COST.item, () => `vram_lens.device_memory.${key}: ${formatCount(values.length)} samples`);
  }
  const numbers = (v: unknown): number[] | undefined =>
    Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (v as number[]) : undefined;
  const times = numbers(line.time_us);
  const bytes = numbers(line.bytes);
  if (!times || !bytes || times.length !== bytes.length || times.length === 0) return undefined;
  return { source: text(line.source), timeUs: Float64Array.from(times), bytes: Float64Array.from(bytes) };
}

function finish(
  table: FrameTable,
  layout: SnapshotLayout,
  segments: Segment[],
  traces: DeviceTrace[],
  externalAnnotations: ExternalAnnotation[],
  allocatorSettings: Dict | undefined,
): Snapshot {
  return { layout, frames: table.frames, stacks: table.stacks, traces, segments, externalAnnotations, allocatorSettings };
}
