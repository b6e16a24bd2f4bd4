/**
 * PyTorch's CUDA caching allocator (`DeviceCachingAllocator` in c10/cuda/CUDACachingAllocator.cpp),
 * one device, as a state machine over the same rules: round the request, best fit over the cached
 * blocks of its pool and stream, split or not, cudaMalloc a segment (or map pages of an expandable
 * segment) when nothing fits, and when that fails release cached memory and retry; frees merge with
 * free neighbours. The device memory beneath (what cudaMalloc returns, whether it fails) is a
 * `DeviceMemory` the caller supplies: the recorded trace's answers, or a device of some capacity.
 *
 * One module because the functions below are the allocator's one algorithm and call each other
 * throughout (malloc -> get_free_block / alloc_block / release -> free_block -> merge); names
 * follow PyTorch's so the code can be read beside it.
 */
import { BEFORE_TRACE, Block, BlockPool, searchKey } from './blocks';
import type { SegmentOwner } from './blocks';
import { CudaSegment, ExpandableSegment } from './segments';
import type { Range } from './segments';
import type { AllocatorSettings } from './settings';
import { MIN_BLOCK_SIZE, SMALL_BUFFER, SMALL_SIZE, allocationSize, isSmallSize, roundSize } from './sizes';

/** What lies beneath the allocator: cudaMalloc / cudaFree and the virtual memory calls of expandable segments. */
export interface DeviceMemory {
  /** cudaMalloc of a new segment: its address, or undefined when the device has no room. */
  malloc(size: number, stream: number, small: boolean): number | undefined;
  /** cudaFree of a whole segment. */
  free(ptr: number, size: number, stream: number): void;
  /** cuMemAddressReserve of a new expandable segment's address space: its base address. */
  reserve(size: number, stream: number, small: boolean): number;
  /** cuMemCreate + cuMemMap of whole pages: false when the device has no room. */
  map(ptr: number, size: number, stream: number): boolean;
  /** cuMemUnmap + cuMemRelease of whole pages. */
  unmap(ptr: number, size: number, stream: number): void;
  /**
   * A recording's device: the trace event where PyTorch made the call the last one reproduced
   * (-1: it reproduced none). Undefined for a device that is not a recording.
   */
  readonly recordedEvent?: number;
}

export type SegmentEventKind = 'alloc' | 'free' | 'map' | 'unmap';

/**
 * Told of each segment event once the allocator's books show it: a segment cudaMalloc'd (still one
 * free block: the allocation that asked for it has not taken it yet), cudaFree'd, pages mapped (a
 * cached free block) or unmapped. `at` is the trace event it belongs to: where the recording shows
 * the call the device reproduced, else the event being replayed.
 */
export type SegmentListener = (at: number, kind: SegmentEventKind, ptr: number, size: number) => void;

export interface AllocatorOptions {
  readonly settings: AllocatorSettings;
  /** The GPU's total memory: sizes an expandable segment's address space (1.125 times it). */
  readonly totalMemory: number;
  /** `set_per_process_memory_fraction` as bytes (`allowed_memory_maximum`); undefined when not set. */
  readonly allowedMaximum?: number;
}

interface AllocParams {
  size: number;
  stream: number;
  pool: BlockPool;
  allocSize: number;
  block: Block | undefined;
}

export class CachingAllocator {
  readonly small = new BlockPool(true);
  readonly large = new BlockPool(false);
  /** Every segment and expandable segment that exists. */
  readonly segments = new Set<SegmentOwner>();
  /** `total_allocated_memory`: bytes of cudaMalloc'd segments and mapped pages. */
  reserved = 0;
  /** Bytes of allocated blocks (block sizes, as `allocated_bytes`). */
  allocated = 0;
  /** Bytes the program asked for, of allocated blocks (as `requested_bytes`). */
  requested = 0;
  /** The event being replayed: stamped on segments this allocator creates. */
  event = BEFORE_TRACE;
  /** Told of every segment event (see `SegmentListener`). */
  onSegment: SegmentListener | undefined;
  private readonly settings: AllocatorSettings;
  private readonly esActive: boolean;
  /** The parameters of the malloc under way (one object, reused: a malloc never nests). */
  private readonly params: AllocParams = { size: 0, stream: 0, pool: this.large, allocSize: 0, block: undefined };
  private readonly gcActive: boolean;
  /** No roundup_power2_divisions: sizes round to 512 bytes (the common case, without the interval lookup). */
  private readonly plainRounding: boolean;

  constructor(
    readonly device: DeviceMemory,
    readonly options: AllocatorOptions,
  ) {
    this.settings = options.settings;
    this.esActive = options.settings.expandableSegments;
    this.gcActive = options.allowedMaximum !== undefined && options.settings.garbageCollectionThreshold > 0;
    this.plainRounding = options.settings.roundupPower2Divisions.every((d) => d <= 1);
  }

  /**
   * Takes the state of `source` (an allocator with the same device calls and options, as a fresh one
   * built for a fork of its replay): its segments, blocks and pools copied. Returns each block's copy.
   */
  copyStateOf(source: CachingAllocator): Map<Block, Block> {
    const copies = new Map<Block, Block>();
    const poolOf = (pool: BlockPool) => (pool === source.small ? this.small : this.large);
    for (const segment of source.segments) {
      const owner: SegmentOwner =
        segment instanceof ExpandableSegment ? segment.copy() : new CudaSegment((segment as CudaSegment).base, (segment as CudaSegment).size, segment.stream, segment.small, segment.createdAt);
      let prev: Block | undefined;
      for (let b: Block | undefined = segment.head; b; b = b.next) {
        const c = new Block(b.ptr, b.size, b.stream, poolOf(b.pool), owner);
        c.allocated = b.allocated;
        c.pendingFree = b.pendingFree;
        c.mapped = b.mapped;
        c.requestedSize = b.requestedSize;
        c.gcCountBase = b.gcCountBase;
        c.allocEvent = b.allocEvent;
        c.splice(prev, undefined);
        if (!prev) owner.head = c;
        prev = c;
        copies.set(b, c);
      }
      this.segments.add(owner);
    }
    for (const [from, to] of [
      [source.small, this.small],
      [source.large, this.large],
    ] as const) {
      to.getFreeBlocksCallCount = from.getFreeBlocksCallCount;
      for (const s of from.streams) to.streams.add(s);
      for (const b of from.blocks.toArray()) to.blocks.insert(copies.get(b)!);
      for (const b of from.unmapped.toArray()) to.unmapped.insert(copies.get(b)!);
    }
    this.reserved = source.reserved;
    this.allocated = source.allocated;
    this.requested = source.requested;
    this.event = source.event;
    return copies;
  }

  poolFor(roundedSize: number): BlockPool {
    return isSmallSize(roundedSize) ? this.small : this.large;
  }

  /** `malloc`: the block for a request of `origSize` bytes on `stream`, or undefined when PyTorch would raise OutOfMemoryError. */
  malloc(origSize: number, stream: number): Block | undefined {
    const size = this.plainRounding ? (origSize < MIN_BLOCK_SIZE ? MIN_BLOCK_SIZE : MIN_BLOCK_SIZE * Math.ceil(origSize / MIN_BLOCK_SIZE)) : roundSize(origSize, this.settings);
    const p = this.params;
    p.size = size;
    p.stream = stream;
    p.pool = this.poolFor(size);
    p.allocSize = allocationSize(size, this.settings);
    p.block = undefined;
    let found = this.getFreeBlock(p);
    if (!found) {
      if (this.gcActive) this.garbageCollectCachedBlocks();
      found =
        this.allocBlock(p) ||
        (this.releaseAvailableCachedBlocks(p) && this.allocBlock(p)) ||
        (this.releaseCachedBlocks() && this.allocBlock(p));
    }
    if (!found || p.block === undefined) return undefined;
    return this.allocFoundBlock(p, origSize, this.shouldSplit(p.block, size));
  }

  /** Whether a cached block would serve the request (without taking it). */
  wouldReuse(origSize: number, stream: number): boolean {
    const size = roundSize(origSize, this.settings);
    const pool = this.poolFor(size);
    const count = pool.getFreeBlocksCallCount;
    const p: AllocParams = { size, stream, pool, allocSize: 0, block: undefined };
    const found = this.getFreeBlock(p);
    if (found && p.block) pool.blocks.insert(p.block);
    pool.getFreeBlocksCallCount = count;
    return found;
  }

  /** `free_block`: an allocated block returns to its pool, merged with free neighbours. */
  free(block: Block): void {
    if (!block.allocated) return;
    block.allocated = false;
    block.pendingFree = false;
    this.allocated -= block.size;
    this.requested -= block.requestedSize;
    block.requestedSize = 0;
    block.allocEvent = BEFORE_TRACE;
    const pool = block.pool;
    const { prev, next } = block;
    this.tryMergeBlocks(block, prev);
    this.tryMergeBlocks(block, next);
    pool.cache(block);
  }

  /** `emptyCache` (`release_cached_blocks`): every cached segment goes back to the device. */
  emptyCache(): void {
    this.releaseCachedBlocks();
  }

  private getFreeBlock(p: AllocParams): boolean {
    const { pool, stream, size } = p;
    const s = this.settings;
    if (this.gcActive) pool.getFreeBlocksCallCount++;
    const list = pool.blocks;
    const key = searchKey(stream, size, pool);
    const first = list.first(key);
    if (first === undefined || first.stream !== stream) return false;
    let block = first;
    let found = true;
    if (first.segment.expandable) {
      found = false;
      let it = list.lowerBound(key);
      if (this.esActive) {
        // Best fit counts an expandable block's unmapped neighbour as room it can grow into.
        const expandableSize = (b: Block) => b.size + (b.next && !b.next.mapped ? b.next.size : 0);
        let next = list.next(it);
        while (
          list.at(it).segment.expandable &&
          !list.isEnd(next) &&
          list.at(next).stream === stream &&
          expandableSize(list.at(next)) < expandableSize(list.at(it))
        ) {
          it = next;
          next = list.next(next);
        }
      } else {
        // Expandable segments turned off after some were made: only ordinary blocks may serve.
        do {
          it = list.next(it);
        } while (!list.isEnd(it) && list.at(it).segment.expandable && list.at(it).stream === stream);
        if (list.isEnd(it) || list.at(it).stream !== stream) return false;
      }
      block = list.at(it);
    }
    // An oversize block never serves a request below max_split_size ...
    if (size < s.maxSplitSize && block.size >= s.maxSplitSize) return false;
    // ... and serves an oversize request only when less than max_non_split_rounding_size larger.
    if (size >= s.maxSplitSize && block.size >= size + s.maxNonSplitRoundingSize) return false;
    p.block = block;
    if (found) list.deleteFound();
    else list.delete(block);
    return true;
  }

  private shouldSplit(block: Block, size: number): boolean {
    const remaining = block.size - size;
    if (block.pool.small || this.esActive) return remaining >= MIN_BLOCK_SIZE;
    return size < this.settings.maxSplitSize && remaining > SMALL_SIZE;
  }

  private allocFoundBlock(p: AllocParams, origSize: number, split: boolean): Block {
    let block = p.block!;
    if (split) {
      const remaining = block;
      block = new Block(remaining.ptr, p.size, p.stream, p.pool, remaining.segment);
      block.prev = remaining.prev;
      if (block.prev) block.prev.next = block;
      else remaining.segment.head = block;
      block.next = remaining;
      remaining.prev = block;
      remaining.ptr += p.size;
      remaining.size -= p.size;
      p.pool.cache(remaining);
    }
    block.allocated = true;
    block.requestedSize = origSize;
    block.allocEvent = this.event;
    this.allocated += block.size;
    this.requested += origSize;
    return block;
  }

  /** `try_merge_blocks`: `src` joins `dst` when free, settled and equally mapped; its size, or 0. */
  private tryMergeBlocks(dst: Block, src: Block | undefined): number {
    if (!src || src.allocated || src.pendingFree || dst.mapped !== src.mapped) return 0;
    if (src.mapped) src.pool.blocks.delete(src);
    else src.pool.unmapped.delete(src);
    if (dst.prev === src) {
      dst.ptr = src.ptr;
      dst.prev = src.prev;
      if (dst.prev) dst.prev.next = dst;
      else dst.segment.head = dst;
    } else {
      dst.next = src.next;
      if (dst.next) dst.next.prev = dst;
    }
    dst.size += src.size;
    return src.size;
  }

  private allocBlock(p: AllocParams): boolean {
    const allowed = this.options.allowedMaximum;
    if (allowed !== undefined && this.reserved + p.allocSize > allowed) return false;
    if (this.esActive) {
      p.block = this.tryAllocateExpandableBlock(p.stream, p.pool, p.size);
      return p.block !== undefined;
    }
    const ptr = this.device.malloc(p.allocSize, p.stream, p.pool.small);
    if (ptr === undefined) return false;
    this.reserved += p.allocSize;
    const at = this.callEvent();
    p.block = this.newSegment(ptr, p.allocSize, p.stream, p.pool, at);
    this.onSegment?.(at, 'alloc', ptr, p.allocSize);
    return true;
  }

  /** The trace event the device call just made belongs to: the recorded one it reproduced, else the event replayed. */
  private callEvent(): number {
    const at = this.device.recordedEvent;
    return at !== undefined && at >= 0 ? at : this.event;
  }

  /** A new cudaMalloc'd segment of one free block (not cached: the caller takes it or caches it). */
  newSegment(ptr: number, size: number, stream: number, pool: BlockPool, createdAt: number): Block {
    const segment = new CudaSegment(ptr, size, stream, pool.small, createdAt);
    const block = new Block(ptr, size, stream, pool, segment);
    segment.head = block;
    this.segments.add(segment);
    return block;
  }

  /** `release_available_cached_blocks`: with max_split_size set, free just enough oversize cached segments. */
  private releaseAvailableCachedBlocks(p: AllocParams): boolean {
    const maxSplit = this.settings.maxSplitSize;
    if (!Number.isFinite(maxSplit)) return false;
    const list = p.pool.blocks;
    const keySize = p.size < maxSplit ? maxSplit : p.size;
    let it = list.lowerBound(searchKey(p.stream, keySize, p.pool));
    if (list.isEnd(it) || list.at(it).stream !== p.stream || list.at(it).segment.expandable) {
      // No single block is large enough: free oversize blocks of this stream, largest first.
      if (list.isBegin(it)) return false;
      const candidates: Block[] = [];
      it = list.prev(it);
      for (;;) {
        const b = list.at(it);
        if (!(b.size >= maxSplit && b.stream === p.stream)) break;
        candidates.push(b);
        if (list.isBegin(it)) break;
        it = list.prev(it);
      }
      let released = 0;
      for (const b of candidates) {
        if (released >= keySize) break;
        if (b.segment.expandable) continue;
        released += b.size;
        this.releaseBlock(b);
      }
      return released >= keySize;
    }
    this.releaseBlock(list.at(it));
    return true;
  }

  /** `release_cached_blocks`: every whole cached segment is freed, every empty page unmapped. */
  private releaseCachedBlocks(): boolean {
    this.releaseBlocks(this.large);
    this.releaseBlocks(this.small);
    return true;
  }

  private releaseBlocks(pool: BlockPool): void {
    const toUnmap: Block[] = [];
    for (const block of pool.blocks.toArray()) {
      if (block.segment.expandable) toUnmap.push(block);
      else if (!block.prev && !block.next) this.releaseBlock(block);
    }
    for (const block of toUnmap) {
      this.unmapBlock(block);
      if (!block.prev && !block.next) this.releaseExpandableSegment(block);
    }
  }

  /** `release_block`: cudaFree of a whole cached segment. */
  private releaseBlock(block: Block): void {
    if (block.prev || block.next || block.segment.expandable) return; // never happens in PyTorch's own use
    this.reserved -= block.size;
    block.pool.blocks.delete(block);
    this.segments.delete(block.segment);
    this.device.free(block.ptr, block.size, block.stream);
    this.onSegment?.(this.callEvent(), 'free', block.ptr, block.size);
  }

  /** `garbage_collect_cached_blocks`: free the oldest unsplit cached segments until under the threshold. */
  private garbageCollectCachedBlocks(): void {
    const allowed = this.options.allowedMaximum ?? Infinity;
    const threshold = Math.floor(this.settings.garbageCollectionThreshold * allowed);
    if (this.reserved <= threshold) return;
    const target = this.reserved - threshold;
    const pool = this.large;
    let reclaimed = 0;
    let totalAge = 0;
    let freeable = 0;
    for (const b of pool.blocks) {
      if (!b.isSplit()) {
        totalAge += pool.gcCount(b);
        freeable++;
      }
    }
    if (freeable === 0) return;
    let freed = true;
    while (reclaimed < target && freed && freeable > 0) {
      const ageThreshold = totalAge / freeable;
      freed = false;
      for (const b of pool.blocks.toArray()) {
        if (!b.isSplit() && !b.segment.expandable && pool.gcCount(b) >= ageThreshold) {
          freed = true;
          reclaimed += b.size;
          totalAge -= pool.gcCount(b);
          freeable--;
          this.releaseBlock(b);
        }
      }
    }
  }

  // --- expandable segments ---

  private allocatable(b: Block | undefined): b is Block {
    return b !== undefined && !b.allocated && !b.pendingFree;
  }

  /** `find_expandable_block`: the lowest address where free and unmapped space of this stream fits `size`. */
  private findExpandableBlock(stream: number, pool: BlockPool, size: number): Block {
    const hasRoom = (start: Block) => {
      let bytes = 0;
      let b: Block | undefined = start;
      while (bytes < size && this.allocatable(b)) {
        bytes += b.size;
        b = b.next;
      }
      return bytes >= size;
    };
    const list = pool.unmapped;
    for (let it = list.lowerBound(searchKey(stream, 0, pool)); !list.isEnd(it) && list.at(it).stream === stream; it = list.next(it)) {
      let c = list.at(it);
      if (this.allocatable(c.prev)) c = c.prev;
      if (hasRoom(c)) return c;
    }
    const pageSize = pool.small ? SMALL_BUFFER : this.settings.largeSegmentSize;
    const total = this.options.totalMemory;
    const pageCount = Math.ceil((total + Math.floor(total / 8)) / pageSize);
    const base = this.device.reserve(pageCount * pageSize, stream, pool.small);
    return this.addExpandableSegment(base, pageSize, pageCount, stream, pool, this.event);
  }

  /** A new expandable segment: one unmapped block over all its address space. */
  addExpandableSegment(base: number, pageSize: number, pageCount: number, stream: number, pool: BlockPool, createdAt: number): Block {
    const es = new ExpandableSegment(base, pageSize, pageCount, stream, pool.small, createdAt);
    const block = new Block(base, es.size, stream, pool, es);
    block.mapped = false;
    es.head = block;
    this.segments.add(es);
    pool.unmapped.insert(block);
    return block;
  }

  /** `map_block`: back the start of an unmapped block with pages; false when the device has no room. */
  mapBlock(toMap: Block, size: number): boolean {
    const es = toMap.segment as ExpandableSegment;
    const [begin, end] = es.covering({ ptr: toMap.ptr, size });
    const range = es.rangeOf(begin, end);
    if (range.size === 0 || !this.device.map(range.ptr, range.size, toMap.stream)) return false;
    es.setMapped(begin, end, true);
    const pool = toMap.pool;
    pool.unmapped.delete(toMap);
    toMap.mapped = true;
    if (range.size < toMap.size) {
      const remaining = new Block(toMap.ptr + range.size, toMap.size - range.size, toMap.stream, pool, es);
      remaining.mapped = false;
      remaining.splice(toMap, toMap.next);
      pool.unmapped.insert(remaining);
      toMap.size = range.size;
    }
    this.tryMergeBlocks(toMap, toMap.prev);
    this.tryMergeBlocks(toMap, toMap.next);
    pool.cache(toMap);
    this.reserved += range.size;
    this.onSegment?.(this.callEvent(), 'map', range.ptr, range.size);
    return true;
  }

  private tryAllocateExpandableBlock(stream: number, pool: BlockPool, size: number): Block | undefined {
    let candidate = this.findExpandableBlock(stream, pool, size);
    if (!candidate.mapped && !this.mapBlock(candidate, Math.min(candidate.size, size))) return undefined;
    while (candidate.size < size) {
      const next = candidate.next!;
      if (!this.mapBlock(next, Math.min(size - candidate.size, next.size))) return undefined;
      candidate = next;
    }
    pool.blocks.delete(candidate);
    return candidate;
  }

  /** `unmap_block`: unmap the whole pages inside a cached block of an expandable segment. */
  private unmapBlock(block: Block): void {
    const es = block.segment as ExpandableSegment;
    const [begin, end] = es.inside({ ptr: block.ptr, size: block.size });
    if (begin >= end) return;
    const unmapped: Range = es.rangeOf(begin, end);
    this.device.unmap(unmapped.ptr, unmapped.size, block.stream);
    es.setMapped(begin, end, false);
    const pool = block.pool;
    pool.blocks.delete(block);
    const before = unmapped.ptr - block.ptr;
    if (before > 0) {
      const beforeFree = new Block(block.ptr, before, block.stream, pool, es);
      beforeFree.splice(block.prev, block);
      if (!beforeFree.prev) es.head = beforeFree;
      pool.cache(beforeFree);
    }
    const after = block.size - before - unmapped.size;
    if (after > 0) {
      const afterFree = new Block(unmapped.ptr + unmapped.size, after, block.stream, pool, es);
      afterFree.splice(block, block.next);
      pool.cache(afterFree);
    }
    block.ptr = unmapped.ptr;
    block.size = unmapped.size;
    block.mapped = false;
    this.tryMergeBlocks(block, block.prev);
    this.tryMergeBlocks(block, block.next);
    pool.unmapped.insert(block);
    this.reserved -= unmapped.size;
    this.onSegment?.(this.callEvent(), 'unmap', unmapped.ptr, unmapped.size);
  }

  /** `release_expandable_segment`: a wholly unmapped expandable segment gives back its address space. */
  private releaseExpandableSegment(block: Block): void {
    block.pool.unmapped.delete(block);
    this.segments.delete(block.segment);
  }
}
