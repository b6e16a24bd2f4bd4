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
import { Action } from '../snapshot/model';
import type { AllocatorReplay } from './traceReplay';

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

/**
 * The segment map of a replay where it stands, shown as the state right after `event` (by default the
 * last event replayed; a map taken while the replay makes a recorded segment event names that event).
 */
export function segmentMapOf(replay: AllocatorReplay, lineIndex: LineIndex | undefined, maxBlocks: number, event = replay.position - 1): SegmentMap {
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
  // The largest free block, walked rather than looked up in the pools: a segment just made is free and
  // not cached yet while the allocation that asked for it is under way.
  let largestFree = 0;
  const segments = runs.map((r): SegmentMapSegment => {
    const blocks: SegmentMapBlock[] = [];
    let size = 0;
    let omitted = 0;
    for (let b: Block | undefined = r.head; b && b.mapped; b = b.next) {
      size += b.size;
      if (b.allocated) roundingWaste += b.size - b.requestedSize;
      else if (b.size > largestFree) largestFree = b.size;
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
    event,
    reservedBytes: a.reserved,
    allocatedBytes: a.allocated,
    requestedBytes: a.requested,
    unallocatedBytes: a.reserved - a.allocated,
    largestFreeBytes: largestFree,
    roundingWasteBytes: roundingWaste,
    segments,
    lineIds: [...lineIds].sort((x, y) => x - y),
  };
}

/**
 * The segment map right after `event`, from a replay that has replayed up to it (position `event` + 1).
 * Where events up to `event` are recorded segment events the replay makes only while replaying what
 * follows them (a `segment_alloc` before its `alloc`, an `empty_cache()`'s releases), the replay goes on
 * into that and the map is taken the moment the last of them is reproduced: the state PyTorch recorded
 * right after `event` (a new segment is one free block then). Where the replay does not reproduce them
 * (it departs from the recording), the map is the replay's own state right after `event`. The replay
 * is used up.
 */
export function segmentMapAfter(replay: AllocatorReplay, event: number, lineIndex: LineIndex | undefined, maxBlocks: number): SegmentMap {
  const own = segmentMapOf(replay, lineIndex, maxBlocks, event);
  const waiting = new Set(replay.pendingRecorded);
  if (waiting.size === 0) return own;
  let taken: SegmentMap | undefined;
  replay.allocator.onSegment = (at) => {
    if (!waiting.delete(at) || waiting.size > 0 || taken) return;
    taken = segmentMapOf(replay, lineIndex, maxBlocks, event);
  };
  // The recorded segment events are matched while replaying the first event after them that is not one.
  const t = replay.trace;
  let next = event + 1;
  while (next < t.length && isSegmentAction(t.action[next])) next++;
  replay.runTo(next + 1);
  replay.allocator.onSegment = undefined;
  return taken ?? own;
}

function isSegmentAction(a: number): boolean {
  return a === Action.SegmentAlloc || a === Action.SegmentFree || a === Action.SegmentMap || a === Action.SegmentUnmap;
}
