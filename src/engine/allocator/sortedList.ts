/**
 * An ordered set of blocks (the allocator's `std::set<Block*, Comparison>`), kept as a list of
 * sorted chunks so that insertion, removal and lower_bound cost O(log n + chunk) even with many
 * thousands of cached blocks. Two orders: by (stream, size, address) (`BlockComparatorSize`) or by
 * (stream, address) (`BlockComparatorAddress`); the comparison is written into the searches rather
 * than called, which is what most of a replay's time goes to. A position is a (chunk, index) pair;
 * any insertion or removal invalidates positions taken before it.
 */

/** What the list orders: a block's stream, size and address. */
export interface Keyed {
  readonly stream: number;
  readonly size: number;
  readonly ptr: number;
}

const MAX_CHUNK = 32;

export interface Position {
  readonly chunk: number;
  readonly index: number;
}

export class SortedList<T extends Keyed> {
  private chunks: T[][] = [];
  private count = 0;
  /** Where `first` found its item (for `deleteFound`), or -1. */
  private foundChunk = -1;
  private foundIndex = 0;

  /** `bySize`: (stream, size, address); else (stream, address). */
  constructor(private readonly bySize: boolean) {}

  private same(a: T, b: T): boolean {
    return a.stream === b.stream && a.ptr === b.ptr && (!this.bySize || a.size === b.size);
  }

  get size(): number {
    return this.count;
  }

  /** The first chunk whose last item is >= key (chunks.length when none). */
  private chunkFor(key: T): number {
    const chunks = this.chunks;
    const bySize = this.bySize;
    const ks = key.stream;
    const kz = key.size;
    const kp = key.ptr;
    let lo = 0;
    let hi = chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = chunks[mid];
      const a = c[c.length - 1];
      const below = a.stream !== ks ? a.stream < ks : bySize && a.size !== kz ? a.size < kz : a.ptr < kp;
      if (below) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private indexIn(chunk: readonly T[], key: T): number {
    const bySize = this.bySize;
    const ks = key.stream;
    const kz = key.size;
    const kp = key.ptr;
    let lo = 0;
    let hi = chunk.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const a = chunk[mid];
      const below = a.stream !== ks ? a.stream < ks : bySize && a.size !== kz ? a.size < kz : a.ptr < kp;
      if (below) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Position of the first item >= key; `end` when none. */
  lowerBound(key: T): Position {
    const chunk = this.chunkFor(key);
    if (chunk === this.chunks.length) return this.end();
    return { chunk, index: this.indexIn(this.chunks[chunk], key) };
  }

  /** The first item >= key (the item at `lowerBound`), without making a position; `deleteFound` removes it. */
  first(key: T): T | undefined {
    const chunk = this.chunkFor(key);
    if (chunk === this.chunks.length) {
      this.foundChunk = -1;
      return undefined;
    }
    const c = this.chunks[chunk];
    const index = this.indexIn(c, key);
    this.foundChunk = chunk;
    this.foundIndex = index;
    return c[index];
  }

  /** Removes the item the last `first` returned, without searching again (nothing may change the list in between). */
  deleteFound(): void {
    const chunk = this.foundChunk;
    if (chunk < 0) return;
    this.foundChunk = -1;
    const c = this.chunks[chunk];
    for (let j = this.foundIndex; j < c.length - 1; j++) c[j] = c[j + 1];
    c.pop();
    this.count--;
    if (c.length === 0) this.chunks.splice(chunk, 1);
  }

  /** The last item < key (the item before `lowerBound`), without making a position. */
  lastBelow(key: T): T | undefined {
    const chunk = this.chunkFor(key);
    if (chunk < this.chunks.length) {
      const c = this.chunks[chunk];
      const i = this.indexIn(c, key);
      if (i > 0) return c[i - 1];
    }
    const before = this.chunks[chunk - 1];
    return before === undefined ? undefined : before[before.length - 1];
  }

  begin(): Position {
    return { chunk: 0, index: 0 };
  }

  end(): Position {
    return { chunk: this.chunks.length, index: 0 };
  }

  isEnd(p: Position): boolean {
    return p.chunk >= this.chunks.length;
  }

  isBegin(p: Position): boolean {
    return p.chunk === 0 && p.index === 0;
  }

  at(p: Position): T {
    return this.chunks[p.chunk][p.index];
  }

  next(p: Position): Position {
    const c = this.chunks[p.chunk];
    if (p.index + 1 < c.length) return { chunk: p.chunk, index: p.index + 1 };
    return { chunk: p.chunk + 1, index: 0 };
  }

  /** The position before p (p must not be `begin`). */
  prev(p: Position): Position {
    if (p.index > 0) return { chunk: p.chunk, index: p.index - 1 };
    const chunk = p.chunk - 1;
    return { chunk, index: this.chunks[chunk].length - 1 };
  }

  /** Adds an item; false when an equal one is already there. */
  insert(item: T): boolean {
    this.foundChunk = -1;
    if (this.chunks.length === 0) {
      this.chunks.push([item]);
      this.count = 1;
      return true;
    }
    let chunk = this.chunkFor(item);
    if (chunk === this.chunks.length) chunk--;
    const c = this.chunks[chunk];
    const index = this.indexIn(c, item);
    if (index < c.length && this.same(c[index], item)) return false;
    // Shift by hand: splice would allocate its result array on every call.
    c.push(item);
    for (let j = c.length - 1; j > index; j--) c[j] = c[j - 1];
    c[index] = item;
    this.count++;
    if (c.length > MAX_CHUNK) this.chunks.splice(chunk + 1, 0, c.splice(MAX_CHUNK >>> 1));
    return true;
  }

  /** Removes the item equal to `item`; false when there is none. */
  delete(item: T): boolean {
    this.foundChunk = -1;
    const chunk = this.chunkFor(item);
    if (chunk === this.chunks.length) return false;
    const c = this.chunks[chunk];
    const index = this.indexIn(c, item);
    if (index >= c.length || !this.same(c[index], item)) return false;
    for (let j = index; j < c.length - 1; j++) c[j] = c[j + 1];
    c.pop();
    this.count--;
    if (c.length === 0) this.chunks.splice(chunk, 1);
    return true;
  }

  has(item: T): boolean {
    const p = this.lowerBound(item);
    return !this.isEnd(p) && this.same(this.at(p), item);
  }

  /** Every item in order (a copy: safe to change the list while walking it). */
  toArray(): T[] {
    return this.chunks.flat();
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (const c of this.chunks) yield* c;
  }
}
