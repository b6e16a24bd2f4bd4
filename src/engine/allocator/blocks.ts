/**
 * The allocator's bookkeeping objects, as in CUDACachingAllocator.cpp: a block is a piece of a
 * segment (allocated, cached free, or for expandable segments unmapped address space), linked to
 * its neighbours; a pool holds the cached free blocks of one kind (small or large) ordered by
 * (stream, size, address), and the unmapped ranges of its expandable segments by (stream, address).
 */
import { SortedList } from './sortedList';

/** No trace event: a block or segment that existed before the recording began. */
export const BEFORE_TRACE = -1;

export class Block {
  prev: Block | undefined;
  next: Block | undefined;
  allocated = false;
  /** Freed by the program but not yet reusable (`free_requested` before its `free_completed`). */
  pendingFree = false;
  mapped = true;
  requestedSize = 0;
  /** `get_free_blocks_call_count` of the pool when the block was cached (garbage collection age). */
  gcCountBase = 0;
  /** The trace event that allocated it (BEFORE_TRACE for blocks live when recording began); -1 when free. */
  allocEvent = BEFORE_TRACE;
  constructor(
    public ptr: number,
    public size: number,
    readonly stream: number,
    readonly pool: BlockPool,
    readonly segment: SegmentOwner,
  ) {}

  isSplit(): boolean {
    return this.prev !== undefined || this.next !== undefined;
  }

  /** Links this block between `before` and `after` (which must be neighbours). */
  splice(before: Block | undefined, after: Block | undefined): void {
    if (before) before.next = this;
    this.prev = before;
    if (after) after.prev = this;
    this.next = after;
  }
}

/** What a block belongs to: a cudaMalloc'd segment or an expandable segment. */
export interface SegmentOwner {
  readonly expandable: boolean;
  readonly stream: number;
  readonly small: boolean;
  /** The trace event whose malloc created it (BEFORE_TRACE: existed before recording). */
  readonly createdAt: number;
  /** Its first block (updated as blocks split and merge). */
  head: Block;
}

export class BlockPool {
  /** Cached free blocks, as `BlockComparatorSize` orders them: stream, then size, then address. */
  readonly blocks = new SortedList<Block>(true);
  /** Unmapped ranges of expandable segments, as `BlockComparatorAddress`: stream, then address. */
  readonly unmapped = new SortedList<Block>(false);
  getFreeBlocksCallCount = 0;
  /** Every stream a block of this pool was ever cached for. */
  readonly streams = new Set<number>();
  /** The search key `searchKey` reuses. */
  key: Block | undefined;
  constructor(readonly small: boolean) {}

  /** `insert_into_blocks`: caches a free block, stamping its garbage-collection age. */
  cache(block: Block): void {
    block.gcCountBase = this.getFreeBlocksCallCount;
    this.streams.add(block.stream);
    this.blocks.insert(block);
  }

  gcCount(block: Block): number {
    return this.getFreeBlocksCallCount - block.gcCountBase;
  }
}

/** A search key for the pools: the smallest possible block of (stream, size). One per pool, reused: use it before asking for another. */
export function searchKey(stream: number, size: number, pool: BlockPool): Block {
  const key = (pool.key ??= new Block(0, 0, 0, pool, KEY_OWNER));
  (key as { stream: number }).stream = stream;
  key.size = size;
  return key;
}

const KEY_OWNER: SegmentOwner = { expandable: false, stream: 0, small: false, createdAt: BEFORE_TRACE, head: undefined as unknown as Block };
