/**
 * The allocator's rules, one at a time, on a fake device whose answers the test controls: every
 * expected address and size below is worked out by hand from CUDACachingAllocator.cpp's rules.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Block } from '../../../../src/engine/allocator/blocks';
import type { DeviceMemory } from '../../../../src/engine/allocator/cachingAllocator';
import { CachingAllocator } from '../../../../src/engine/allocator/cachingAllocator';
import type { AllocatorSettings } from '../../../../src/engine/allocator/settings';
import { DEFAULT_SETTINGS, applyAllocConf } from '../../../../src/engine/allocator/settings';
import { GiB, MiB } from '../../../../src/engine/allocator/sizes';

/** cudaMalloc hands out addresses 1 GiB apart from 1 TiB up; fails past `capacity`; every call is logged. */
class FakeDevice implements DeviceMemory {
  readonly log: string[] = [];
  used = 0;
  private next = 2 ** 40;
  constructor(readonly capacity = Infinity) {}
  malloc(size: number): number | undefined {
    if (this.used + size > this.capacity) {
      this.log.push(`malloc ${size / MiB} MiB failed`);
      return undefined;
    }
    this.used += size;
    const ptr = this.next;
    this.next += GiB;
    this.log.push(`malloc ${size / MiB} MiB at ${at(ptr)}`);
    return ptr;
  }
  free(ptr: number, size: number): void {
    this.used -= size;
    this.log.push(`free ${size / MiB} MiB at ${at(ptr)}`);
  }
  reserve(): number {
    const ptr = this.next;
    this.next += 256 * GiB;
    return ptr;
  }
  map(ptr: number, size: number): boolean {
    if (this.used + size > this.capacity) {
      this.log.push(`map ${size / MiB} MiB at ${at(ptr)} failed`);
      return false;
    }
    this.used += size;
    this.log.push(`map ${size / MiB} MiB at ${at(ptr)}`);
    return true;
  }
  unmap(ptr: number, size: number): void {
    this.used -= size;
    this.log.push(`unmap ${size / MiB} MiB at ${at(ptr)}`);
  }
}

/** An address as `segment#+offset MiB`, segment k being the k-th GiB from 1 TiB. */
function at(ptr: number): string {
  const k = Math.floor((ptr - 2 ** 40) / GiB);
  return `seg${k}+${(ptr - 2 ** 40 - k * GiB) / MiB}`;
}

function make(conf = '', capacity = Infinity, allowedMaximum?: number): { a: CachingAllocator; d: FakeDevice } {
  const settings: AllocatorSettings = conf ? applyAllocConf(DEFAULT_SETTINGS, conf) : DEFAULT_SETTINGS;
  const d = new FakeDevice(capacity);
  return { a: new CachingAllocator(d, { settings, totalMemory: 16 * GiB, allowedMaximum }), d };
}

function malloc(a: CachingAllocator, size: number, stream = 0): Block {
  const b = a.malloc(size, stream);
  assert.ok(b, `malloc(${size}) failed`);
  return b;
}

describe('caching allocator: sizes and pools', () => {
  it('rounds a request up to 512 bytes and packs small requests into one 2 MiB segment', () => {
    const { a, d } = make();
    const x = malloc(a, 1);
    const y = malloc(a, 1000);
    assert.deepEqual([x.size, y.size], [512, 1024]);
    assert.equal(y.ptr, x.ptr + 512, 'the second block is split off the rest of the same segment');
    assert.deepEqual(d.log, ['malloc 2 MiB at seg0+0']);
    assert.equal(a.reserved, 2 * MiB);
    assert.equal(a.allocated, 1536);
  });

  it('gives a large request under 10 MiB a 20 MiB segment and splits off the rest (over 1 MiB)', () => {
    const { a, d } = make();
    const x = malloc(a, 3 * MiB);
    const y = malloc(a, 5 * MiB);
    assert.equal(x.size, 3 * MiB);
    assert.equal(y.ptr, x.ptr + 3 * MiB, 'served from the 17 MiB remainder');
    assert.deepEqual(d.log, ['malloc 20 MiB at seg0+0']);
  });

  it('rounds a request of 10 MiB or more to 2 MiB for its segment, and keeps a remainder of 1 MiB or less in the block', () => {
    const { a, d } = make();
    const x = malloc(a, 11 * MiB + 100);
    // round_size: 11 MiB + 512; segment 12 MiB; remainder just under 1 MiB is not split off.
    assert.deepEqual(d.log, ['malloc 12 MiB at seg0+0']);
    assert.equal(x.size, 12 * MiB);
    assert.equal(a.allocated, 12 * MiB);
  });

  it('rounds with roundup_power2_divisions: 1200 KiB with 4 divisions is 1280 KiB, and small sizes use the first interval', () => {
    const { a } = make('roundup_power2_divisions:4');
    assert.equal(malloc(a, 1200 * 1024).size, 1280 * 1024);
    // 600 KiB lies under 1 MiB: still the 1 MiB interval's 4 divisions: 512, 640, 768, 896 KiB.
    assert.equal(malloc(a, 600 * 1024).size, 640 * 1024);
    // 1536 bytes is not above 512 * 4: plain 512-byte rounding.
    assert.equal(malloc(a, 1536).size, 1536);
  });
});

describe('caching allocator: best fit and merging', () => {
  it('takes the smallest cached block that fits, the lower address on a tie, and only on the same stream', () => {
    const { a, d } = make();
    const big = malloc(a, 30 * MiB);
    const mid = malloc(a, 22 * MiB);
    const mid2 = malloc(a, 22 * MiB);
    a.free(big);
    a.free(mid2);
    a.free(mid);
    const x = malloc(a, 21 * MiB);
    assert.equal(x.ptr, mid.ptr, '22 MiB beats 30 MiB; of the two 22 MiB blocks the lower address');
    const other = malloc(a, 21 * MiB, 7);
    assert.notEqual(other.ptr, mid2.ptr, 'a block cached for stream 0 never serves stream 7');
    assert.equal(d.log.length, 4, 'three segments, then a fourth for stream 7');
  });

  it('merges a freed block with free neighbours, so the whole segment can be released', () => {
    const { a, d } = make();
    const x = malloc(a, 2 * MiB);
    const y = malloc(a, 2 * MiB);
    const z = malloc(a, 2 * MiB);
    a.free(x);
    a.free(z);
    assert.equal(a.small.blocks.size + a.large.blocks.size, 2, 'x alone, and z merged with the segment tail');
    a.free(y);
    assert.equal(a.large.blocks.size, 1, 'one free block: the whole 20 MiB segment');
    assert.equal([...a.large.blocks][0].size, 20 * MiB);
    a.emptyCache();
    assert.deepEqual(d.log, ['malloc 20 MiB at seg0+0', 'free 20 MiB at seg0+0']);
    assert.equal(a.reserved, 0);
  });

  it('keeps a block freed but not completed (free_requested) out of merges and reuse', () => {
    const { a } = make();
    const x = malloc(a, 4 * MiB);
    malloc(a, 4 * MiB);
    x.pendingFree = true;
    const y = malloc(a, 4 * MiB);
    assert.notEqual(y.ptr, x.ptr);
    a.free(x);
    assert.equal(malloc(a, 4 * MiB).ptr, x.ptr, 'reused once its free completed');
  });
});

describe('caching allocator: max_split_size', () => {
  it('never splits an oversize block, never serves a smaller request from one, and lets an oversize request round up by under 20 MiB', () => {
    const { a, d } = make('max_split_size_mb:64');
    const big = malloc(a, 100 * MiB);
    a.free(big);
    const small = malloc(a, 30 * MiB);
    assert.notEqual(small.ptr, big.ptr, 'a 30 MiB request may not take the 100 MiB oversize block');
    const near = malloc(a, 90 * MiB);
    assert.equal(near.ptr, big.ptr, '100 MiB is within 20 MiB of 90 MiB');
    assert.equal(near.size, 100 * MiB, 'and is not split');
    a.free(near);
    const far = malloc(a, 70 * MiB);
    assert.notEqual(far.ptr, big.ptr, '100 MiB is 30 MiB more than 70 MiB');
    assert.equal(d.log.length, 3);
  });
});

describe('caching allocator: running short', () => {
  it('releases cached segments and retries when cudaMalloc fails', () => {
    const { a, d } = make('', 50 * MiB);
    const x = malloc(a, 30 * MiB);
    a.free(x);
    const y = malloc(a, 40 * MiB);
    assert.deepEqual(d.log, ['malloc 30 MiB at seg0+0', 'malloc 40 MiB failed', 'free 30 MiB at seg0+0', 'malloc 40 MiB at seg1+0']);
    assert.equal(y.size, 40 * MiB);
  });

  it('with max_split_size set, first releases only enough oversize blocks, largest first', () => {
    const { a, d } = make('max_split_size_mb:20', 140 * MiB);
    const p = malloc(a, 30 * MiB);
    const q = malloc(a, 40 * MiB);
    const r = malloc(a, 50 * MiB);
    a.free(p);
    a.free(q);
    a.free(r);
    malloc(a, 60 * MiB);
    // 60 MiB more needs 50 MiB back: releasing the largest (50) then the next (40) until 60 are freed.
    assert.deepEqual(d.log.slice(3), ['malloc 60 MiB failed', 'free 50 MiB at seg2+0', 'free 40 MiB at seg1+0', 'malloc 60 MiB at seg3+0']);
  });

  it('returns no block (an OOM) when nothing more can be released, and keeps its state', () => {
    const { a, d } = make('', 30 * MiB);
    const x = malloc(a, 20 * MiB);
    assert.equal(a.malloc(12 * MiB, 0), undefined);
    assert.deepEqual(d.log, ['malloc 20 MiB at seg0+0', 'malloc 12 MiB failed', 'malloc 12 MiB failed']);
    assert.equal(a.allocated, x.size);
    assert.equal(a.reserved, 20 * MiB);
  });

  it('checks allowed memory (a memory fraction) before asking the device', () => {
    const { a, d } = make('', Infinity, 30 * MiB);
    malloc(a, 20 * MiB);
    assert.equal(a.malloc(20 * MiB, 0), undefined);
    assert.deepEqual(d.log, ['malloc 20 MiB at seg0+0'], 'no cudaMalloc is tried beyond the fraction');
  });

  it('with a garbage collection threshold, frees the oldest unsplit cached segments before growing', () => {
    const { a, d } = make('garbage_collection_threshold:0.5', Infinity, 100 * MiB);
    const p = malloc(a, 30 * MiB);
    const q = malloc(a, 30 * MiB);
    a.free(p);
    a.free(q);
    malloc(a, 40 * MiB);
    // No cached block fits 40 MiB. Reserved 60 MiB is over half of 100 MiB: both cached segments are of
    // average age (one search since they were cached) and go, before the cudaMalloc.
    assert.deepEqual(d.log.slice(2), ['free 30 MiB at seg0+0', 'free 30 MiB at seg1+0', 'malloc 40 MiB at seg2+0']);
  });
});

describe('caching allocator: expandable segments', () => {
  it('maps 20 MiB pages of one large segment as it grows and splits any remainder of 512 bytes or more', () => {
    const { a, d } = make('expandable_segments:True');
    const x = malloc(a, 30 * MiB);
    const y = malloc(a, 5 * MiB + 100);
    assert.equal(y.ptr, x.ptr + 30 * MiB, 'the second block follows in the 10 MiB left of the first 40 MiB');
    assert.equal(y.size, 5 * MiB + 512);
    const z = malloc(a, 10 * MiB);
    assert.equal(z.ptr, y.ptr + y.size, 'the segment grows in place: the new page joins the free end');
    assert.deepEqual(d.log, ['map 40 MiB at seg0+0', 'map 20 MiB at seg0+40']);
    assert.equal(a.reserved, 60 * MiB);
  });

  it('maps 2 MiB pages for the small pool in a segment of its own', () => {
    const { a, d } = make('expandable_segments:True');
    malloc(a, 30 * MiB);
    const s = malloc(a, 1000);
    assert.equal(s.size, 1024);
    assert.deepEqual(d.log, ['map 40 MiB at seg0+0', 'map 2 MiB at seg256+0']);
  });

  it('unmaps whole free pages on empty_cache and reuses the lowest free address space first', () => {
    const { a, d } = make('expandable_segments:True');
    const x = malloc(a, 20 * MiB);
    const hole = x.ptr;
    const y = malloc(a, 20 * MiB);
    a.free(x);
    a.emptyCache();
    assert.deepEqual(d.log.slice(2), ['unmap 20 MiB at seg0+0']);
    const z = malloc(a, 10 * MiB);
    assert.equal(z.ptr, hole, 'the unmapped hole below y comes first');
    assert.deepEqual(d.log.slice(3), ['map 20 MiB at seg0+0']);
    a.free(y);
    a.free(z);
    a.emptyCache();
    assert.equal(a.reserved, 0);
    assert.equal(a.segments.size, 0, 'an expandable segment with nothing mapped gives its address space back');
  });

  it('when mapping fails, unmaps the cached pages and tries again', () => {
    const { a, d } = make('expandable_segments:True', 50 * MiB);
    const x = malloc(a, 40 * MiB);
    a.free(x);
    a.malloc(10 * MiB, 7);
    // Stream 7 has its own segment: mapping 20 MiB there would pass 50 MiB, so stream 0's free pages go first.
    assert.deepEqual(d.log, ['map 40 MiB at seg0+0', 'map 20 MiB at seg256+0 failed', 'unmap 40 MiB at seg0+0', 'map 20 MiB at seg256+0']);
  });
});
