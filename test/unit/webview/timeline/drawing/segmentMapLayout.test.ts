/**
 * Where the segment map draws its segments and blocks (drawing/segmentMapLayout.ts), on maps written
 * by hand, positions worked out by hand: segments end to end at one scale, wrapping along rows; blocks
 * in proportion to their sizes; an allocated block's rounding waste after its bytes asked for.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SegmentMapBlock, SegmentMapSegment } from '../../../../../src/engine/allocator/segmentMap';
import type { SegmentMapView } from '../../../../../src/engine/session/allocatorStudy';
import type { MapOptions } from '../../../../../webview/timeline/drawing/segmentMapLayout';
import { layoutSegmentMap, mapRectAt } from '../../../../../webview/timeline/drawing/segmentMapLayout';

const MiB = 2 ** 20;

function block(address: number, size: number, state: SegmentMapBlock['state'], requestedSize = state === 'free' ? 0 : size): SegmentMapBlock {
  return { address, size, requestedSize, state, allocEvent: state === 'free' ? -1 : 3, line: state === 'free' ? -1 : 1 };
}

function segment(address: number, size: number, blocks: SegmentMapBlock[], blocksOmitted = 0): SegmentMapSegment {
  return { address, size, stream: 0, pool: 'large', expandable: false, createdAt: -1, blocks, blocksOmitted };
}

function map(segments: SegmentMapSegment[]): SegmentMapView {
  return { device: 0, event: 5, reservedBytes: 0, allocatedBytes: 0, requestedBytes: 0, unallocatedBytes: 0, largestFreeBytes: 0, roundingWasteBytes: 0, segments, lineIds: [], lines: [] };
}

/** No least width, no gap: the arithmetic is plain. 100 px rows, 10 px high, 2 px apart, at most 4 rows. */
const plain: MapOptions = { rowHeight: 10, rowGap: 2, maxRows: 4, segmentGap: 0, minSegment: 0 };

describe('the segment map\'s layout', () => {
  it('blocks divide their segment in proportion; an allocated block is its bytes asked for, then its rounding waste', () => {
    // One 20 MiB segment: 3 MiB allocated for 2 MiB asked, 5 MiB allocated, 12 MiB free; few blocks: two rows.
    const layout = layoutSegmentMap(map([segment(0, 20 * MiB, [block(0, 3 * MiB, 'allocated', 2 * MiB), block(3 * MiB, 5 * MiB, 'allocated'), block(8 * MiB, 12 * MiB, 'free')])]), 100, plain);
    assert.equal(layout.rows, 2);
    // Two rows of 100 px hold the 20 MiB: 0.1 MiB per pixel, so 10 px per MiB.
    assert.equal(layout.bytesPerPixel, (20 * MiB) / 200);
    const r = layout.rects.map((x) => [x.part, x.block, Math.round(x.x), Math.round(x.w), x.y]);
    assert.deepEqual(r, [
      ['allocated', 0, 0, 20, 0],
      ['waste', 0, 20, 10, 0],
      ['allocated', 1, 30, 50, 0],
      // The free block wraps: 20 px end the first row, 100 px fill the second.
      ['free', 2, 80, 20, 0],
      ['free', 2, 0, 100, 12],
    ]);
    assert.equal(layout.height, 22);
    assert.deepEqual(layout.outlines.map((o) => [o.x, Math.round(o.w), o.y]), [[0, 100, 0], [0, 100, 12]]);
  });

  it('segments lie end to end with a gap; a segment that fits in the rest of a row does not straddle it; each is some pixels wide', () => {
    const options: MapOptions = { ...plain, segmentGap: 2, minSegment: 4, maxRows: 2 };
    // A 1 MiB and a 30 MiB segment, and a tiny 512-byte one: room = 2 rows x 100 px - 3 x (2 + 4) px = 182 px for 31 MiB (+512 B).
    const layout = layoutSegmentMap(map([segment(0, MiB, [block(0, MiB, 'allocated')]), segment(MiB, 30 * MiB, [block(MiB, 30 * MiB, 'free')]), segment(31 * MiB, 512, [block(31 * MiB, 512, 'allocated')])]), 100, options);
    const bpp = (31 * MiB + 512) / 182;
    assert.equal(layout.bytesPerPixel, bpp);
    const w1 = MiB / bpp;
    const w2 = (30 * MiB) / bpp;
    const [a, b1, b2, c] = layout.rects;
    assert.deepEqual([a.x, a.w], [0, w1]);
    // The 30 MiB segment starts after the gap and wraps at the row's end (it is wider than what is left).
    assert.equal(b1.x, w1 + 2);
    assert.ok(Math.abs(b1.w + b2.w - w2) < 1e-9 && b2.y === 12 && b2.x === 0);
    // The 512-byte segment gets the least width, 4 px, after another gap.
    assert.ok(Math.abs(c.x - (b2.w + 2)) < 1e-9);
    assert.equal(c.w, 4);
  });

  it('blocks the answer left out are one unlisted stretch at the segment\'s end', () => {
    const layout = layoutSegmentMap(map([segment(0, 10 * MiB, [block(0, 2 * MiB, 'allocated')], 7)]), 100, plain);
    // (It may wrap onto the next row: one piece per row.)
    assert.deepEqual([...new Set(layout.rects.map((x) => `${x.part}:${x.block}`))], ['allocated:0', 'unlisted:-1']);
    const unlisted = layout.rects.filter((x) => x.part === 'unlisted').reduce((t, x) => t + x.w, 0);
    assert.ok(Math.abs(unlisted * layout.bytesPerPixel - 8 * MiB) < 1);
  });

  it('finds the block under a point, and nothing in the gaps between rows', () => {
    const layout = layoutSegmentMap(map([segment(0, 20 * MiB, [block(0, 3 * MiB, 'allocated', 2 * MiB), block(3 * MiB, 5 * MiB, 'pendingFree'), block(8 * MiB, 12 * MiB, 'free')])]), 100, plain);
    const at = (x: number, y: number) => {
      const r = mapRectAt(layout, x, y, plain);
      return r ? `${r.part}:${r.block}` : 'none';
    };
    assert.equal(at(5, 5), 'allocated:0');
    assert.equal(at(25, 5), 'waste:0');
    assert.equal(at(31, 9), 'pendingFree:1');
    assert.equal(at(90, 5), 'free:2');
    assert.equal(at(50, 11), 'none', 'between the rows');
    assert.equal(at(50, 17), 'free:2');
    assert.equal(at(50, 40), 'none', 'under the last row');
    assert.equal(at(-1, 5), 'none');
  });

  it('an empty map has no rows', () => {
    assert.deepEqual(layoutSegmentMap(map([]), 300), { rects: [], outlines: [], width: 300, height: 0, rows: 0, bytesPerPixel: 0 });
  });
});
