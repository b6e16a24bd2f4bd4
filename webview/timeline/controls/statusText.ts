/**
 * The status line under the selectors: what a user wants to know at a glance (the peak and the line
 * that reached it, out-of-memory events, how much of the run is on screen, whether small blocks are
 * merged), not drawing statistics. No DOM: tested in Node.
 */
import { formatBytes, formatCount, formatPercent } from '../../../src/engine/text/format';
import type { TimelineOverview, TimelineSpan } from '../../../src/protocol/timeline';
import { lineLabel } from '../../../src/engine/paths/places';
import { windowText } from '../../../src/engine/analysis/summary';

/** `notice`: why the view asked for is not shown (PageData's `notice`), said first. */
export function statusText(overview: TimelineOverview, w: TimelineSpan | undefined, notice?: string): string {
  const parts: string[] = [];
  if (notice !== undefined) parts.push(notice);
  // A window of the recording: say so first, every figure covers only it.
  if (overview.window !== undefined) parts.push(`window: ${windowText(overview.window)}`);
  const peak = overview.peak;
  parts.push(`peak ${formatBytes(peak.bytes)}${peak.line ? ` at ${lineLabel(peak.line.file, peak.line.line, overview.places)}` : ''}`);
  const ooms = overview.ooms.length;
  if (ooms > 0) parts.push(ooms === 1 ? '1 out-of-memory error' : `${formatCount(ooms)} out-of-memory errors`);
  if (w) {
    const span = overview.axis.end - overview.axis.start;
    const shown = Math.min(w.x1, overview.axis.end) - Math.max(w.x0, overview.axis.start);
    // Only when zoomed in: "showing 12% of the run".
    if (span > 0 && Number.isFinite(shown) && shown < span * 0.995) parts.push(`showing ${formatPercent(Math.max(0, shown), span)} of the run`);
    if (w.moreBlocks) parts.push('small blocks merged (zoom in)');
  }
  return parts.join(' · ');
}

/**
 * A device as the selector names it, in the summary's words ("Device 1 · 78.3 GiB"): it said "GPU 1",
 * beside "Device 1" on the summary, and of a workload that ran on the CPU too.
 */
export function deviceOptionLabel(d: { readonly device: number; readonly peakBytes: number }): string {
  return `Device ${d.device} · ${formatBytes(d.peakBytes)}`;
}
