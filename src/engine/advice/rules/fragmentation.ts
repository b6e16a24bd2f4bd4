/**
 * Fragmentation: PyTorch reserved far more than was allocated at the peak (or at an OOM), so
 * cached blocks were not reusable for what was asked. Suggests the allocator settings that help.
 */
import { formatBytes, formatPercent } from '../../text/format';
import type { AdviceContext } from '../context';
import type { Finding } from '../finding';
import type { AdviceRule } from '../rule';
import { counted } from '../rule';

/** Below these, a gap between reserved and allocated is ordinary caching, not worth a finding. */
export const MIN_GAP_BYTES = 512 * 1024 * 1024;
export const MIN_GAP_SHARE = 0.25;

interface CacheState {
  readonly freeBlocks: number;
  readonly largestFreeBlock: number;
  readonly segments: number;
  readonly expandable: boolean;
}

/** Free (inactive) blocks in the device's segments when the snapshot was taken. */
function cacheAtEnd(ctx: AdviceContext): CacheState {
  const segments = ctx.snapshot.segments.filter((s) => s.device === ctx.device.device);
  let freeBlocks = 0;
  let largestFreeBlock = 0;
  for (const s of segments) {
    for (const b of s.blocks) {
      if (b.state !== 'inactive') continue;
      freeBlocks++;
      largestFreeBlock = Math.max(largestFreeBlock, b.size);
    }
  }
  const settings = ctx.snapshot.allocatorSettings;
  const expandable = segments.some((s) => s.isExpandable) || settings?.expandable_segments === true;
  return { freeBlocks, largestFreeBlock, segments: segments.length, expandable };
}

function suggestion(cache: CacheState): string {
  return cache.expandable
    ? 'Segments are already expandable; PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:<MB> (keeps large cached blocks from being split) or garbage_collection_threshold:0.8 may help.'
    : 'Consider PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (segments grow in place instead of leaving gaps), or max_split_size_mb:<MB> to stop large cached blocks from being split for small requests.';
}

export const fragmentation: AdviceRule = {
  id: 'fragmentation',
  label: 'fragmentation',
  run(ctx) {
    const d = ctx.device;
    // Without the device's reserved memory recorded, nothing is known of what its cache held.
    if (d.reservedShortfall !== undefined) return [];
    const cache = cacheAtEnd(ctx);
    const findings: Finding[] = [];
    const cacheNote =
      cache.freeBlocks > 0
        ? ` When the snapshot was taken the cache had ${counted(cache.freeBlocks, 'free block')} in ${counted(cache.segments, 'segment')}, the largest ${formatBytes(cache.largestFreeBlock)}.`
        : '';

    // At an OOM: cached-but-unused memory that could have served the request had it been contiguous.
    for (const oom of d.ooms) {
      const gap = d.reserved[oom.eventIndex] - d.active[oom.eventIndex];
      if (gap < oom.requestedBytes) continue;
      findings.push({
        rule: 'fragmentation',
        severity: 'warning',
        device: d.device,
        title: `Fragmentation at the OOM: ${formatBytes(gap)} cached but unused`,
        message:
          `At the out-of-memory event ${ctx.eventName(oom.eventIndex)}, PyTorch had reserved ${formatBytes(d.reserved[oom.eventIndex])} but only ${formatBytes(d.active[oom.eventIndex])} was allocated: ` +
          `${formatBytes(gap)} sat unused in its cache, more than the ${formatBytes(oom.requestedBytes)} requested, yet no single free block was large enough.${cacheNote} ` +
          suggestion(cache),
        evidence: {
          oomEvent: oom.eventIndex,
          requestedBytes: oom.requestedBytes,
          reservedBytes: d.reserved[oom.eventIndex],
          allocatedBytes: d.active[oom.eventIndex],
          cachedUnusedBytes: gap,
          freeBlockCount: cache.freeBlocks,
          largestFreeBlockBytes: cache.largestFreeBlock,
        },
      });
    }
    if (findings.length > 0) return findings;

    const reservedAtPeak = d.peakEventIndex < 0 ? d.initialReservedBytes : d.reserved[d.peakEventIndex];
    const gap = reservedAtPeak - d.peakBytes;
    if (gap < MIN_GAP_BYTES || gap < MIN_GAP_SHARE * reservedAtPeak) return [];
    const when = d.peakEventIndex < 0 ? 'when the snapshot was taken' : `at the peak (event ${ctx.eventName(d.peakEventIndex)})`;
    findings.push({
      rule: 'fragmentation',
      severity: 'information',
      device: d.device,
      title: `Reserved ${formatPercent(gap, reservedAtPeak)} above allocated at the peak`,
      message:
        `PyTorch had reserved ${formatBytes(reservedAtPeak)} ${when} but only ${formatBytes(d.peakBytes)} was allocated: ` +
        `${formatBytes(gap)} (${formatPercent(gap, reservedAtPeak)}) was cached but unused, which other processes cannot use and which may be fragmented.${cacheNote} ` +
        suggestion(cache),
      evidence: {
        ...(d.peakEventIndex < 0 ? {} : { peakEvent: d.peakEventIndex }),
        reservedBytes: reservedAtPeak,
        allocatedBytes: d.peakBytes,
        cachedUnusedBytes: gap,
        cachedUnusedPercent: Math.round((100 * gap) / reservedAtPeak),
        freeBlockCount: cache.freeBlocks,
        largestFreeBlockBytes: cache.largestFreeBlock,
      },
    });
    return findings;
  },
};
