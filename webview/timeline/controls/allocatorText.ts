/**
 * Words of the allocator view, DOM-free (tested in Node): the tooltip over a segment or a step, an
 * OOM explained, the segment map's figures and a block of the map (the self-check's verdict is
 * webview/shared/selfCheckText.ts).
 */
import type { AllocatorSpan, OomExplanation, SegmentMapBlock, SegmentMapSegment, SegmentMapView, TimelineLine } from '../../../src/protocol/timeline';
import { baseName } from '../../../src/engine/paths/recordedPath';
import { formatBytes, formatCount, formatHex, formatPercent } from '../../../src/engine/text/format';
import type { Hit } from '../drawing/hit';
import { stateLabel } from './tooltipText';

const place = (l: { readonly file: string; readonly line: number } | undefined) => (l ? `${baseName(l.file)}:${l.line}` : undefined);

/** The allocator's figures at step i of the span: of its one state, or the most over the states it covers. */
function stepFigures(w: AllocatorSpan, i: number): string[] {
  const one = w.stepFirst[i] === w.stepLast[i];
  const most = one ? '' : 'at most ';
  const when = one ? stateLabel(w.stepState[i]) : `over events ${formatCount(Math.max(0, w.stepFirst[i] - 1))}-${formatCount(w.stepLast[i] - 1)}`;
  return [
    `${formatBytes(w.reserved[i])} reserved, ${most}${formatBytes(w.allocated[i])} allocated ${when}`,
    `${most}${formatBytes(w.unallocated[i])} reserved but unallocated; largest free block ${most}${formatBytes(w.largestFree[i])}`,
  ];
}

/** Tooltip lines over the allocator view: a segment (what made it, when it went) or a step. */
export function allocatorTooltip(hit: Hit, w: AllocatorSpan | undefined): string[] {
  if (!w) return [];
  const step = hit.kind === 'segment' || hit.kind === 'allocatorStep' ? hit.step : -1;
  if (step < 0 || step >= w.stepState.length) return [];
  if (hit.kind === 'allocatorStep') return [...stepFigures(w, step), 'Click to see the segment map at this moment'];
  if (hit.kind !== 'segment' || hit.index >= w.pieceSize.length) return [];
  const j = hit.index;
  const line = w.lines.find((l) => l.id === w.pieceLine[j]);
  const expandable = w.pieceExpandable[j] === 1;
  const what = expandable ? 'Mapped pages of an expandable segment' : 'Segment';
  const from = w.pieceFromEvent[j];
  const to = w.pieceToEvent[j];
  const made = from < 0 ? 'reserved before recording began' : `${expandable ? 'mapped' : 'cudaMalloc\'d'} at event ${formatCount(from)}${line ? ` for ${place(line)}` : ''}`;
  const gone = to < 0 ? 'still reserved at the end' : `${expandable ? 'unmapped' : 'released (cudaFree)'} at event ${formatCount(to)}`;
  return [`${what}: ${formatBytes(w.pieceSize[j])} at ${formatHex(w.pieceAddress[j])}`, `${made}; ${gone}`, ...stepFigures(w, step), 'Click to see the segment map at this moment'];
}

/** The OOM explanation of `event`, if the facts have one. */
export function oomAt(ooms: readonly OomExplanation[] | undefined, event: number): OomExplanation | undefined {
  return ooms?.find((o) => o.event === event);
}

/** An OOM, explained: what was asked, what the cache held, and the cause. */
export function oomLines(o: OomExplanation): string[] {
  const where = o.file !== null && o.line !== null ? ` at ${baseName(o.file)}:${o.line}` : '';
  const device = o.deviceFreeBytes !== null ? `; ${formatBytes(o.deviceFreeBytes)} free on the device` : '';
  const cause =
    o.cause === 'fragmentation'
      ? 'Cause: fragmentation. The cache held enough free memory, but no free block large enough (expandable_segments:True lets freed pages be reused).'
      : 'Cause: capacity. Not enough free memory, cached or on the device: the program needs less memory, or a larger GPU.';
  return [
    `Out of memory at event ${formatCount(o.event)}${where}: ${formatBytes(o.requestedBytes)} asked (a ${formatBytes(o.blockBytes)} block; a new segment would be ${formatBytes(o.segmentBytes)})`,
    `${formatBytes(o.reservedBytes)} reserved, ${formatBytes(o.allocatedBytes)} allocated; the cache held ${formatBytes(o.cachedFreeBytes)} free, its largest free block ${formatBytes(o.largestFreeBytes)}${device}`,
    cause,
  ];
}

/** The segment map's heading: when it is. */
export function mapHeading(map: SegmentMapView): string {
  return `Segment map ${stateLabel(map.event + 1)}`;
}

/** The segment map's figures, one sentence each. */
export function mapFigures(map: SegmentMapView): string[] {
  const n = map.segments.length;
  const waste = map.roundingWasteBytes;
  return [
    `${formatBytes(map.reservedBytes)} reserved in ${formatCount(n)} segment${n === 1 ? '' : 's'}; ${formatBytes(map.allocatedBytes)} allocated (${formatBytes(map.requestedBytes)} asked for, ${formatBytes(waste)} rounding waste)`,
    `${formatBytes(map.unallocatedBytes)} reserved but unallocated${map.reservedBytes > 0 ? ` (${formatPercent(map.unallocatedBytes, map.reservedBytes)} of reserved)` : ''}; largest free block ${formatBytes(map.largestFreeBytes)}`,
  ];
}

/** Blocks left out of the map (its answer is bounded). */
export function omittedBlocks(map: SegmentMapView): number {
  return map.segments.reduce((n, s) => n + s.blocksOmitted, 0);
}

/** Tooltip lines for one block of the map. */
export function mapBlockLines(segment: SegmentMapSegment, block: SegmentMapBlock, line: TimelineLine | undefined): string[] {
  const seg = `in a ${formatBytes(segment.size)} ${segment.expandable ? 'expandable ' : ''}segment (${segment.pool} pool, stream ${segment.stream}) at ${formatHex(segment.address)}`;
  if (block.state === 'free') return [`Free: ${formatBytes(block.size)}, cached by PyTorch`, seg];
  const waste = block.size - block.requestedSize;
  const by = line ? place(line) : block.allocEvent < 0 ? 'allocated before recording began' : 'no line of your code';
  const when = block.allocEvent >= 0 ? `, allocated at event ${formatCount(block.allocEvent)}` : '';
  return [
    `${block.state === 'pendingFree' ? 'Freed, waiting for its stream' : 'Allocated'}: ${formatBytes(block.size)}  ${by}`,
    `${formatBytes(block.requestedSize)} asked for${waste > 0 ? `, ${formatBytes(waste)} rounding waste` : ''}${when}`,
    seg,
    ...(line ? ['Click to open the line'] : []),
  ];
}
