/**
 * The JSON contract of `vram-lens analyze --json` (spec: "JSON shape"). Integers beyond 2^53
 * (line numbers PyTorch writes as 2^64-1) are printed exactly, never rounded.
 */
import type { LineNumber } from '../snapshot/model';
import type { CellPlaces, PlacedLine } from '../paths/places';
import { placeLine } from '../paths/places';
import type { Analysis } from './analyze';
import type { PeakBucket } from './peakBreakdown';
import type { LineFigures } from './lines';
import type { FigureRegistry, FigureValues, FormerFigureKey } from './lineFigures';
import { LINE_FIGURES, figureValues, formerFigureValues } from './lineFigures';

/**
 * One row of the JSON: the line (a notebook cell's: `placeLine`) and every figure of the registry
 * (lineFigures.ts), in its order, then a renamed figure under its former key too (for one release).
 */
export type LineReport = PlacedLine<LineNumber> & FigureValues & Partial<Record<FormerFigureKey, number>>;

function lineReport(l: LineFigures, figures: FigureRegistry, places: CellPlaces | undefined): LineReport {
  return { ...placeLine(l.file, l.line, places), ...figureValues(l, figures), ...formerFigureValues(l, figures) };
}

export interface DeviceReport {
  device: number;
  events: number;
  initialActiveBytes: number;
  peakBytes: number;
  peakEventIndex: number;
  finalActiveBytes: number;
  initialReservedBytes: number;
  peakReservedBytes: number;
  finalReservedBytes: number;
  oomCount: number;
  /** The lines with a non-zero figure of the contract (spec: "one row per (file, line) that has any non-zero figure"). */
  lines: LineReport[];
  /**
   * Lines whose only non-zero figures are beyond the contract (`beyondContract`): e.g. an `empty_cache()` call
   * whose segment releases were recorded with its stack.
   */
  segmentOnlyLines: LineReport[];
  /** The live-at-peak bytes no self line holds, by bucket: lines + breakdown = peakBytes. */
  peakBreakdown: PeakBucket[];
  /**
   * Only when a window was loaded: the recorded events it holds. Event indices above (peakEventIndex)
   * count from its first event; every figure covers the window, memory live when it opens carried in.
   */
  window?: { firstEvent: number; events: number; recordedEvents: number };
}

export interface AnalysisReport {
  layout: string;
  /** Only when a window was loaded: what was asked for (times in microseconds after `originUs`). */
  window?: { axis: 'event' | 'time'; from?: number; to?: number; originUs?: number };
  devices: DeviceReport[];
}

/**
 * `figures`: the per-line figures the line objects hold (the registry's; tests plant more); `places`: the notebook
 * cells of recorded cell files (`vram-lens analyze --notebook`).
 */
export function toReport(analysis: Analysis, onlyDevice?: number, figures: FigureRegistry = LINE_FIGURES, places?: CellPlaces): AnalysisReport {
  const inContract = (l: LineFigures) => figures.some((f) => !f.beyondContract && l[f.key] !== 0);
  const devices = analysis.devices
    .filter((d) => onlyDevice === undefined || d.device === onlyDevice)
    .map(
      (d): DeviceReport => ({
        device: d.device,
        events: d.events,
        initialActiveBytes: d.initialActiveBytes,
        peakBytes: d.peakBytes,
        peakEventIndex: d.peakEventIndex,
        finalActiveBytes: d.finalActiveBytes,
        initialReservedBytes: d.initialReservedBytes,
        peakReservedBytes: d.peakReservedBytes,
        finalReservedBytes: d.finalReservedBytes,
        oomCount: d.ooms.length,
        lines: d.lines.filter(inContract).map((l) => lineReport(l, figures, places)),
        segmentOnlyLines: d.lines.filter((l) => !inContract(l)).map((l) => lineReport(l, figures, places)),
        peakBreakdown: d.peakBreakdown.map((b) => ({ kind: b.kind, label: b.label, bytes: b.bytes })),
        ...deviceWindow(analysis, d.device, d.events),
      }),
    );
  const w = analysis.snapshot.window;
  if (w === undefined) return { layout: analysis.snapshot.layout, devices };
  const window = { axis: w.axis, ...(w.from === undefined ? {} : { from: w.from }), ...(w.to === undefined ? {} : { to: w.to }), ...(Number.isNaN(w.originUs) ? {} : { originUs: w.originUs }) };
  return { layout: analysis.snapshot.layout, window, devices };
}

function deviceWindow(analysis: Analysis, device: number, events: number): Pick<DeviceReport, 'window'> {
  const w = analysis.snapshot.traces[device]?.window;
  return w === undefined ? {} : { window: { firstEvent: w.firstEvent, events, recordedEvents: w.recordedEvents } };
}

/** JSON.stringify that writes bigint values as exact integer literals. */
export function stringifyExact(value: unknown, indent?: number): string {
  const marker = '\u0000bigint:';
  const json = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${marker}${v.toString()}` : v), indent);
  return json.replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}
