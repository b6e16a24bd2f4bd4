/**
 * The facts a person reads first about a snapshot: per device the peak, where it was reached,
 * reserved memory, OOMs, and the top lines by memory live at the peak. Shared by the CLI report and
 * the editor's snapshot summary.
 */
import type { Analysis, DeviceAnalysis } from './analyze';
import type { SourceLine } from './lineIndex';
import { NO_LINE } from './lineIndex';
import type { LineFigures } from './lines';
import type { FigureValues } from './lineFigures';
import { LINE_RANKING } from './lineFigures';
import { NO_STACK } from '../snapshot/model';
import type { PeakBucket } from './peakBreakdown';
import type { DeviceReplay, ReservedShortfall } from './replay';
import { formatBytes, formatCount } from '../text/format';

/** The user line whose allocation reached the device's peak, if the peak event has one. */
export function peakLine(analysis: Analysis, device: DeviceAnalysis): SourceLine | undefined {
  if (device.peakEventIndex < 0) return undefined;
  const stack = analysis.snapshot.traces[device.device]?.stack[device.peakEventIndex] ?? NO_STACK;
  if (stack === NO_STACK) return undefined;
  const id = analysis.lineIndex.selfLine[stack];
  return id === NO_LINE ? undefined : analysis.lineIndex.lines[id];
}

/** Lines ranked by `LINE_RANKING`: bytes live at the peak (self, then inclusive), then bytes allocated. */
export function topLines(device: Pick<DeviceAnalysis, 'lines'>, count: number): LineFigures[] {
  return [...device.lines].sort(byRanking).slice(0, count);
}

/** Larger first by each figure of `LINE_RANKING` in turn. */
export function byRanking(a: FigureValues, b: FigureValues): number {
  for (const key of LINE_RANKING) if (a[key] !== b[key]) return b[key] - a[key];
  return 0;
}

export interface DeviceSummary {
  readonly device: number;
  readonly events: number;
  readonly peakBytes: number;
  readonly peakEventIndex: number;
  readonly peakLine: SourceLine | undefined;
  readonly peakReservedBytes: number;
  readonly finalReservedBytes: number;
  readonly initialActiveBytes: number;
  readonly finalActiveBytes: number;
  readonly oomCount: number;
  readonly allocations: number;
  readonly linesWithFigures: number;
  /**
   * Bytes live at the peak that no line of the user's code allocated: blocks whose stacks hold only
   * library or C++ frames, or that were allocated before recording began.
   */
  readonly peakBytesWithoutUserLine: number;
  /** Those bytes by named bucket (spec: "Explaining the peak"); they add up to peakBytesWithoutUserLine. */
  readonly peakBreakdown: readonly PeakBucket[];
  /** Set when only a window of the recording was loaded: every figure above covers that window. */
  readonly window?: WindowSummary;
  /**
   * Set when the snapshot does not record this device's reserved memory (`reservedUnknownWords`): the
   * reserved figures above are then not PyTorch's, and every view says "unknown" with these words.
   */
  readonly reservedUnknown?: string;
}

/**
 * Why a device's reserved memory is unknown, in words ("unknown: ..."), or undefined where the
 * recorded segments always hold what the trace allocates. Events are named by their index in the
 * recording (`firstEvent` is a loaded window's first).
 */
export function reservedUnknownWords(device: Pick<DeviceReplay, 'reservedShortfall'>, firstEvent = 0): string | undefined {
  const s = device.reservedShortfall;
  return s === undefined ? undefined : `unknown: the snapshot does not record this device's reserved memory (${shortfallWords(s, firstEvent)})`;
}

/** The first moment the trace allocates more than its segments reserve: "1.0 GiB allocated after event 12, and no segment holds it". */
export function shortfallWords(s: ReservedShortfall, firstEvent = 0): string {
  const when = s.event < 0 ? (firstEvent > 0 ? 'when the window opens' : 'before the first event') : `after event ${formatCount(firstEvent + s.event)}`;
  const segments = s.reservedBytes <= 0 ? 'no segment holds it' : `the segments hold ${formatBytes(s.reservedBytes)}`;
  return `${formatBytes(s.activeBytes)} allocated ${when}, and ${segments}`;
}

/** Which events of a device's recording a loaded window holds (its event 0 is `firstEvent`). */
export interface WindowSummary {
  readonly firstEvent: number;
  readonly events: number;
  readonly recordedEvents: number;
}

/** The window of `device` in words: "events 1,200 to 4,999 of 19,464". */
export function windowText(w: WindowSummary): string {
  if (w.events === 0) return `no events (the window holds none of the ${formatCount(w.recordedEvents)} recorded)`;
  return `events ${formatCount(w.firstEvent)} to ${formatCount(w.firstEvent + w.events - 1)} of ${formatCount(w.recordedEvents)}`;
}

/** What a window's figures mean, for a line under its range. */
export const WINDOW_NOTE = 'figures cover this window; memory live when it opens is carried in';

export function summarizeDevice(analysis: Analysis, device: DeviceAnalysis): DeviceSummary {
  return {
    device: device.device,
    events: device.events,
    peakBytes: device.peakBytes,
    peakEventIndex: device.peakEventIndex,
    peakLine: peakLine(analysis, device),
    peakReservedBytes: device.peakReservedBytes,
    finalReservedBytes: device.finalReservedBytes,
    initialActiveBytes: device.initialActiveBytes,
    finalActiveBytes: device.finalActiveBytes,
    oomCount: device.ooms.length,
    allocations: device.allocations.count,
    linesWithFigures: device.lines.length,
    peakBytesWithoutUserLine: device.peakBreakdown.reduce((sum, b) => sum + b.bytes, 0),
    peakBreakdown: device.peakBreakdown.map((b) => ({ kind: b.kind, label: b.label, bytes: b.bytes })),
    ...windowOf(analysis, device),
    ...reservedUnknownOf(analysis, device),
  };
}

function reservedUnknownOf(analysis: Analysis, device: DeviceAnalysis): { reservedUnknown?: string } {
  const words = reservedUnknownWords(device, analysis.snapshot.traces[device.device]?.window?.firstEvent ?? 0);
  return words === undefined ? {} : { reservedUnknown: words };
}

function windowOf(analysis: Analysis, device: DeviceAnalysis): { window?: WindowSummary } {
  const w = analysis.snapshot.traces[device.device]?.window;
  return w === undefined ? {} : { window: { firstEvent: w.firstEvent, events: device.events, recordedEvents: w.recordedEvents } };
}
