/** Building one side of a comparison from what a caller has: a whole analysis, or a worker's summary and lines. */
import type { Analysis } from '../analysis/analyze';
import type { LineFigures } from '../analysis/lines';
import type { DeviceSummary } from '../analysis/summary';
import { summarizeDevice } from '../analysis/summary';
import type { LineTextProvider } from '../paths/sourceText';
import type { CellPlaces } from '../paths/places';
import type { ComparisonSide, DeviceTotals } from './diff';

export function deviceTotals(summary: DeviceSummary): DeviceTotals {
  return {
    events: summary.events,
    peakBytes: summary.peakBytes,
    peakReservedBytes: summary.reservedUnknown === undefined ? summary.peakReservedBytes : null,
    allocations: summary.allocations,
    oomCount: summary.oomCount,
  };
}

export function sideFromSummary(
  label: string,
  summary: DeviceSummary,
  lines: readonly LineFigures[],
  lineText?: LineTextProvider,
  places?: CellPlaces,
): ComparisonSide {
  return { label, device: summary.device, totals: deviceTotals(summary), lines, ...(lineText ? { lineText } : {}), ...(places ? { places } : {}) };
}

/** One device of an analysis as a comparison side; throws when the device is not in it. */
export function sideFromAnalysis(label: string, analysis: Analysis, device: number, lineText?: LineTextProvider, places?: CellPlaces): ComparisonSide {
  const d = analysis.devices.find((x) => x.device === device);
  if (!d) throw new RangeError(`no device ${device} (devices: ${analysis.devices.map((x) => x.device).join(', ') || 'none'})`);
  return sideFromSummary(label, summarizeDevice(analysis, d), d.lines, lineText, places);
}

/** The device a comparison uses by default: the one with the highest peak. */
export function busiestDevice(devices: readonly { device: number; peakBytes: number }[]): number | undefined {
  let best: { device: number; peakBytes: number } | undefined;
  for (const d of devices) if (!best || d.peakBytes > best.peakBytes) best = d;
  return best?.device;
}
