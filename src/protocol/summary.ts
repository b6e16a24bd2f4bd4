/**
 * Messages between the snapshot summary webview (webview/summary) and the extension
 * (`HostToSummary`, `SummaryToHost`). Types only: both sides import it (the guards:
 * src/guards/summary.ts). Every string in a model is untrusted snapshot text; the page renders it with
 * textContent only.
 */
import type { OomExplanation } from '../engine/allocator/oom';
import type { SelfCheckDetails } from '../engine/allocator/selfCheck';
import type { PeakBucket } from '../engine/analysis/peakBreakdown';
import type { FigureValues } from '../engine/analysis/lineFigures';
import type { CellPlaces } from '../engine/paths/places';
import type { WindowSummary } from '../engine/analysis/summary';
import type { OpenLine } from './openLine';

/** Payload types the page reads, as the engine computes them (the page imports them from here, never from the engine). */
export type { CellPlaces } from '../engine/paths/places';

export interface SummaryLine {
  readonly file: string;
  /** Line number as text (snapshots can hold numbers beyond 2^53). */
  readonly line: string;
  /** Whether the file was found on this machine (the line is a link). */
  readonly mapped: boolean;
  /** Every per-line figure of the line (LINE_FIGURES), as the analysis gives it. */
  readonly figures: FigureValues;
}

export interface SummaryDevice {
  readonly device: number;
  readonly events: number;
  readonly allocations: number;
  readonly peakBytes: number;
  readonly peakEventIndex: number;
  readonly peakLine: { readonly file: string; readonly line: string; readonly mapped: boolean } | undefined;
  readonly peakReservedBytes: number;
  readonly finalReservedBytes: number;
  readonly initialActiveBytes: number;
  readonly finalActiveBytes: number;
  readonly oomCount: number;
  readonly linesWithFigures: number;
  readonly topLines: readonly SummaryLine[];
  /** The live-at-peak bytes no line of the user's holds, by bucket; absent from analyses that do not name them. */
  readonly peakBreakdown?: readonly PeakBucket[];
  /** Set when only a window of the recording was loaded: the figures cover it (event indices count from its first). */
  readonly window?: WindowSummary;
  /** Set when the snapshot does not record this device's reserved memory: why, in words ("unknown: ..."), shown instead of the reserved figures. */
  readonly reservedUnknown?: string;
}

/** One of the advisor's findings, as the summary shows it. */
export interface SummaryFinding {
  readonly device: number;
  readonly rule: string;
  readonly severity: 'information' | 'warning' | 'error';
  readonly title: string;
  readonly message: string;
  /** The line it is about, when it names one (a link when the file is on this machine). */
  readonly at?: { readonly file: string; readonly line: string; readonly mapped: boolean };
}

/**
 * The advisor's findings: `off` when the advisor is turned off (`vramLens.advice.enabled`),
 * `pending` while they are worked out.
 */
export type SummaryAdvice = { readonly state: 'off' } | { readonly state: 'pending' } | { readonly state: 'ready'; readonly findings: readonly SummaryFinding[] };

export interface SummaryModel {
  readonly label: string;
  readonly path: string | undefined;
  readonly layout: string;
  readonly byteLength: number;
  readonly hasTimes: boolean;
  /** This snapshot is the one annotating the editors. */
  readonly active: boolean;
  readonly selectedDevice: number;
  readonly devices: readonly SummaryDevice[];
  /** The first few recorded files with figures that were not found on this machine. */
  readonly unmappedFiles: readonly string[];
  /** How many files (not notebook cells) were not found in all. */
  readonly unmappedCount: number;
  /** While the recorded files are being looked for on this machine: how many (no line is a link yet). */
  readonly findingFiles?: number;
  /**
   * The advisor's findings. Those that name no line of this workspace (before recording, fragmentation,
   * an OOM without a line of yours) are shown only here, not in the Problems panel.
   */
  readonly advice: SummaryAdvice;
  /** The notebook cells of recorded cell files: their lines are named by cell ("train.ipynb, cell 7, line 3"). */
  readonly places?: CellPlaces;
}

/**
 * The caching allocator replayed for one device (sent after the summary: the replay can take a moment),
 * or why it was not (`unavailable`: a window of the recording was loaded, or the replay failed).
 */
export type SummaryAllocator =
  | {
      readonly device: number;
      readonly check: SelfCheckDetails;
      /** The recorded OOMs explained (at most a few). */
      readonly ooms: readonly OomExplanation[];
      /** The OOMs' recorded files found on this machine (their lines are links). */
      readonly mapped: readonly string[];
    }
  | { readonly device: number; readonly unavailable: string };

export type HostToSummary =
  | { readonly type: 'loading'; readonly label: string }
  | { readonly type: 'summary'; readonly model: SummaryModel }
  | { readonly type: 'allocator'; readonly allocator: SummaryAllocator }
  | { readonly type: 'error'; readonly message: string; readonly reopen?: boolean };

export type SummaryToHost =
  | { readonly type: 'ready' }
  | { readonly type: 'annotate' }
  | { readonly type: 'selectDevice'; readonly device: number }
  /** Open the what-if panel for this device (VRAM Lens: What If...). */
  | { readonly type: 'whatIf'; readonly device: number }
  /** Open a recorded line in the editor (the one message of every page: openLine.ts). */
  | OpenLine
  | { readonly type: 'reopenAsText' };
