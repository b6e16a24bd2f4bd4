/**
 * Segments, as the allocator holds them: a cudaMalloc'd range that blocks split and merge within,
 * or an expandable segment (PyTorch's `ExpandableSegment`): a reserved range of address space of
 * about 1.125 times the GPU's memory whose pages (2 MiB for the small pool, 20 MiB for the large
 * one) are mapped as the program needs them and unmapped when released.
 */
import type { Block, SegmentOwner } from './blocks';

export class CudaSegment implements SegmentOwner {
  readonly expandable = false;
  head!: Block;
  constructor(
    readonly base: number,
    readonly size: number,
    readonly stream: number,
    readonly small: boolean,
    readonly createdAt: number,
  ) {}
}

/** A range of an expandable segment, in bytes. */
export interface Range {
  readonly ptr: number;
  readonly size: number;
}

export class ExpandableSegment implements SegmentOwner {
  readonly expandable = true;
  head!: Block;
  /** Which pages are mapped (backed by physical memory). */
  private readonly pages: Uint8Array;
  constructor(
    readonly base: number,
    readonly pageSize: number,
    readonly pageCount: number,
    readonly stream: number,
    readonly small: boolean,
    readonly createdAt: number,
  ) {
    this.pages = new Uint8Array(pageCount);
  }

  /** Bytes of address space (`ExpandableSegment::size`). */
  get size(): number {
    return this.pageSize * this.pageCount;
  }

  /** Pages [begin, end) that cover [ptr, ptr + size) (`map`: the range is widened to whole pages). */
  covering(range: Range): [number, number] {
    return [Math.floor((range.ptr - this.base) / this.pageSize), Math.ceil((range.ptr + range.size - this.base) / this.pageSize)];
  }

  /** Pages [begin, end) lying wholly inside [ptr, ptr + size) (`unmap`: only completely empty pages go). */
  inside(range: Range): [number, number] {
    return [Math.ceil((range.ptr - this.base) / this.pageSize), Math.floor((range.ptr + range.size - this.base) / this.pageSize)];
  }

  rangeOf(begin: number, end: number): Range {
    return { ptr: this.base + begin * this.pageSize, size: (end - begin) * this.pageSize };
  }

  /** The same segment (pages mapped alike), without blocks. */
  copy(): ExpandableSegment {
    const s = new ExpandableSegment(this.base, this.pageSize, this.pageCount, this.stream, this.small, this.createdAt);
    s.pages.set(this.pages);
    return s;
  }

  setMapped(begin: number, end: number, mapped: boolean): void {
    this.pages.fill(mapped ? 1 : 0, begin, end);
  }

  isMapped(page: number): boolean {
    return this.pages[page] === 1;
  }
}
