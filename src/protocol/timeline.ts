/**
 * The messages between the extension host and the timeline webview (`HostToTimeline`,
 * `TimelineToHost`): the one contract both sides import. Discriminated unions on `type`; the page
 * starts with `ready`; every request carries an id its answer echoes. A side that receives a message
 * it does not know logs it and ignores it. Types only (the guards: src/guards/timeline.ts): no DOM, no
 * `vscode` and no running code here.
 */
import type { OomExplanation } from '../engine/allocator/oom';
import type { SelfCheckDetails } from '../engine/allocator/selfCheck';
import type { SegmentMapView } from '../engine/session/allocatorStudy';
import type { AllocatorSpan, AllocatorSpanRequest } from '../engine/timeline/allocatorSpan';
import type { FindingMarker } from '../engine/timeline/findingMarkers';
import type {
  AxisKind,
  BlockDetail,
  LineBlocks,
  TimelineOverview,
  TimelineSpan,
  SpanRequest,
} from '../engine/timeline/types';
import type { FigureValues } from '../engine/analysis/lineFigures';
import type { OpenLine } from './openLine';

/** Payload types the page reads, as the engine computes them (the page imports them from here, never from the engine). */
export type { OomExplanation } from '../engine/allocator/oom';
export type { SegmentMapBlock, SegmentMapSegment } from '../engine/allocator/segmentMap';
export type { PeakBucket, PeakBucketKind } from '../engine/analysis/peakBreakdown';
export type { CellPlaces } from '../engine/paths/places';
export type { SegmentMapView } from '../engine/session/allocatorStudy';
export type { AllocatorSpan } from '../engine/timeline/allocatorSpan';
export type { FindingMarker } from '../engine/timeline/findingMarkers';
export type { MeasuredLine } from '../engine/timeline/measuredLine';
export type { AxisKind, BlockDetail, LineBlocks, TimelineLine, TimelineOverview, TimelineSpan } from '../engine/timeline/types';

/**
 * The commands the page may ask the host to run (the empty state's buttons), named by their key in
 * the extension's `Commands`; the host maps them through its allowlist and runs nothing else.
 */
export type TimelineCommand = 'openSnapshot' | 'openSample' | 'profile';

/** A loaded snapshot as the selectors show it. */
export interface SnapshotChoice {
  readonly id: string;
  readonly label: string;
  readonly devices: readonly { readonly device: number; readonly peakBytes: number; readonly events: number }[];
  /** The device the rest of the editor shows for this snapshot. */
  readonly device: number;
  readonly hasTimes: boolean;
}

/** One row of the lines table: a line's figures on the selected device (every figure of the registry). */
export interface LineRow extends FigureValues {
  readonly id: number;
  readonly file: string;
  readonly line: number;
  readonly color: number;
}

/** What the allocator view shows besides its spans, asked once per target: the self-check and the recorded OOMs explained. */
export interface AllocatorFacts {
  readonly check: SelfCheckDetails;
  /** The recorded OOMs (at most MAX_OOMS, the first ones), each explained from the replayed allocator's state. */
  readonly ooms: readonly OomExplanation[];
}

/** Where the view points: which snapshot and device. */
export interface Target {
  readonly snapshotId: string;
  readonly device: number;
}

// ---- webview -> host ----

export type TimelineToHost =
  | { readonly type: 'ready' }
  | { readonly type: 'overview'; readonly requestId: number; readonly target: Target; readonly axis: AxisKind; readonly columns: number }
  | { readonly type: 'span'; readonly requestId: number; readonly target: Target; readonly request: SpanRequest }
  /** The advisor's findings that name trace events, placed on the axis. */
  | { readonly type: 'findings'; readonly requestId: number; readonly target: Target; readonly axis: AxisKind }
  /** `allFrames`: the whole shown stack (the "N more frames" control), else its innermost frames. */
  | { readonly type: 'block'; readonly requestId: number; readonly target: Target; readonly record: number; readonly allFrames?: boolean }
  | { readonly type: 'lines'; readonly requestId: number; readonly target: Target }
  | { readonly type: 'stackFilter'; readonly requestId: number; readonly target: Target; readonly text: string }
  /** The blocks of a line (a path as the snapshot names it), to zoom to the largest. */
  | { readonly type: 'lineBlocks'; readonly requestId: number; readonly target: Target; readonly file: string; readonly line: number }
  /** The allocator's view of a span (asked for the x range and columns of the block span shown, so their steps agree). */
  | { readonly type: 'allocatorSpan'; readonly requestId: number; readonly target: Target; readonly request: AllocatorSpanRequest }
  /** The allocator's self-check and its explanation of the recorded OOMs. */
  | { readonly type: 'allocatorFacts'; readonly requestId: number; readonly target: Target }
  /** The segment map at a state (the memory right after event state - 1; 0: before the first event). */
  | { readonly type: 'segmentMap'; readonly requestId: number; readonly target: Target; readonly state: number }
  /** Open a recorded line in the editor (the one message of every page: openLine.ts). */
  | OpenLine
  | { readonly type: 'runCommand'; readonly command: TimelineCommand }
  /** The snapshot and device the view now shows (the host's `Show Line in Timeline` uses them). */
  | { readonly type: 'showing'; readonly target: Target }
  | { readonly type: 'log'; readonly level: 'info' | 'warn' | 'error'; readonly message: string };


// ---- host -> webview ----

export type HostToTimeline =
  | { readonly type: 'snapshots'; readonly snapshots: readonly SnapshotChoice[]; readonly activeId: string | undefined }
  | { readonly type: 'overview'; readonly requestId: number; readonly overview: TimelineOverview }
  | { readonly type: 'span'; readonly requestId: number; readonly span: TimelineSpan }
  | { readonly type: 'findings'; readonly requestId: number; readonly markers: readonly FindingMarker[] }
  | { readonly type: 'block'; readonly requestId: number; readonly detail: BlockDetail }
  | { readonly type: 'lines'; readonly requestId: number; readonly rows: readonly LineRow[] }
  | { readonly type: 'stackFilter'; readonly requestId: number; readonly lineIds: readonly number[] }
  | { readonly type: 'lineBlocks'; readonly requestId: number; readonly blocks: LineBlocks | undefined }
  | { readonly type: 'allocatorSpan'; readonly requestId: number; readonly span: AllocatorSpan | undefined }
  | { readonly type: 'allocatorFacts'; readonly requestId: number; readonly facts: AllocatorFacts }
  | { readonly type: 'segmentMap'; readonly requestId: number; readonly map: SegmentMapView }
  | { readonly type: 'error'; readonly requestId: number; readonly message: string }
  /** Select a line and zoom to its largest block (the `Show Line in Timeline` command). */
  | { readonly type: 'showLine'; readonly target: Target; readonly blocks: LineBlocks };

/** The requests of the page: the messages that carry a `requestId` its answer echoes. */
export type TimelineRequest = Extract<TimelineToHost, { readonly requestId: number }>;
