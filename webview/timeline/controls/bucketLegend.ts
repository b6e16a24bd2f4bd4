/**
 * The legend entries of the buckets (spec "Explaining the peak"): one per bucket kind at the peak
 * or drawn in the span, with its bytes at the peak (the sum of the analysis' peakBreakdown
 * entries of that kind) and the buckets it holds in the summary's words. No DOM: tested in Node.
 */
import type { PeakBucket, PeakBucketKind } from '../../../src/protocol/timeline';
import { bucketKindName, describeBucket, PEAK_BUCKET_KINDS } from '../../../src/engine/analysis/peakBreakdown';
import { formatBytes } from '../../../src/engine/text/format';

export interface BucketLegendEntry {
  readonly kind: PeakBucketKind;
  /** The kind's name ("backward pass", "allocated before recording began", ...). */
  readonly name: string;
  /** Live-at-peak bytes of this kind's buckets. */
  readonly peakBytes: number;
  /** The kind's buckets at the peak, largest first, as the summary names them, with their bytes. */
  readonly buckets: readonly string[];
}

/** The kinds (indices into PEAK_BUCKET_KINDS) of a span's blocks. */
export function kindsDrawn(blockBucket: Int8Array | undefined): Set<PeakBucketKind> {
  const kinds = new Set<PeakBucketKind>();
  if (blockBucket) for (const k of blockBucket) if (k >= 0 && k < PEAK_BUCKET_KINDS.length) kinds.add(PEAK_BUCKET_KINDS[k]);
  return kinds;
}

/** One entry per kind with bytes at the peak or blocks drawn, in PEAK_BUCKET_KINDS order. */
export function bucketLegend(peakBreakdown: readonly PeakBucket[], drawn: ReadonlySet<PeakBucketKind> = new Set()): BucketLegendEntry[] {
  return PEAK_BUCKET_KINDS.flatMap((kind) => {
    const buckets = peakBreakdown.filter((b) => b.kind === kind).sort((a, b) => b.bytes - a.bytes);
    const peakBytes = buckets.reduce((sum, b) => sum + b.bytes, 0);
    if (peakBytes === 0 && !drawn.has(kind)) return [];
    return [{ kind, name: bucketKindName(kind), peakBytes, buckets: buckets.map((b) => `${describeBucket(b.kind, b.label)}: ${formatBytes(b.bytes)}`) }];
  });
}

/** The entry as the legend writes it: "backward pass 2.5 GiB at the peak". */
export function legendText(entry: BucketLegendEntry): string {
  return entry.peakBytes > 0 ? `${entry.name} ${formatBytes(entry.peakBytes)} at the peak` : entry.name;
}
