/**
 * The in-memory model of a memory snapshot: what every analysis and view reads.
 * Built once from a decoded pickle (or from an instrumented run) and never mutated afterwards.
 *
 * Frames and stacks are interned: a stack is an index into `Snapshot.stacks`, a frame an index into
 * `Snapshot.frames`. Trace events are stored column-wise per device so that a million events cost
 * a few typed arrays rather than a million objects.
 */

/** A source line number. `bigint` only for values beyond 2^53 (PyTorch sometimes writes 2^64-1). */
export type LineNumber = number | bigint;

export interface Frame {
  readonly filename: string;
  readonly line: LineNumber;
  readonly name: string;
}

/** Trace actions, as small integers for the columnar trace. */
export const enum Action {
  Alloc = 0,
  FreeRequested = 1,
  FreeCompleted = 2,
  SegmentAlloc = 3,
  SegmentFree = 4,
  SegmentMap = 5,
  SegmentUnmap = 6,
  Oom = 7,
  Snapshot = 8,
  Other = 9,
}

/** No stack recorded for this event or block. */
export const NO_STACK = -1;

/**
 * The stack of a trace event in a snapshot read without its trace's stacks (`Snapshot.stacksNotRead`):
 * unknown, not none. Code that reads a trace event's stack from such a snapshot throws
 * `StacksNotReadError` instead (the caller then reads the file again with its stacks).
 */
export const STACK_NOT_READ = -2;

/** One device's trace, column-wise. Index i in every column is trace entry i. */
export interface DeviceTrace {
  readonly device: number;
  readonly length: number;
  readonly action: Uint8Array;
  readonly addr: Float64Array;
  readonly size: Float64Array;
  /** Microseconds since the epoch, or NaN where the entry has no `time_us` (PyTorch 2.0). */
  readonly timeUs: Float64Array;
  /** Index into `Snapshot.stacks`, or NO_STACK. */
  readonly stack: Int32Array;
  readonly stream: Float64Array;
  /** `device_free` of `oom` entries, by event index. */
  readonly deviceFree: ReadonlyMap<number, number>;
  /** Actions that are not in `Action` (kept by name so nothing is lost), by event index. */
  readonly otherActions: ReadonlyMap<number, string>;
  /** Non-empty `user_metadata` / `compile_context` strings, by event index. */
  readonly userMetadata: ReadonlyMap<number, string>;
  readonly compileContext: ReadonlyMap<number, string>;
  /** Set when the trace holds only a window of the recorded trace (see {@link TraceWindow}). */
  readonly window?: TraceWindow;
}

/**
 * A window of a device's recorded trace: the events from `firstEvent` to `firstEvent + length - 1`,
 * and what the replay of the whole recording had when the window opens (right before its first
 * event), carried in so that every figure of the window equals the full replay's over those events:
 * the active and reserved bytes, and every block live then, with the stack that allocated it.
 */
export interface TraceWindow {
  /** Index, in the recorded trace, of the window's first event (its event 0). */
  readonly firstEvent: number;
  /** Events of the recorded trace. */
  readonly recordedEvents: number;
  /** Active and reserved bytes of the full replay right before the window's first event. */
  readonly activeBytes: number;
  readonly reservedBytes: number;
  /** The blocks live when the window opens, column-wise (`carried.length` of them). */
  readonly carried: CarriedBlocks;
}

/** Blocks live when a window opens, column-wise. */
export interface CarriedBlocks {
  readonly length: number;
  readonly addr: Float64Array;
  /** Bytes (the bytes asked for, as trace events count them). */
  readonly size: Float64Array;
  /** The stack that allocated it; NO_STACK for a block live since before the recording. */
  readonly stack: Int32Array;
  /**
   * Index in the recorded trace of the `alloc` event, or -1 for a block live since before the
   * recording began (freed later in the trace, or live at its end per `segments`).
   */
  readonly allocEvent: Float64Array;
  /** `time_us` of the `alloc` event (NaN when there is none). */
  readonly allocTimeUs: Float64Array;
}

export interface Block {
  readonly address: number;
  readonly size: number;
  readonly requestedSize: number;
  /** 'active_allocated' | 'active_pending_free' | 'inactive' | other strings PyTorch may add. */
  readonly state: string;
  readonly stack: number;
}

/** Whether a block in `segments` is live: allocated, or freed but waiting for its stream (`active_pending_free`). */
export function isLiveState(state: string): boolean {
  return state === 'active_allocated' || state === 'active_pending_free';
}

export interface Segment {
  readonly device: number;
  readonly address: number;
  readonly totalSize: number;
  readonly allocatedSize: number;
  readonly activeSize: number;
  readonly requestedSize: number;
  readonly stream: number;
  readonly segmentType: string;
  readonly isExpandable: boolean;
  /** Whether `segment_pool_id` names a private pool (CUDA graphs, `torch.cuda.MemPool`): anything but (0, 0). */
  readonly privatePool: boolean;
  readonly stack: number;
  readonly blocks: readonly Block[];
}

export interface ExternalAnnotation {
  readonly stage: string;
  readonly name: string;
  readonly device: number;
  readonly timeUs: number;
}

/** Which layout the file used: tells the user (and tests) how it was read. */
export type SnapshotLayout = 'segments-list' | 'torch-2.0-history' | 'torch-2.1+';

/**
 * Device memory measured beside the allocator's trace: the process's GPU memory sampled through NVML
 * during a built-in workload run (written under the snapshot's `vram_lens.device_memory` key).
 */
export interface MeasuredDeviceMemory {
  /** Where the samples come from, e.g. `nvml`. */
  readonly source: string;
  /** Epoch microseconds, ascending (the trace's `time_us` clock). */
  readonly timeUs: Float64Array;
  readonly bytes: Float64Array;
}

export interface Snapshot {
  readonly layout: SnapshotLayout;
  readonly frames: readonly Frame[];
  /** Each stack is a list of frame indices, innermost first. */
  readonly stacks: readonly (readonly number[])[];
  /** Indexed by device number (the position in `device_traces`). */
  readonly traces: readonly DeviceTrace[];
  readonly segments: readonly Segment[];
  readonly externalAnnotations: readonly ExternalAnnotation[];
  readonly allocatorSettings: Readonly<Record<string, unknown>> | undefined;
  /** The measured device-memory line of a workload run, when one was sampled. */
  readonly measuredDeviceMemory?: MeasuredDeviceMemory;
  /** Set when VRAM Lens wrote the snapshot from a run of its own (its `vram_lens` key), not PyTorch. */
  readonly producer?: SnapshotProducer;
  /** Set when only a window of the recording was loaded (every trace then has its `window`). */
  readonly window?: SnapshotWindow;
  /**
   * Set when the file was read without its trace's stacks (`ReadOptions.stacks` false): every trace
   * event's stack is {@link STACK_NOT_READ}, and `stacks` (and `frames`) are incomplete. Only the
   * what-if asks for this; what needs a stack throws `StacksNotReadError`.
   */
  readonly stacksNotRead?: true;
}

/**
 * A snapshot VRAM Lens wrote itself (a built-in workload or model run on onnxruntime, saved in PyTorch's
 * format with a `vram_lens` key): its trace was not recorded by PyTorch's caching allocator, so there is
 * no allocator to replay, and its device is the execution provider that ran it, not a CUDA device.
 */
export interface SnapshotProducer {
  readonly tool: 'vram-lens';
  /** onnxruntime's execution provider that ran it, when the snapshot says. */
  readonly provider?: 'cuda' | 'webgpu' | 'cpu';
}

/** The window a snapshot was loaded with: what was asked for, and the origin of its times. */
export interface SnapshotWindow extends LoadWindow {
  /** `time_us` of the first traced event of the file: time 0 of a time window (NaN when there is none). */
  readonly originUs: number;
}

/**
 * A window of a recording to load: events `from` (inclusive) to `to` (exclusive) of each device's
 * trace, or the events whose `time_us` falls from `from` to `to` microseconds after the first traced
 * event of the file (a trace's window then starts at its first event at or after `from` and ends
 * before its first event at or after `to`). Either end may be left open.
 */
export interface LoadWindow {
  readonly axis: 'event' | 'time';
  readonly from?: number;
  readonly to?: number;
}

/** Devices that have segments or a non-empty trace, ascending (the spec's rule). */
export function devicesOf(snapshot: Snapshot): number[] {
  const devices = new Set<number>();
  for (const segment of snapshot.segments) devices.add(segment.device);
  for (const trace of snapshot.traces) if (trace.length > 0) devices.add(trace.device);
  return [...devices].sort((a, b) => a - b);
}
