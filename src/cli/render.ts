/** Plain-text rendering of an analysis for terminals: a summary and a table of the top lines. */
import type { Analysis } from '../engine/analysis/analyze';
import { WINDOW_NOTE, summarizeDevice, topLines, windowInWords } from '../engine/analysis/summary';
import { formatBytes, formatPercent } from '../engine/text/format';
import type { PeakBucket } from '../engine/analysis/peakBreakdown';
import { describeBucket } from '../engine/analysis/peakBreakdown';
import { plainText } from '../engine/text/plainText';

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

export function renderAnalysis(name: string, analysis: Analysis, options: { device?: number; top: number }): string {
  const out: string[] = [];
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
    out.push(`device ${s.device}: ${s.events} events, ${s.allocations} allocations`);
    if (s.window !== undefined) out.push(`  window          ${windowInWords(s.window)}: ${WINDOW_NOTE}`);
    const where = s.peakLine ? ` at ${shortPath(s.peakLine.file)}:${String(s.peakLine.line)}` : '';
    const when = s.peakEventIndex < 0 ? (s.window ? 'when the window opens' : 'before the first event') : `event ${first + s.peakEventIndex}`;
    out.push(`  peak allocated  ${formatBytes(s.peakBytes)} (${when}${where})`);
    out.push(`  reserved        peak ${formatBytes(s.peakReservedBytes)}, at end ${formatBytes(s.finalReservedBytes)}`);
    out.push(`  allocated       at start ${formatBytes(s.initialActiveBytes)}, at end ${formatBytes(s.finalActiveBytes)}`);
    out.push(...renderPeakBreakdown(s.peakBreakdown, s.peakBytes));
    if (s.oomCount > 0) {
      for (const oom of device.ooms) {
        const free = oom.deviceFreeBytes === undefined ? '' : `, ${formatBytes(oom.deviceFreeBytes)} free on the device`;
        out.push(`  OUT OF MEMORY   event ${first + oom.eventIndex}: ${formatBytes(oom.requestedBytes)} requested${free}`);
      }
    }
    const rows = topLines(device, options.top).filter((l) => l.liveAtPeakBytes > 0 || l.allocBytes > 0);
    if (rows.length === 0) {
      out.push('  No allocation in this trace has a frame in your code (only library or C++ frames, or no stacks).');
      continue;
    }
    const base = commonDirectory(rows.map((l) => l.file));
    out.push('');
    if (base !== '') out.push(`  files under ${base}`);
    out.push(`  ${pad('live@peak', 11, true)} ${pad('incl@peak', 11, true)} ${pad('allocated', 11, true)} ${pad('count', 7, true)}  line`);
    for (const l of rows) {
      out.push(
        `  ${pad(formatBytes(l.liveAtPeakBytes), 11, true)} ${pad(formatBytes(l.inclusiveLiveAtPeakBytes), 11, true)} ${pad(
          formatBytes(l.allocBytes),
          11,
          true,
        )} ${pad(String(l.allocCount), 7, true)}  ${shortPath(l.file.slice(base.length))}:${String(l.line)}`,
      );
    }
  }
  return out.join('\n') + '\n';
}
