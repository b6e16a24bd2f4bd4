/**
 * The peak breakdown (spec "Explaining the peak") as the editor shows it: markdown lines for the peak
 * line's hover and the status bar tooltip, a short plain clause for the notification after opening.
 * Free of `vscode` so it is unit-tested in plain Node.
 */
import type { PeakBucket } from '../../engine/analysis/peakBreakdown';
import { describeBucket } from '../../engine/analysis/peakBreakdown';
import { formatBytes, formatPercent } from '../../engine/text/format';
import { notificationText } from '../../engine/text/plainText';
import { escapeMarkdown } from '../../engine/text/plainText';

/** The peak's named buckets, largest first: `- gradients (AccumulateGrad): 1.2 GiB · 10%`. */
export function peakBreakdownLines(buckets: readonly PeakBucket[], peak: number): string[] {
  return [...buckets]
    .filter((b) => b.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes)
    .map((b) => `- ${escapeMarkdown(describeBucket(b.kind, b.label))}: ${formatBytes(b.bytes)} · ${formatPercent(b.bytes, peak)}`);
}

/** For a notification: `besides your lines, the peak holds gradients (AccumulateGrad) 1.2 GiB (10%), ...`. */
export function peakBreakdownClause(buckets: readonly PeakBucket[], peak: number, max = 2): string {
  const shown = [...buckets].filter((b) => b.bytes > 0).sort((a, b) => b.bytes - a.bytes);
  if (shown.length === 0) return '';
  const parts = shown.slice(0, max).map((b) => `${describeBucket(b.kind, b.label)} ${formatBytes(b.bytes)} · ${formatPercent(b.bytes, peak)}`);
  const more = shown.length > max ? ` and ${shown.length - max} more` : '';
  return notificationText(`besides your lines, the peak holds ${parts.join(', ')}${more}`);
}
