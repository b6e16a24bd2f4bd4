/**
 * The typed RPC between the extension host (or any Node caller) and a snapshot worker.
 * One worker holds one loaded snapshot; every query about it is a method here.
 * Add a method by extending `WorkerMethods` and implementing it in `src/runtime/worker/methods.ts`.
 */
import type { ErrorShape } from '../engine/base/errors';
import type { PlainValue } from '../engine/pickle/encoder';
import type { Finding } from '../engine/advice/finding';
import type { FrameFilterOptions } from '../engine/analysis/frameFilter';
import type { LineDetail } from '../engine/analysis/lineDetail';
import type { LineFigures } from '../engine/analysis/lines';
import type { LineRange, RangeFigures } from '../engine/analysis/rangeFigures';
import type { SeriesAxis, TotalsSeries } from '../engine/compare/totals';
import type { AllocatorSpan, AllocatorSpanRequest } from '../engine/timeline/allocatorSpan';
import type { FindingMarker } from '../engine/timeline/findingMarkers';
import type { OomExplanation } from '../engine/allocator/oom';
import type { SelfCheckDetails } from '../engine/allocator/selfCheck';
import type { SegmentMapView } from '../engine/session/allocatorStudy';
import type { WhatIfResult, WhatIfTable } from '../engine/allocator/whatIf';
import type { LineNumber, LoadWindow } from '../engine/snapshot/model';
import type { SnapshotInfo, SourceUpdate } from '../engine/session/session';
import type { AxisKind, BlockDetail, LineBlocks, TimelineOverview, TimelineSpan, SpanRequest } from '../engine/timeline/types';
import type { CellPlaces } from '../engine/paths/places';

export type { SnapshotInfo, SourceUpdate };

/** Where a worker's snapshot comes from: what the runtime's one way in for snapshot bytes (`openSnapshot`) reads. */
export type SnapshotSource =
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  /** A snapshot built in memory (a built-in workload's run), as the plain values its pickle would hold. */
  | { readonly kind: 'value'; readonly value: PlainValue };

export interface WorkerMethods {
  /**
   * Read, decode and analyse a snapshot; must be the first call. A file is read by the worker itself
   * (`path`), in chunks; bytes already in memory (an instrumented run, another file system) are sent.
   * `window`: only that window of a file's recording (memory live when it opens carried in).
   */
  load: { params: { source: SnapshotSource; filter: FrameFilterOptions; window?: LoadWindow }; result: SnapshotInfo };
  /**
   * Reads, analyses and attributes a snapshot like `load` and `lines` do, then drops it: a spare worker
   * warmed this way (V8 has compiled the decoder and the analysis) opens the next snapshot at once.
   */
  warmUp: { params: { source: SnapshotSource; filter: FrameFilterOptions }; result: null };
  /** Re-run the attribution with another user-frame filter. */
  setFilter: { params: { filter: FrameFilterOptions }; result: SnapshotInfo };
  /** Every line with figures on one device, sorted by file then line. */
  lines: { params: { device: number }; result: readonly LineFigures[] };
  /** What a hover shows about one line: its allocation sizes, largest allocation, stacks through it. */
  lineDetail: {
    params: { device: number; file: string; line: LineNumber; maxSizes?: number; maxStacks?: number };
    result: LineDetail;
  };
  /** Inclusive figures of blocks of lines (function bodies), each allocation counted once per block. */
  rangeFigures: { params: { device: number; ranges: readonly LineRange[] }; result: RangeFigures[] };
  /** The memory timeline of a device at a glance: minimap envelope, peak, OOMs, annotations, axis. */
  timelineOverview: { params: { device: number; axis: AxisKind; columns: number }; result: TimelineOverview };
  /** The advisor's findings of a device that name trace events, placed on the axis. */
  timelineFindings: { params: { device: number; axis: AxisKind }; result: readonly FindingMarker[] };
  /** A level-of-detail summary of one x span of a device's timeline (see `TimelineSpan`). */
  timelineSpan: { params: { device: number; request: SpanRequest }; result: TimelineSpan };
  /** What the timeline's hover card shows about one block (an allocation record id). */
  timelineBlock: { params: { device: number; record: number; maxFrames: number }; result: BlockDetail };
  /** The blocks `file:line` allocated on a device, largest first (undefined: no such user line). */
  lineBlocks: { params: { device: number; file: string; line: number; limit: number }; result: LineBlocks | undefined };
  /** Per line id (`LineFigures.lineId`): the function its frames name ('' when none). */
  lineFunctions: { params: Record<string, never>; result: readonly string[] };
  /** Ids of the lines whose allocation stacks have a frame whose file or function contains `text`. */
  linesMatchingStack: { params: { text: string }; result: readonly number[] };
  /** One device's active and reserved totals, max-downsampled to at most `points` buckets (overlays, sparklines). */
  totals: { params: { device: number; axis: SeriesAxis; points: number }; result: TotalsSeries };
  /**
   * Sets, updates or forgets the program's source texts (file as recorded) the advisor reads, each at a
   * revision: the host sends a file once per revision, and the findings are worked out again only when a
   * revision changed. Answers the revisions held (file -> revision).
   */
  setSources: { params: { files: readonly SourceUpdate[] }; result: Readonly<Record<string, number>> };
  /**
   * The advisor's findings for one device (or every device), reading the source texts set by `setSources`;
   * `places` (the notebook cells of recorded cell files) names cell lines in the messages and is kept for
   * later calls (the timeline's markers).
   */
  advice: { params: { device?: number; places?: CellPlaces }; result: readonly Finding[] };

  // The caching allocator replayed (src/engine/allocator): see docs/allocator.md.
  /** The self-check: the trace replayed with the recorded settings, against the addresses and segment events PyTorch recorded. */
  allocatorCheck: { params: { device: number }; result: SelfCheckDetails };
  /**
   * The allocator's view of one timeline span, at the timeline's level of detail: reserved memory by segment
   * (stacked), allocated, reserved-but-unallocated and the largest free block per step. Undefined without a trace.
   */
  allocatorSpan: { params: { device: number; request: AllocatorSpanRequest }; result: AllocatorSpan | undefined };
  /** The segments and their blocks right after `event` (-1: before the first event), at most `maxBlocks` blocks listed. */
  allocatorSegmentMap: { params: { device: number; event: number; maxBlocks?: number }; result: SegmentMapView };
  /** Each recorded OOM: what was asked, what the cache held, and whether fragmentation or capacity caused it. */
  allocatorOoms: { params: { device: number }; result: readonly OomExplanation[] };
  /**
   * A prediction: the trace replayed with `allocConf` (PYTORCH_CUDA_ALLOC_CONF options over the recorded settings) on a device of
   * `capacity` bytes (default: what the recording implies, else no limit). A bad `allocConf` raises AllocConfError.
   */
  allocatorWhatIf: { params: { device: number; allocConf?: string; capacity?: number; memoryFraction?: number }; result: WhatIfResult };
  /** Common GPU sizes x (as recorded, expandable segments toggled, a max_split_size_mb chosen from the trace). */
  allocatorWhatIfTable: { params: { device: number }; result: WhatIfTable };
}

export type MethodName = keyof WorkerMethods;
export type ParamsOf<M extends MethodName> = WorkerMethods[M]['params'];
export type ResultOf<M extends MethodName> = WorkerMethods[M]['result'];

/** Calls a worker method of one loaded snapshot (`LoadedSnapshot.call`, or anything that answers worker methods). */
export type WorkerCall = <M extends MethodName>(method: M, params: ParamsOf<M>) => Promise<ResultOf<M>>;

export interface RequestMessage<M extends MethodName = MethodName> {
  readonly kind: 'request';
  readonly id: number;
  readonly method: M;
  readonly params: ParamsOf<M>;
}

export interface ProgressMessage {
  readonly kind: 'progress';
  readonly id: number;
  readonly message: string;
  /** How much of the work is done, 0 to 1, when the worker knows (reading a file). */
  readonly fraction?: number;
}

export interface ResponseMessage {
  readonly kind: 'response';
  readonly id: number;
  readonly result?: unknown;
  readonly error?: ErrorShape;
}

export type WorkerToHost = ProgressMessage | ResponseMessage;
