/**
 * The segment map at one moment: every segment the allocator holds, and the blocks it is cut into
 * (allocated with the line that asked, freed but pending, cached free), with the rounding waste of
 * each allocated block (its size beyond the bytes asked for). Expandable segments are shown as
 * PyTorch's snapshots show them: one segment per run of mapped pages.
 */
import type { LineIndex } from '../analysis/lineIndex';
import { NO_LINE } from '../analysis/lineIndex';
import type { Block } from './blocks';
import { BEFORE_TRACE } from './blocks';
import type { AllocatorReplay } from './traceReplay';
import { largestCached } from './traceReplay';

export type MapBlockState = 'allocated' | 'pendingFree' | 'free';

export interface SegmentMapBlock {
  readonly address: number;
  readonly size: number;
  /** Bytes asked for (0 for free blocks). */
  readonly requestedSize: number;
  readonly state: MapBlockState;
  /** The trace event that allocated it (-1: before recording, or free). */
  readonly allocEvent: number;
  /** Its line's id in the analysis' line index (-1: no user line, or free). */
  readonly line: number;
}

export interface SegmentMapSegment {
  readonly address: number;
  readonly size: number;
  readonly stream: number;
  readonly pool: 'small' | 'large';
  readonly expandable: boolean;
  /** The event whose allocation made the segment (-1: before recording). */
  readonly createdAt: number;
  readonly blocks: readonly SegmentMapBlock[];
  /** Blocks left out to keep the answer small. */
  readonly blocksOmitted: number;
}

export interface SegmentMap {
  readonly device: number;
  /** The state shown is right after this event (-1: before the first). */
  readonly event: number;
  readonly reservedBytes: number;
  readonly allocatedBytes: number;
  readonly requestedBytes: number;
  /** Reserved but not allocated. */
  readonly unallocatedBytes: number;
  readonly largestFreeBytes: number;
  /** Sum over allocated blocks of size minus requested size. */
  readonly roundingWasteBytes: number;
  readonly segments: readonly SegmentMapSegment[];
  /** The ids of the lines blocks name, ascending. */
  readonly lineIds: readonly number[];
}

/** The segment map of a replay where it stands (build the replay with `blockStacks` so blocks have their lines). */
export function segmentMapOf(replay: AllocatorReplay, lineIndex: LineIndex | undefined, maxBlocks: number): SegmentMap {
  const a = replay.allocator;
  const runs: { head: Block; stream: number; small: boolean; expandable: boolean; createdAt: number }[] = [];
  for (const s of a.segments) {
    if (!s.expandable) {
      runs.push({ head: s.head, stream: s.stream, small: s.small, expandable: false, createdAt: s.createdAt });
      continue;
    }
    for (let b: Block | undefined = s.head; b; b = b.next) {
      if (b.mapped && (!b.prev || !b.prev.mapped)) runs.push({ head: b, stream: s.stream, small: s.small, expandable: true, createdAt: s.createdAt });
    }
  }
  runs.sort((x, y) => x.head.ptr - y.head.ptr);
  const lineIds = new Set<number>();
  let budget = Math.max(0, maxBlocks);
  let roundingWaste = 0;
  const segments = runs.map((r): SegmentMapSegment => {
    const blocks: SegmentMapBlock[] = [];
    let size = 0;
    let omitted = 0;
    for (let b: Block | undefined = r.head; b && b.mapped; b = b.next) {
      size += b.size;
      if (b.allocated) roundingWaste += b.size - b.requestedSize;
      if (budget <= 0) {
        omitted++;
        continue;
      }
      budget--;
      const stack = b.allocated ? replay.stackOf(b) : -1;
      const line = lineIndex && stack >= 0 ? lineIndex.selfLine[stack] ?? NO_LINE : NO_LINE;
      if (line !== NO_LINE) lineIds.add(line);
      blocks.push({
        address: b.ptr,
        size: b.size,
        requestedSize: b.allocated ? b.requestedSize : 0,
        state: !b.allocated ? 'free' : b.pendingFree ? 'pendingFree' : 'allocated',
        allocEvent: b.allocated ? b.allocEvent : BEFORE_TRACE,
        line,
      });
    }
    return {
      address: r.head.ptr,
      size,
      stream: r.stream,
      pool: r.small ? 'small' : 'large',
      expandable: r.expandable,
      createdAt: r.createdAt,
      blocks,
      blocksOmitted: omitted,
    };
  });
  return {
    device: replay.deviceIndex,
    event: replay.position - 1,
    reservedBytes: a.reserved,
    allocatedBytes: a.allocated,
    requestedBytes: a.requested,
    unallocatedBytes: a.reserved - a.allocated,
    largestFreeBytes: largestCached(a),
    roundingWasteBytes: roundingWaste,
    segments,
    lineIds: [...lineIds].sort((x, y) => x - y),
  };
}
