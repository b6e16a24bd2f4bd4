/**
 * The shapes the timeline queries return: what a worker sends to the extension host and the host
 * forwards to the timeline webview. Only numbers, strings and typed arrays, so they cross
 * `postMessage` (worker threads and webviews) without conversion.
 *
 * Coordinates: a device with n trace events has n + 1 *states*: state 0 is the memory before the
 * first recorded event, state s (s >= 1) the memory right after event s - 1. On the `event` axis
 * state s spans x in [s, s + 1); on the `time` axis it spans [time of event s - 1, time of event s)
 * in microseconds (state 0 has no width there).
 */
import type { WindowSummary } from '../analysis/summary';
import type { PeakBucket, PeakBucketKind } from '../analysis/peakBreakdown';
import type { MeasuredLine } from './measuredLine';
import type { CellPlaces } from '../paths/places';

export type AxisKind = 'event' | 'time';

/** The x range a device's timeline covers on one axis, and how to label it. */
export interface AxisInfo {
  readonly kind: AxisKind;
  /** First x of the domain (inclusive). */
  readonly start: number;
  /** Last x of the domain (exclusive). */
  readonly end: number;
  /** n + 1 for n trace events. */
  readonly states: number;
}

/** A source line as the timeline shows it: `line` is a number even for PyTorch's 2^64-1 quirk. */
export interface TimelineLine {
  /** The line's id in the analysis' LineIndex (stable while the user-frame filter is unchanged). */
  readonly id: number;
  readonly file: string;
  readonly line: number;
  /** Index into the categorical palette: a stable hash of `file:line`. */
  readonly color: number;
}

/** Which span to summarise: either an x range on the axis, or a range of states to fit. */
export interface SpanRequest {
  readonly axis: AxisKind;
  /** The x range to show; ignored when `states` is given. */
  readonly x0?: number;
  readonly x1?: number;
  /** Show these states [first, last] (inclusive): used to jump to a block, or to keep the view when the axis changes. */
  readonly states?: readonly [number, number];
  /** Margin around `states`, as a fraction of their width on each side (default 0.15). */
  readonly statesMargin?: number;
  /** Pixel columns of the plot. */
  readonly columns: number;
  /** Most blocks drawn one by one (the rest is merged per column). */
  readonly budget?: number;
  /** Most offset changes (polygon vertices) sent for the individual blocks. */
  readonly runBudget?: number;
  /**
   * A block's offset changes smaller than this many bytes (from the last one sent) are not sent:
   * half a pixel of the plot keeps the picture and cuts the data when zoomed out. 0 sends them all.
   */
  readonly offsetQuantum?: number;
  /** A line whose blocks are drawn one by one before any other. */
  readonly focusLine?: number;
}

/**
 * A level-of-detail summary of one x window.
 *
 * The span is cut into *steps*: one per state when states are wider than a pixel column, else one
 * per pixel column (consecutive columns holding the same states merged). A step shows its
 * *representative* state: the state of highest active memory among those it covers, so no peak is
 * lost when zoomed out. At every step: the sizes of the individual blocks alive there plus `rest`
 * equal `envelope` exactly.
 *
 * Individual block j is alive in steps [blockFirstStep[j], blockLastStep[j]]; its bottom edge (bytes
 * from 0) is runOffset[k] from step runStep[k] on, for k in [blockRunStart[j], blockRunStart[j + 1]).
 */
/** The steps a span of the timeline is cut into: the part every span answer shares. */
export interface SpanSteps {
  readonly axis: AxisKind;
  readonly x0: number;
  readonly x1: number;
  readonly columns: number;
  /** Step boundaries: step i spans [stepX[i], stepX[i + 1]). Length steps + 1. */
  readonly stepX: Float64Array;
  /** The representative state of each step. */
  readonly stepState: Int32Array;
  /** The first and last state each step covers. */
  readonly stepFirst: Int32Array;
  readonly stepLast: Int32Array;
}

export interface TimelineSpan extends SpanSteps {
  /** Active (allocated) bytes at the representative state. */
  readonly envelope: Float64Array;
  /** Highest reserved bytes over the states of the step. */
  readonly reserved: Float64Array;
  /** Bytes of the blocks alive at the representative state that are not drawn one by one. */
  readonly rest: Float64Array;
  /** Allocation record ids of the individual blocks, largest first. */
  readonly blockRecord: Int32Array;
  readonly blockSize: Float64Array;
  /** Self line id of the block's allocation, or -1. */
  readonly blockLine: Int32Array;
  /**
   * For a block no line holds (blockLine -1): its bucket kind (spec "Explaining the peak", the same
   * classification as the analysis' peakBreakdown) as an index into PEAK_BUCKET_KINDS; else -1.
   */
  readonly blockBucket: Int8Array;
  readonly blockFirstStep: Int32Array;
  readonly blockLastStep: Int32Array;
  readonly blockRunStart: Int32Array;
  readonly runStep: Int32Array;
  readonly runOffset: Float64Array;
  /** The lines the blocks name (and the focus line). */
  readonly lines: readonly TimelineLine[];
  /** Segment releases (`segment_free`/`segment_unmap`, what `empty_cache` does) in the span, merged per step. */
  readonly releaseX: Float64Array;
  readonly releaseBytes: Float64Array;
  readonly releaseCount: Int32Array;
  /** True when more blocks are alive at the representatives than were drawn one by one. */
  readonly moreBlocks: boolean;
  /** Milliseconds the summary took in the core. */
  readonly computeMs: number;
}

export interface PeakMarker {
  readonly state: number;
  readonly x: number;
  readonly bytes: number;
  /** The line whose allocation reached the peak. */
  readonly line: TimelineLine | undefined;
}

export interface OomMarker {
  readonly state: number;
  readonly x: number;
  readonly requestedBytes: number;
  readonly deviceFreeBytes: number | undefined;
  readonly line: TimelineLine | undefined;
}

/** A START/END pair of `external_annotations` (e.g. `Optimizer.step#AdamW.step`) on the axis. */
export interface AnnotationSpan {
  readonly name: string;
  readonly x0: number;
  readonly x1: number;
  /** Row to draw it in, so that overlapping spans do not hide each other. */
  readonly lane: number;
}

/** The whole device at a glance: the minimap, the markers and the axis. */
export interface TimelineOverview {
  readonly device: number;
  readonly axis: AxisInfo;
  /** Whether trace entries carry `time_us`, so the time axis exists. */
  readonly hasTimes: boolean;
  readonly peak: PeakMarker;
  readonly peakReservedBytes: number;
  /** Set when the snapshot does not record the device's reserved memory (`reservedUnknownWords`): no reserved line is drawn. */
  readonly reservedUnknown?: string;
  /**
   * Set when the allocator view cannot be shown for this device (a window of the recording was loaded,
   * `windowReplayProblem`): why, in words; the page shows the blocks instead and says so.
   */
  readonly allocatorUnavailable?: string;
  readonly ooms: readonly OomMarker[];
  readonly annotations: readonly AnnotationSpan[];
  /** Annotation pairs left out because there were too many to draw. */
  readonly annotationsOmitted: number;
  /** The full-domain summary without individual blocks (the minimap). */
  readonly summary: TimelineSpan;
  /** The device's live-at-peak bytes no line holds, by bucket (the analysis' peakBreakdown): the legend's figures. */
  readonly peakBreakdown: readonly PeakBucket[];
  readonly allocations: number;
  /**
   * Device memory measured beside the trace (NVML samples of a workload run) on this axis; only for a
   * snapshot of one device whose trace has times to place the samples by.
   */
  readonly measured?: MeasuredLine;
  /** Set when only a window of the recording was loaded: the timeline shows it (its event 0 is `firstEvent`). */
  readonly window?: WindowSummary;
  /** The notebook cells of recorded cell files, added by the host (the page names their lines by cell). */
  readonly places?: CellPlaces;
}

export interface StackFrameView {
  readonly file: string;
  readonly line: number;
  readonly name: string;
  /** A frame of the user's own code under the current filter. */
  readonly user: boolean;
}

/** Everything the hover card shows about one block. */
export interface BlockDetail {
  readonly record: number;
  readonly size: number;
  readonly address: number;
  /** First and last state the block is alive in. */
  readonly firstState: number;
  readonly lastState: number;
  /** Event index of the alloc, or -1 when it happened before recording began. */
  readonly allocEvent: number;
  /** Event index of the free_completed, or -1 when the block is still alive at the end. */
  readonly freeEvent: number;
  readonly allocTimeUs: number | undefined;
  readonly freeTimeUs: number | undefined;
  readonly line: TimelineLine | undefined;
  /**
   * Innermost first; C++ and interpreter frames left out when the stack has Python frames, else the
   * C++ frames past the allocator's and unwinder's own; at most the requested number.
   */
  readonly frames: readonly StackFrameView[];
  readonly totalFrames: number;
  /** Innermost allocator and unwinder frames skipped before `frames` ("N more frames"). */
  readonly hiddenFrames: number;
  /** For a block no line of the user's code holds: its bucket (spec: "Explaining the peak"). */
  readonly bucket?: { readonly kind: PeakBucketKind; readonly label: string };
}

/** One block of a line, for "show this line in the timeline". */
export interface LineBlock {
  readonly record: number;
  readonly size: number;
  readonly firstState: number;
  readonly lastState: number;
}

/** A line and its blocks on one device, largest first. */
export interface LineBlocks {
  readonly lineId: number;
  readonly line: TimelineLine;
  readonly blocks: readonly LineBlock[];
}
