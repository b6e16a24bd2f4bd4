/**
 * Messages between the snapshot summary webview (webview/summary) and the extension
 * (`HostToSummary`, `SummaryToHost`). Types and guards only: both sides import it. Every string in a
 * model is untrusted snapshot text; the page renders it with textContent only.
 */
import type { PeakBucket } from '../engine/analysis/peakBreakdown';
import type { LineFigureKey } from '../engine/analysis/lineFigures';
import type { WindowSummary } from '../engine/analysis/summary';
import { messageGuard } from './messageGuard';

/** The per-line figures the summary's table shows, in order (labels and units from LINE_FIGURES). */
export const SUMMARY_FIGURES: readonly LineFigureKey[] = ['liveAtPeakBytes', 'allocBytes', 'inclusiveLiveAtPeakBytes', 'inclusivePeakBytes'];

export interface SummaryLine {
  readonly file: string;
  /** Line number as text (snapshots can hold numbers beyond 2^53). */
  readonly line: string;
  /** Whether the file was found on this machine (the line is a link). */
  readonly mapped: boolean;
  /** Every per-line figure of the line (LINE_FIGURES), as the analysis gives it. */
  readonly figures: Readonly<Record<LineFigureKey, number>>;
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
}

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
  /** Recorded files with figures that were not found on this machine. */
  readonly unmappedFiles: readonly string[];
}

export type HostToSummary =
  | { readonly type: 'loading'; readonly label: string }
  | { readonly type: 'summary'; readonly model: SummaryModel }
  | { readonly type: 'error'; readonly message: string };

export type SummaryToHost =
  | { readonly type: 'ready' }
  | { readonly type: 'annotate' }
  | { readonly type: 'selectDevice'; readonly device: number }
  | { readonly type: 'openLine'; readonly file: string; readonly line: string };

export const isSummaryToHost = messageGuard<SummaryToHost>({ ready: true, annotate: true, selectDevice: true, openLine: true });
export const isHostToSummary = messageGuard<HostToSummary>({ loading: true, summary: true, error: true });
