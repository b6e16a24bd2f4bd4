/**
 * Expected figures for the end-to-end tests, from the Python oracle (test/reference/spec_reference.py,
 * written from the spec alone) and a byte formatter written here, apart from the extension's.
 */
import type { LineReport } from '../../src/core/analysis/report';
import { referenceAnalysis } from '../helpers/corpus';

/** A line of the Python oracle's output: the spec's JSON shape (numbers only: the fixture has no line beyond 2^53). */
export interface OracleLine extends Omit<LineReport, 'line'> {
  readonly line: number;
}

export interface OracleDevice {
  readonly device: number;
  readonly peakBytes: number;
  readonly lines: readonly OracleLine[];
}

/** The oracle's reading of one snapshot file. */
export function oracle(file: string): readonly OracleDevice[] {
  const all = referenceAnalysis([file]) as Record<string, { devices: OracleDevice[] }>;
  return all[file].devices;
}

/** The oracle's figures of `line` in the recorded file ending with `suffix`. */
export function oracleLine(device: OracleDevice, suffix: string, line: number): OracleLine {
  const found = device.lines.find((l) => l.file.endsWith(suffix) && l.line === line);
  if (!found) throw new Error(`the oracle has no figures for ${suffix}:${line}`);
  return found;
}

/** Bytes in binary units with one decimal (`2.5 GiB`, `512.0 MiB`), as the issue writes them. */
export function binary(bytes: number): string {
  const units: [number, string][] = [
    [2 ** 40, 'TiB'],
    [2 ** 30, 'GiB'],
    [2 ** 20, 'MiB'],
    [2 ** 10, 'KiB'],
  ];
  for (const [size, unit] of units) if (bytes >= size) return `${(bytes / size).toFixed(1)} ${unit}`;
  return `${bytes} B`;
}

/**
 * The inline text with the default figures: `+2.0 GiB (x3) · peak 7.9 GiB · 1.2 GiB live at peak`;
 * a line that allocates only through its calls reads `+5.0 GiB in calls`; zero figures are left out.
 */
export function expectedInline(l: OracleLine): string {
  const parts: string[] = [];
  if (l.allocBytes > 0) parts.push(l.allocCount > 1 ? `+${binary(l.allocBytes)} (x${l.allocCount})` : `+${binary(l.allocBytes)}`);
  else if (l.inclusiveAllocBytes > 0) parts.push(`+${binary(l.inclusiveAllocBytes)} in calls`);
  if (l.inclusivePeakBytes > 0) parts.push(`peak ${binary(l.inclusivePeakBytes)}`);
  if (l.inclusiveLiveAtPeakBytes > 0) parts.push(`${binary(l.inclusiveLiveAtPeakBytes)} live at peak`);
  return parts.join(' · ');
}
