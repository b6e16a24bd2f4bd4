/**
 * The allocator's state when recording began, worked out backwards from the state at the end
 * (`segments`) through the trace, as PyTorch's memory_viz does for its "Allocator State History":
 * segments the trace cudaMalloc'd did not exist yet, segments it freed did; pages it mapped were
 * unmapped, pages it unmapped were mapped. Blocks live at the start are those live at the end that
 * the trace never allocated (their size is in `segments`) and those the trace frees without having
 * allocated them (their size is worked out from the layout: see `blockSizeOf`).
 */
import type { DeviceTrace, Segment } from '../snapshot/model';
import { Action, NO_STACK, isLiveState } from '../snapshot/model';
import { AddressMap } from './addressMap';
import type { AllocatorSettings } from './settings';
import { MIN_BLOCK_SIZE, SMALL_BUFFER, SMALL_SIZE, roundSize } from './sizes';
import { formatHex } from '../text/format';

export interface InitialSegment {
  readonly address: number;
  readonly size: number;
  readonly stream: number;
  readonly small: boolean;
}

/** One expandable segment (one reservation of address space) seen at the end or in the trace. */
export interface ExpandableCluster {
  readonly base: number;
  readonly stream: number;
  readonly small: boolean;
  readonly pageSize: number;
  /** Highest address seen mapped in it, exclusive (its address space reaches at least this far). */
  readonly seenEnd: number;
  /** Mapped page ranges when recording began, [first page, end page). */
  readonly mappedAtStart: readonly (readonly [number, number])[];
}

export interface InitialBlock {
  readonly address: number;
  /** Block size (the rounded size the allocator holds). */
  readonly size: number;
  readonly requestedSize: number;
  readonly stream: number;
  /** Stack of the block in `segments` (live all along), or of the trace event that frees it. */
  readonly stack: number;
  /** True when the size was worked out from the layout rather than read from `segments`. */
  readonly inferred: boolean;
}

export interface InitialLayout {
  readonly segments: readonly InitialSegment[];
  readonly expandable: readonly ExpandableCluster[];
  readonly blocks: readonly InitialBlock[];
  /** Why the end state and the trace disagree, when they do (at most a few messages). */
  readonly problems: readonly string[];
  /** How many segment events (segment_alloc, segment_free, segment_map, segment_unmap) the trace holds. */
  readonly segmentEvents: number;
}

const MAX_PROBLEMS = 5;

interface PreBlock {
  address: number;
  requested: number;
  stream: number;
  stack: number;
  /** Known block size (live all along), else undefined until inferred. */
  size: number | undefined;
  /** The event that frees it (n when it lives to the end). */
  freedAt: number;
}

/** Expandable ranges grouped into reservations: by stream and pool, then by address (one reservation spans at most `span`). */
class ClusterBuilder {
  readonly clusters: { base: number; end: number; stream: number; small: boolean; pageSize: number }[] = [];
  constructor(
    private readonly span: number,
    private readonly largePage: number,
  ) {}

  /** The reservation holding `address`: the nearest base at or below it (within `span`), of the pool when known. */
  find(address: number, stream: number, small?: boolean): number {
    let best = -1;
    this.clusters.forEach((c, k) => {
      if (c.stream !== stream || (small !== undefined && c.small !== small)) return;
      const below = address >= c.base && address - c.base < this.span;
      const above = address < c.base && c.end - address < this.span;
      if (!below && !above) return;
      if (best < 0) {
        best = k;
        return;
      }
      const b = this.clusters[best];
      const bBelow = address >= b.base;
      if ((below && !bBelow) || (below && bBelow && c.base > b.base) || (!below && !bBelow && c.base < b.base)) best = k;
    });
    return best;
  }

  add(address: number, size: number, stream: number, small: boolean | undefined): void {
    const k = this.find(address, stream, small);
    if (k >= 0) {
      const c = this.clusters[k];
      c.base = Math.min(c.base, address);
      c.end = Math.max(c.end, address + size);
      return;
    }
    // Small pools map one 2 MiB page at a time; large pools map multiples of their (20 MiB) page.
    const isSmall = small ?? size === SMALL_BUFFER;
    this.clusters.push({ base: address, end: address + size, stream, small: isSmall, pageSize: isSmall ? SMALL_BUFFER : this.largePage });
  }
}

/**
 * The layout when recording began. `addressSpan` bounds one expandable segment's address space
 * (1.125 times the GPU's memory), to tell reservations apart.
 */
export function initialLayout(segmentsAtEnd: readonly Segment[], trace: DeviceTrace, settings: AllocatorSettings, addressSpan: number): InitialLayout {
  const problems: string[] = [];
  const problem = (text: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(text);
  };
  const n = trace.length;
  const { action, addr, size, stream, stack } = trace;

  // Blocks the trace frees without allocating them first were live before recording began.
  const liveInTrace = new AddressMap<true>();
  const pre = new Map<number, PreBlock>();
  // The segment events, in trace order (the passes below read only them).
  const segmentEvents: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = action[i];
    if (a === Action.Alloc) liveInTrace.set(addr[i], true);
    else if (a === Action.FreeCompleted) {
      if (!liveInTrace.delete(addr[i]) && !pre.has(addr[i])) pre.set(addr[i], { address: addr[i], requested: size[i], stream: stream[i], stack: stack[i], size: undefined, freedAt: i });
    } else if (a >= Action.SegmentAlloc && a <= Action.SegmentUnmap) segmentEvents.push(i);
  }
  // Blocks live at the end that the trace did not leave live were live all along.
  for (const seg of segmentsAtEnd) {
    for (const b of seg.blocks) {
      if (!isLiveState(b.state) || liveInTrace.has(b.address) || pre.has(b.address)) continue;
      pre.set(b.address, { address: b.address, requested: b.requestedSize, stream: seg.stream, stack: b.stack, size: b.size, freedAt: n });
    }
  }

  // Segments: undo the trace's segment_alloc / segment_free, last first.
  const ordinary = new Map<number, InitialSegment>();
  for (const seg of segmentsAtEnd) {
    if (!seg.isExpandable) ordinary.set(seg.address, { address: seg.address, size: seg.totalSize, stream: seg.stream, small: seg.segmentType === 'small' });
  }
  // Expandable segments: group the mapped ranges into reservations, then undo map / unmap.
  const builder = new ClusterBuilder(addressSpan, settings.largeSegmentSize);
  for (const seg of [...segmentsAtEnd].sort((a, b) => a.address - b.address)) {
    if (seg.isExpandable) builder.add(seg.address, seg.totalSize, seg.stream, seg.segmentType === 'small');
  }
  for (const i of segmentEvents) {
    if (action[i] === Action.SegmentMap || action[i] === Action.SegmentUnmap) builder.add(addr[i], size[i], stream[i], undefined);
  }
  const mapped = builder.clusters.map(() => new Set<number>());
  const pagesOf = (k: number, address: number, bytes: number): [number, number] => {
    const c = builder.clusters[k];
    return [Math.floor((address - c.base) / c.pageSize), Math.ceil((address + bytes - c.base) / c.pageSize)];
  };
  for (const seg of segmentsAtEnd) {
    if (!seg.isExpandable) continue;
    const k = builder.find(seg.address, seg.stream, seg.segmentType === 'small');
    const [p0, p1] = pagesOf(k, seg.address, seg.totalSize);
    for (let p = p0; p < p1; p++) mapped[k].add(p);
  }
  for (let k = segmentEvents.length - 1; k >= 0; k--) {
    const i = segmentEvents[k];
    const a = action[i];
    if (a === Action.SegmentAlloc) {
      if (!ordinary.delete(addr[i])) problem(`event ${i}: segment_alloc of a segment not in the final state`);
    } else if (a === Action.SegmentFree) {
      ordinary.set(addr[i], { address: addr[i], size: size[i], stream: stream[i], small: size[i] === SMALL_BUFFER });
    } else {
      const k = builder.find(addr[i], stream[i]);
      const [p0, p1] = pagesOf(k, addr[i], size[i]);
      for (let p = p0; p < p1; p++) {
        if (a === Action.SegmentMap) mapped[k].delete(p);
        else mapped[k].add(p);
      }
    }
  }

  const expandable: ExpandableCluster[] = builder.clusters.map((c, k) => ({
    base: c.base,
    stream: c.stream,
    small: c.small,
    pageSize: c.pageSize,
    seenEnd: c.end,
    mappedAtStart: pageRuns(mapped[k]),
  }));

  // Where each live-at-start block lies: the containing segment or mapped run, to size inferred blocks.
  const spaces: { start: number; end: number; small: boolean; expandable: boolean }[] = [];
  for (const s of ordinary.values()) spaces.push({ start: s.address, end: s.address + s.size, small: s.small, expandable: false });
  for (const c of expandable) {
    for (const [p0, p1] of c.mappedAtStart) spaces.push({ start: c.base + p0 * c.pageSize, end: c.base + p1 * c.pageSize, small: c.small, expandable: true });
  }
  spaces.sort((a, b) => a.start - b.start);
  const blocksSorted = [...pre.values()].sort((a, b) => a.address - b.address);
  const nextStarts = allocationStartsAfter(
    trace,
    blocksSorted.filter((b) => b.size === undefined).map((b) => ({ from: b.address + roundSize(b.requested, settings), before: b.freedAt })),
  );
  let inferredIndex = 0;
  const blocks: InitialBlock[] = [];
  let s = 0;
  for (let j = 0; j < blocksSorted.length; j++) {
    const b = blocksSorted[j];
    while (s < spaces.length && spaces[s].end <= b.address) s++;
    const space = s < spaces.length && spaces[s].start <= b.address ? spaces[s] : undefined;
    if (space === undefined) {
      if (b.size === undefined) inferredIndex++;
      problem(`a block at ${formatHex(b.address)} live when recording began lies in no segment`);
      continue;
    }
    const nextStart = j + 1 < blocksSorted.length ? Math.min(blocksSorted[j + 1].address, space.end) : space.end;
    const room = nextStart - b.address;
    let blockSize = b.size ?? blockSizeOf(b.requested, Math.min(room, nextStarts[inferredIndex++] - b.address), space, settings);
    if (blockSize > room) {
      problem(`a block at ${formatHex(b.address)} live when recording began overlaps the next one`);
      blockSize = room;
    }
    if (blockSize <= 0) continue;
    blocks.push({ address: b.address, size: blockSize, requestedSize: b.requested, stream: b.stream, stack: b.stack ?? NO_STACK, inferred: b.size === undefined });
  }
  return { segments: [...ordinary.values()].sort((a, b) => a.address - b.address), expandable, blocks, problems, segmentEvents: segmentEvents.length };
}

/**
 * The block size of a block allocated before recording and freed in the trace, from its request
 * and the room up to the next block: the rounded size, plus what follows it when that could not be
 * a free block of its own. In a large pool of cudaMalloc'd segments every block is over 1 MiB
 * (segments are 20 MiB or larger, a split leaves over 1 MiB, a request there rounds to over 1 MiB),
 * so a gap of at most 1 MiB after the block is the part of it that was not split off. Small pools
 * and expandable segments split any remainder of 512 bytes or more.
 */
export function blockSizeOf(
  requested: number,
  room: number,
  space: { readonly small: boolean; readonly expandable: boolean },
  settings: AllocatorSettings,
): number {
  const rounded = roundSize(requested, settings);
  const gap = room - rounded;
  if (gap <= 0) return rounded;
  if (space.small || space.expandable || settings.expandableSegments) return gap < MIN_BLOCK_SIZE ? room : rounded;
  if (gap <= SMALL_SIZE) return room;
  if (rounded >= settings.maxSplitSize && gap < settings.maxNonSplitRoundingSize) return room;
  return rounded;
}

/**
 * For each window (ascending `from`), the lowest address in (`from`, `from` + 1 MiB] where the trace
 * allocates a block before event `before` (Infinity when none): a block starting there while a block
 * allocated before recording is still live ends that block's room (the allocation shows where the
 * free block after it began). One pass over the trace; memory grows with the windows only.
 */
function allocationStartsAfter(trace: DeviceTrace, windows: readonly { from: number; before: number }[]): number[] {
  const found = windows.map(() => Infinity);
  if (windows.length === 0) return found;
  const froms = windows.map((w) => w.from);
  for (let i = 0; i < trace.length; i++) {
    if (trace.action[i] !== Action.Alloc) continue;
    const a = trace.addr[i];
    // Windows with from <= a <= from + 1 MiB: from in [a - 1 MiB, a].
    let lo = 0;
    let hi = froms.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (froms[mid] < a - SMALL_SIZE) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < froms.length && froms[k] <= a; k++) {
      if (i < windows[k].before && a < found[k]) found[k] = a;
    }
  }
  return found;
}

function pageRuns(pages: ReadonlySet<number>): [number, number][] {
  const sorted = [...pages].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const p of sorted) {
    const last = runs[runs.length - 1];
    if (last && last[1] === p) last[1] = p + 1;
    else runs.push([p, p + 1]);
  }
  return runs;
}
