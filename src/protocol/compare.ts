/**
 * Messages between the comparison results panel and its webview (webview/compare/main.ts):
 * `HostToCompare`, `CompareToHost`. Types only: both sides import this file (the guards:
 * src/guards/compare.ts). Data goes to the page only by postMessage, after the page says `ready`; the
 * page names commands by their key in the extension's `Commands` (the host's allowlist), and opens a
 * line with the one `openLine` of every page (openLine.ts), naming the path its row carries.
 */
import type { DeviceTotals, FigureValues } from '../engine/compare/diff';
import type { Overlay, OverlayAxis } from '../engine/compare/overlay';
import type { LineAt, OpenLine } from './openLine';

/** Payload types the page reads, as the engine computes them (the page imports them from here, never from the engine). */
export type { FigureValues } from '../engine/compare/diff';
export type { Overlay, OverlayAxis } from '../engine/compare/overlay';

export interface SideView {
  readonly label: string;
  readonly device: number;
  readonly totals: DeviceTotals;
}

export interface RowView {
  /** `file:line` as shown (relative to the folder the rows share). */
  readonly place: string;
  /** The full recorded path of the current (or only) side, for tooltips. */
  readonly file: string;
  /** 'line' / 'text' (moved): on both sides; 'baseline' / 'current': on one side only. */
  readonly match: 'line' | 'text' | 'baseline' | 'current';
  /** Line numbers as text (a few recorded lines exceed 2^53). */
  readonly baselineLine: string | null;
  readonly currentLine: string | null;
  /** Where each side's line is, for opening it; null on a side without the line (or with a line number no editor has). */
  readonly baselineAt: LineAt | null;
  readonly currentAt: LineAt | null;
  readonly baseline: FigureValues | null;
  readonly current: FigureValues | null;
  readonly delta: FigureValues;
}

export interface ComparisonView {
  readonly baseline: SideView;
  readonly current: SideView;
  readonly totalsDelta: DeviceTotals;
  readonly rows: readonly RowView[];
  /** Lines with any change (rows may be cut to the first few hundred). */
  readonly changedLineCount: number;
  /** Whether both runs have timestamps, so the time axis can be offered. */
  readonly hasTimes: boolean;
}

export type HostToCompare =
  | { readonly type: 'comparison'; readonly view: ComparisonView }
  | { readonly type: 'overlay'; readonly overlay: Overlay }
  | { readonly type: 'error'; readonly message: string };

/** Host commands the page may ask for, by their key in `Commands` (anything else is ignored). */
export type CompareCommand = 'exitCompareMode' | 'compareSnapshots';

export type CompareToHost =
  | { readonly type: 'ready' }
  /** Open a recorded line in the editor (the one message of every page: openLine.ts). */
  | OpenLine
  | { readonly type: 'setAxis'; readonly axis: OverlayAxis }
  | { readonly type: 'runCommand'; readonly command: CompareCommand };

/** The page's own state kept across hide/show (VS Code `setState`). */
export interface CompareState {
  readonly axis: OverlayAxis;
}
