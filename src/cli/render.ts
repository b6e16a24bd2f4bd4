/** Plain-text rendering of an analysis for terminals: a summary and a table of the top lines. */
import type { Analysis } from '../engine/analysis/analyze';
import { WINDOW_NOTE, summarizeDevice, topLines, windowText } from '../engine/analysis/summary';
import { formatBytes, formatCount, formatPercent } from '../engine/text/format';
import type { PeakBucket } from '../engine/analysis/peakBreakdown';
import { describeBucket } from '../engine/analysis/peakBreakdown';
import { plainText } from '../engine/text/plainText';
import type { CellPlaces } from '../engine/paths/places';
import { lineLabel, placeOf } from '../engine/paths/places';
import type { FigureRegistry } from '../engine/analysis/lineFigures';
import { FIGURE, LINE_FIGURES, figureText, figuresOn } from '../engine/analysis/lineFigures';

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

export function shortPath(file: string, max = 60): string {
  return file.length <= max ? file : `…${file.slice(file.length - max + 1)}`;
}

/** The longest directory prefix shared by all paths (with its trailing separator), or ''. */
export function commonDirectory(files: readonly string[]): string {
  if (files.length === 0) return '';
  let prefix = files[0];
  for (const f of files) {
    let i = 0;
    while (i < prefix.length && i < f.length && prefix[i] === f[i]) i++;
    prefix = prefix.slice(0, i);
  }
  const cut = Math.max(prefix.lastIndexOf('/'), prefix.lastIndexOf('\\'));
  return cut < 0 ? '' : prefix.slice(0, cut + 1);
}

/** How many buckets the summary names before it sums up the rest. */
const BREAKDOWN_ROWS = 8;

/** The peak's bytes that no line of your code holds, by named bucket, with bytes and share. */
export function renderPeakBreakdown(buckets: readonly PeakBucket[], peakBytes: number): string[] {
  if (buckets.length === 0) return [];
  const total = buckets.reduce((sum, b) => sum + b.bytes, 0);
  const out = [`  not held by a line of your code: ${formatBytes(total)} of the peak (${formatPercent(total, peakBytes)})`];
  const row = (bytes: number, what: string) =>
    `    ${pad(formatBytes(bytes), 11, true)} ${pad(formatPercent(bytes, peakBytes), 6, true)}  ${what}`;
  for (const b of buckets.slice(0, BREAKDOWN_ROWS)) out.push(row(b.bytes, plainText(describeBucket(b.kind, b.label))));
  const rest = buckets.slice(BREAKDOWN_ROWS);
  if (rest.length > 0) out.push(row(rest.reduce((sum, b) => sum + b.bytes, 0), `${rest.length} more buckets`));
  return out;
}

/** `file:line` for the terminal: a cell's line by its notebook and cell, a file's path as recorded (cut to its tail). */
export function placeText(file: string, line: number | bigint, places?: CellPlaces, base = ''): string {
  return placeOf(file, places) ? lineLabel(file, line, places) : `${shortPath(file.slice(base.length))}:${String(line)}`;
}

/**
 * `figures`: the registry whose `cli` figures make the table's columns (tests plant one more); `places`: the
 * notebook cells of recorded cell files (`--notebook`), whose lines are named by cell; `allocator`: a line
 * about the allocator replay's self-check of a device.
 */
export function renderAnalysis(
  name: string,
  analysis: Analysis,
  options: { device?: number; top: number; figures?: FigureRegistry; places?: CellPlaces; allocator?: (device: number) => string | undefined },
): string {
  const { places } = options;
  const out: string[] = [];
  const columns = figuresOn('cli', options.figures ?? LINE_FIGURES).map((spec) => ({ spec, width: spec.unit === 'count' ? 7 : 11 }));
  const devices = analysis.devices.filter((d) => options.device === undefined || d.device === options.device);
  out.push(`${name}`);
  out.push(`  layout: ${analysis.snapshot.layout}; devices: ${analysis.devices.map((d) => d.device).join(', ') || 'none'}`);
  if (analysis.devices.length === 0) {
    out.push('  The snapshot holds no segments and no trace events: nothing was recorded.');
    return out.join('\n') + '\n';
  }
  for (const device of devices) {
    const s = summarizeDevice(analysis, device);
    // In a window, events are named by their index in the recording.
    const first = s.window?.firstEvent ?? 0;
    out.push('');
    out.push(`device ${s.device}: ${formatCount(s.events)} events, ${formatCount(s.allocations)} allocations`);
    if (s.window !== undefined) out.push(`  window          ${windowText(s.window)}: ${WINDOW_NOTE}`);
    const where = s.peakLine ? ` at ${placeText(s.peakLine.file, s.peakLine.line, places)}` : '';
    const when = s.peakEventIndex < 0 ? (s.window ? 'when the window opens' : 'before the first event') : `event ${formatCount(first + s.peakEventIndex)}`;
    out.push(`  peak allocated  ${formatBytes(s.peakBytes)} (${when}${where})`);
    out.push(`  reserved        ${s.reservedUnknown ?? `peak ${formatBytes(s.peakReservedBytes)}, at end ${formatBytes(s.finalReservedBytes)}`}`);
    const replay = options.allocator?.(s.device);
    if (replay !== undefined) out.push(`  replayed        ${replay}`);
    out.push(`  allocated       at start ${formatBytes(s.initialActiveBytes)}, at end ${formatBytes(s.finalActiveBytes)}`);
    out.push(...renderPeakBreakdown(s.peakBreakdown, s.peakBytes));
    if (s.oomCount > 0) {
      for (const oom of device.ooms) {
        const free = oom.deviceFreeBytes === undefined ? '' : `, ${formatBytes(oom.deviceFreeBytes)} free on the device`;
        out.push(`  OUT OF MEMORY   event ${formatCount(first + oom.eventIndex)}: ${formatBytes(oom.requestedBytes)} requested${free}`);
      }
    }
    const rows = topLines(device, options.top).filter((l) => l[FIGURE.heldAtPeak] > 0 || l[FIGURE.allocated] > 0);
    if (rows.length === 0) {
      out.push('  No allocation in this trace has a frame in your code (only library or C++ frames, or no stacks).');
      continue;
    }
    const base = commonDirectory(rows.filter((l) => !placeOf(l.file, places)).map((l) => l.file));
    out.push('');
    if (base !== '') out.push(`  files under ${base}`);
    out.push(`  ${columns.map(({ spec, width }) => pad(spec.cli ?? '', width, true)).join(' ')}  line`);
    for (const l of rows) {
      const cells = columns.map(({ spec, width }) => pad(figureText(spec, l[spec.key]), width, true));
      out.push(`  ${cells.join(' ')}  ${placeText(l.file, l.line, places, base)}`);
    }
  }
  return out.join('\n') + '\n';
}
