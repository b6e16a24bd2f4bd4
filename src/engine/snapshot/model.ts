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
}

export interface Block {
  readonly address: number;
  readonly size: number;
  readonly requestedSize: number;
  /** 'active_allocated' | 'active_pending_free' | 'inactive' | other strings PyTorch may add. */
  readonly state: string;
  readonly stack: number;
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

/** Devices that have segments or a non-empty trace, ascending (the spec's rule). */
export function devicesOf(snapshot: Snapshot): number[] {
  const devices = new Set<number>();
  for (const segment of snapshot.segments) devices.add(segment.device);
  for (const trace of snapshot.traces) if (trace.length > 0) devices.add(trace.device);
  return [...devices].sort((a, b) => a - b);
}
