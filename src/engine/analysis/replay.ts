/**
 * Replays one device's trace (spec: "Replay (per device)"): the active and reserved bytes after
 * every event, the initial state, the peak, and one record per allocation (who made it, when it was
 * freed) for the views that draw blocks.
 */
import type { Block, CarriedBlocks, DeviceTrace, Segment, Snapshot } from '../snapshot/model';
import { Action, NO_STACK, isLiveState } from '../snapshot/model';
import { AddressIndex } from '../base/addressIndex';
import { RunningSum } from '../base/runningSum';
import type { AllocationRecords } from './allocationRecords';
import { BEFORE_TRACE, BEFORE_WINDOW, NEVER_FREED, RecordBuilder } from './allocationRecords';

export type { AllocationRecords } from './allocationRecords';
export { BEFORE_TRACE, BEFORE_WINDOW, NEVER_FREED } from './allocationRecords';

export interface OomEvent {
  readonly eventIndex: number;
  readonly requestedBytes: number;
  /** Free device memory PyTorch reported, when the entry carries it. */
  readonly deviceFreeBytes: number | undefined;
  readonly stack: number;
}

export interface DeviceReplay {
  readonly device: number;
  readonly events: number;
  readonly initialActiveBytes: number;
  readonly finalActiveBytes: number;
  readonly peakBytes: number;
  /** First event after which the peak holds; -1 when the initial state is the peak. */
  readonly peakEventIndex: number;
  readonly initialReservedBytes: number;
  readonly peakReservedBytes: number;
  readonly finalReservedBytes: number;
  /**
   * Active bytes right after each event (computed when first read: the per-line figures follow them as
   * they walk the trace, `activeDelta`, so the CLI's figures never hold them all).
   */
  readonly active: Float64Array;
  /** Reserved bytes right after each event (computed when first read). */
  readonly reserved: Float64Array;
  readonly allocations: AllocationRecords;
  readonly ooms: readonly OomEvent[];
  /** Blocks live at the end according to `segments`. */
  readonly liveBlocksAtEnd: readonly Block[];
  /**
   * The first moment the trace holds more allocated memory than the recorded segments reserve (event
   * -1: before the first event), which no caching allocator does: the snapshot does not record this
   * device's reserved memory (no segments, or not all of them), so its reserved figures are unknown.
   * Undefined where reserved memory always covers allocated memory.
   */
  readonly reservedShortfall?: ReservedShortfall;
}

export interface ReservedShortfall {
  readonly event: number;
  readonly activeBytes: number;
  readonly reservedBytes: number;
}

const EMPTY_TRACE: Omit<DeviceTrace, 'device'> = {
  length: 0,
  action: new Uint8Array(0),
  addr: new Float64Array(0),
  size: new Float64Array(0),
  timeUs: new Float64Array(0),
  stack: new Int32Array(0),
  stream: new Float64Array(0),
  deviceFree: new Map(),
  otherActions: new Map(),
  userMetadata: new Map(),
  compileContext: new Map(),
};

export function traceOf(snapshot: Snapshot, device: number): DeviceTrace {
  return snapshot.traces[device] ?? { ...EMPTY_TRACE, device };
}

/**
 * Replays one device: sizes the allocation records (`countRecords`), carries in a window's blocks
 * (`carryWindow`), attributes every event in one pass (`attributeEvents`), adds the blocks live at the end
 * that the trace never allocated (`addBlocksLiveAtEnd`), works out the initial and final state, and walks
 * the trace a second time for the peaks (`peaksOf`); the active bytes after each event are worked out when
 * first read (`activeAfterEach`).
 */
export function replayDevice(snapshot: Snapshot, device: number): DeviceReplay {
  const trace = traceOf(snapshot, device);
  const segments: Segment[] = snapshot.segments.filter((s) => s.device === device);
  const window = trace.window;
  const records = new RecordBuilder(trace, countRecords(trace, segments));
  /** The latest record allocated at each address: its presence means "allocated earlier in the trace". */
  const lastAt = new AddressIndex();
  if (window?.carried !== undefined) carryWindow(window.carried, records, lastAt);
  const events = attributeEvents(trace, records, lastAt);
  // A window's blocks live all along were carried in with the rest.
  const atEnd = window === undefined ? addBlocksLiveAtEnd(segments, records, lastAt) : { liveBlocksAtEnd: [], liveBeforeTrace: 0 };

  const initialActiveBytes = window?.activeBytes ?? events.freedBeforeTrace + atEnd.liveBeforeTrace;
  const initialReservedBytes = window?.reservedBytes ?? segments.reduce((sum, s) => sum + s.totalSize, 0) - events.segmentGrowth + events.segmentShrink;
  // `segments` are the state at the end of the recording; a window ends with its last event.
  const finalReservedBytes = initialReservedBytes + events.segmentGrowth - events.segmentShrink;
  const after = peaksOf(trace, initialActiveBytes, initialReservedBytes);

  let active: Float64Array | undefined;
  let reserved: Float64Array | undefined;
  const n = trace.length;
  return {
    device,
    events: n,
    initialActiveBytes,
    finalActiveBytes: after.finalActiveBytes,
    peakBytes: after.peakBytes,
    peakEventIndex: after.peakEventIndex,
    initialReservedBytes,
    peakReservedBytes: after.peakReservedBytes,
    finalReservedBytes,
    // Both worked out when first read (the timeline, the advisor and comparisons read them; the CLI's figures do not).
    get active(): Float64Array {
      active ??= activeAfterEach(trace, initialActiveBytes);
      return active;
    },
    get reserved(): Float64Array {
      reserved ??= reservedAfterEach(trace, initialReservedBytes);
      return reserved;
    },
    allocations: records.build(),
    ooms: events.ooms,
    liveBlocksAtEnd: atEnd.liveBlocksAtEnd,
    ...(after.reservedShortfall === undefined ? {} : { reservedShortfall: after.reservedShortfall }),
  };
}

/**
 * How many allocation records a replay can make, so that they are sized once (see `take`): one per alloc,
 * per free of a block allocated before the trace, per block live at the end that the trace never allocated,
 * per block a window carries in.
 */
function countRecords(trace: DeviceTrace, segments: readonly Segment[]): number {
  const { action } = trace;
  let allocs = 0;
  let frees = 0;
  for (let i = 0; i < trace.length; i++) {
    const act = action[i];
    if (act === Action.Alloc) allocs++;
    else if (act === Action.FreeCompleted) frees++;
  }
  let blocks = 0;
  for (const segment of segments) blocks += segment.blocks.length;
  return allocs + frees + blocks + (trace.window?.carried.length ?? 0) + 16;
}

/** A window starts from what the full replay had when it opens: those blocks are the first records. */
function carryWindow(carried: CarriedBlocks, records: RecordBuilder, lastAt: AddressIndex): void {
  for (let k = 0; k < carried.length; k++) {
    const r = records.addCarried(carried.addr[k], carried.size[k], carried.allocEvent[k] >= 0 ? BEFORE_WINDOW : BEFORE_TRACE, carried.stack[k]);
    lastAt.swap(carried.addr[k], r);
  }
}

/** What the first pass over the trace finds besides the records. */
interface EventTotals {
  /** Bytes freed by the trace that it never allocated: live before it began. */
  readonly freedBeforeTrace: number;
  readonly segmentGrowth: number;
  readonly segmentShrink: number;
  readonly ooms: OomEvent[];
}

/** The first pass: who allocated each block and when it was freed; segment growth and shrinking; the OOMs. */
function attributeEvents(trace: DeviceTrace, records: RecordBuilder, lastAt: AddressIndex): EventTotals {
  const { action, addr, size, stack } = trace;
  const window = trace.window;
  const isLive = (r: number): boolean => r >= 0 && records.freeEvent(r) === NEVER_FREED;
  const ooms: OomEvent[] = [];
  let freedBeforeTrace = 0;
  let segmentGrowth = 0;
  let segmentShrink = 0;
  for (let i = 0; i < trace.length; i++) {
    const a = addr[i];
    const s = size[i];
    switch (action[i]) {
      case Action.Alloc: {
        // An address allocated again without a free in between: the newer block replaces it.
        const previous = lastAt.swap(a, records.addAlloc(i));
        if (isLive(previous)) records.setFreeEvent(previous, i);
        break;
      }
      case Action.FreeCompleted: {
        const latest = lastAt.get(a);
        if (latest < 0) {
          // In a window, every block live when it opened was carried in: the full replay ignores this free too.
          if (window !== undefined) break;
          freedBeforeTrace += s;
          records.addFreedBeforeTrace(i);
        } else if (isLive(latest)) {
          records.setFreeEvent(latest, i);
        }
        break;
      }
      case Action.SegmentAlloc:
      case Action.SegmentMap:
        segmentGrowth += s;
        break;
      case Action.SegmentFree:
      case Action.SegmentUnmap:
        segmentShrink += s;
        break;
      case Action.Oom:
        ooms.push({ eventIndex: i, requestedBytes: s, deviceFreeBytes: trace.deviceFree.get(i), stack: stack[i] });
        break;
      default:
        break;
    }
  }
  return { freedBeforeTrace, segmentGrowth, segmentShrink, ooms };
}

/**
 * The blocks `segments` hold live at the end; those the trace never allocated were live before it began,
 * and get a record (counted by the bytes the program asked for, as trace events are: spec "Initial state").
 */
function addBlocksLiveAtEnd(segments: readonly Segment[], records: RecordBuilder, lastAt: AddressIndex): { liveBlocksAtEnd: Block[]; liveBeforeTrace: number } {
  const liveBlocksAtEnd: Block[] = [];
  let liveBeforeTrace = 0;
  for (const segment of segments) {
    for (const block of segment.blocks) {
      if (!isLiveState(block.state)) continue;
      liveBlocksAtEnd.push(block);
      const latest = lastAt.get(block.address);
      if (!(latest >= 0 && records.freeEvent(latest) === NEVER_FREED)) {
        liveBeforeTrace += block.requestedSize;
        records.addLiveAllAlong(block.address, block.requestedSize, block.stack);
      }
    }
  }
  return { liveBlocksAtEnd, liveBeforeTrace };
}

/**
 * What an event changes of the active bytes (spec: "Replay"): an alloc adds its size, a completed free
 * takes it away, nothing else counts. The one rule for every walk that follows the active bytes.
 */
export function activeDelta(action: number, size: number): number {
  return action === Action.Alloc ? size : action === Action.FreeCompleted ? -size : 0;
}

/** Active bytes right after each event of `trace`, from the active bytes before it. */
function activeAfterEach(trace: DeviceTrace, initialActiveBytes: number): Float64Array {
  const { action, size } = trace;
  const active = new Float64Array(trace.length);
  let bytes = initialActiveBytes;
  for (let i = 0; i < trace.length; i++) {
    bytes += activeDelta(action[i], size[i]);
    active[i] = bytes;
  }
  return active;
}

/**
 * The second pass, once the map of addresses is done with: the peaks of active and reserved bytes, the
 * active bytes at the end, and the first reserved shortfall. (Byte counts are integers below 2^53, so
 * every partial sum is exact in any order.)
 */
function peaksOf(
  trace: DeviceTrace,
  initialActiveBytes: number,
  initialReservedBytes: number,
): { finalActiveBytes: number; peakBytes: number; peakEventIndex: number; peakReservedBytes: number; reservedShortfall?: ReservedShortfall } {
  const { action, size } = trace;
  const n = trace.length;
  // The running sum lives in a typed array (see `RunningSum`): a local would be boxed at every step.
  const active = new RunningSum(initialActiveBytes);
  let reservedBytes = initialReservedBytes;
  let peakBytes = initialActiveBytes;
  let peakEventIndex = -1;
  let peakReservedBytes = initialReservedBytes;
  let reservedShortfall: ReservedShortfall | undefined =
    initialActiveBytes > initialReservedBytes ? { event: -1, activeBytes: initialActiveBytes, reservedBytes: initialReservedBytes } : undefined;
  for (let i = 0; i < n; i++) {
    const act = action[i];
    const activeBytes = active.add(activeDelta(act, size[i]));
    switch (act) {
      case Action.Alloc:
        if (activeBytes > peakBytes) {
          peakBytes = activeBytes;
          peakEventIndex = i;
        }
        break;
      case Action.SegmentAlloc:
      case Action.SegmentMap:
        reservedBytes += size[i];
        if (reservedBytes > peakReservedBytes) peakReservedBytes = reservedBytes;
        break;
      case Action.SegmentFree:
      case Action.SegmentUnmap:
        reservedBytes -= size[i];
        break;
      default:
        break;
    }
    if (activeBytes > reservedBytes && reservedShortfall === undefined) reservedShortfall = { event: i, activeBytes, reservedBytes };
  }
  return { finalActiveBytes: active.value, peakBytes, peakEventIndex, peakReservedBytes, ...(reservedShortfall === undefined ? {} : { reservedShortfall }) };
}

/** Reserved bytes right after each event of `trace`, from the reserved bytes before it. */
function reservedAfterEach(trace: DeviceTrace, initialReservedBytes: number): Float64Array {
  const { action, size } = trace;
  const reserved = new Float64Array(trace.length);
  let bytes = initialReservedBytes;
  for (let i = 0; i < trace.length; i++) {
    const act = action[i];
    if (act === Action.SegmentAlloc || act === Action.SegmentMap) bytes += size[i];
    else if (act === Action.SegmentFree || act === Action.SegmentUnmap) bytes -= size[i];
    reserved[i] = bytes;
  }
  return reserved;
}

/** `time_us` of record r's `alloc` event: in the trace, or before the window (NaN: none, or before the recording). */
export function allocTimeUs(trace: DeviceTrace, records: AllocationRecords, r: number): number {
  const event = records.allocEvent[r];
  if (event >= 0) return trace.timeUs[event];
  return event === BEFORE_WINDOW && trace.window !== undefined ? trace.window.carried.allocTimeUs[r] : NaN;
}

/** Allocation record indices live right after event `eventIndex` (BEFORE_TRACE records included). */
export function liveAfter(records: AllocationRecords, eventIndex: number): number[] {
  const out: number[] = [];
  for (let r = 0; r < records.count; r++) {
    const born = records.allocEvent[r];
    const died = records.freeEvent[r];
    if (born <= eventIndex && (died === NEVER_FREED || died > eventIndex)) out.push(r);
  }
  return out;
}

export { NO_STACK };
