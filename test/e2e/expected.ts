/**
 * Expected figures for the end-to-end tests, from the Python oracle (test/reference/spec_reference.py,
 * written from the spec alone) and a byte formatter written here, apart from the extension's.
 */
import type { FormerFigureKey } from '../../src/engine/analysis/lineFigures';
import type { LineReport } from '../../src/engine/analysis/report';
import { referenceAnalysis } from '../helpers/corpus';

/**
 * A line of the Python oracle's output: the spec's JSON shape, whose names for the figures peak while
 * allocating are `peakBytes` and `inclusivePeakBytes` (numbers only: the fixture has no line beyond 2^53).
 */
export interface OracleLine extends Omit<LineReport, 'line' | 'peakWhileAllocatingBytes' | 'inclusivePeakWhileAllocatingBytes' | FormerFigureKey> {
  readonly line: number;
  readonly peakBytes: number;
  readonly inclusivePeakBytes: number;
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

/** A share of the peak as the issue writes it: whole percent from 10% on, one decimal below. */
export function percentOf(part: number, whole: number): string {
  const p = (100 * part) / whole;
  return p >= 10 || p === 0 ? `${Math.round(p)}%` : `${p.toFixed(1)}%`;
}

/**
 * The inline text with the default figures (issue 12): what the line itself holds at the peak and its
 * share, `3.2 GiB at peak (14%)`; nothing for a line that holds nothing itself at the peak.
 */
export function expectedInline(l: OracleLine, peakBytes: number): string {
  return l.liveAtPeakBytes > 0 ? `${binary(l.liveAtPeakBytes)} at peak (${percentOf(l.liveAtPeakBytes, peakBytes)})` : '';
}

/**
 * The heat step of a line, restated from the issue and docs/editor.md: the share of the peak the line
 * itself holds at the peak, with steps from 0.5%, 1%, 2%, 4%, 8%, 15%, 25%, 40% and 60%.
 */
export function expectedHeatStep(l: OracleLine, peakBytes: number): number {
  const share = l.liveAtPeakBytes / peakBytes;
  return [0.005, 0.01, 0.02, 0.04, 0.08, 0.15, 0.25, 0.4, 0.6].filter((t) => share >= t).length;
}
