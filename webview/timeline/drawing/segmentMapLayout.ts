/**
 * Where the segment map draws each segment and block, DOM-free (tested in Node). The segments lie end
 * to end in address order along rows that wrap, at one scale of bytes per pixel (a segment is at
 * least a few pixels wide, so the smallest still show), separated by a gap; a segment's blocks divide
 * its width in proportion to their sizes. An allocated block is its bytes asked for, then its rounding
 * waste (size - requested size); a segment's blocks the answer left out are one "unlisted" stretch.
 */
import type { SegmentMapView } from '../../../src/protocol/timeline';

export type MapPart = 'allocated' | 'waste' | 'pendingFree' | 'free' | 'unlisted';

export interface MapRect {
  /** CSS pixels within the map. */
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
  /** Where it starts along the rows (row * width + x), for hit testing. */
  readonly at: number;
  readonly segment: number;
  /** The block's index in its segment (-1: the unlisted rest). */
  readonly block: number;
  readonly part: MapPart;
}

export interface MapLayout {
  readonly rects: readonly MapRect[];
  /** Each segment's outline: one box per row it covers. */
  readonly outlines: readonly { readonly segment: number; readonly x: number; readonly y: number; readonly w: number; readonly h: number }[];
  readonly width: number;
  readonly height: number;
  readonly rows: number;
  readonly bytesPerPixel: number;
}

export interface MapOptions {
  readonly rowHeight: number;
  readonly rowGap: number;
  readonly maxRows: number;
  /** Pixels between segments, and the least width of one. */
  readonly segmentGap: number;
  readonly minSegment: number;
}

export const MAP_OPTIONS: MapOptions = { rowHeight: 18, rowGap: 4, maxRows: 14, segmentGap: 3, minSegment: 4 };

export function layoutSegmentMap(map: SegmentMapView, width: number, options: MapOptions = MAP_OPTIONS): MapLayout {
  const W = Math.max(40, Math.floor(width));
  const segments = map.segments;
  const n = segments.length;
  const total = segments.reduce((t, s) => t + s.size, 0);
  const blocks = segments.reduce((t, s) => t + s.blocks.length + (s.blocksOmitted > 0 ? 1 : 0), 0);
  if (n === 0 || !(total > 0)) return { rects: [], outlines: [], width: W, height: 0, rows: 0, bytesPerPixel: 0 };
  let { segmentGap: gap, minSegment } = options;
  // Rows enough for the blocks to be some pixels wide on average, and for every segment's least width.
  let rows = Math.min(options.maxRows, Math.max(2, Math.ceil((blocks * 6) / W)));
  if (n * (gap + minSegment) > (W * rows) / 2) {
    gap = 1;
    minSegment = 1;
    rows = Math.max(rows, Math.ceil((4 * n) / W));
  }
  const room = Math.max(W, W * rows - n * (gap + minSegment));
  const bytesPerPixel = total / room;
  const rowStride = options.rowHeight + options.rowGap;
  const rects: MapRect[] = [];
  const outlines: { segment: number; x: number; y: number; w: number; h: number }[] = [];
  let lastRow = 0;
  /** Lays [p0, p1) along the rows, one piece per row it covers. */
  const place = (p0: number, p1: number, each: (x: number, y: number, w: number, at: number) => void) => {
    let p = p0;
    while (p1 - p > 1e-9) {
      const row = Math.floor(p / W + 1e-9);
      const end = Math.min(p1, (row + 1) * W);
      each(p - row * W, row * rowStride, end - p, p);
      lastRow = Math.max(lastRow, row);
      p = end;
    }
  };
  let cursor = 0;
  for (let si = 0; si < n; si++) {
    const s = segments[si];
    const segWidth = Math.max(minSegment, s.size / bytesPerPixel);
    // A segment that fits in what is left of a row does not straddle it.
    const row = Math.floor(cursor / W);
    if (segWidth <= W && cursor + segWidth > (row + 1) * W) cursor = (row + 1) * W;
    const start = cursor;
    const scale = segWidth / s.size;
    const add = (offset: number, bytes: number, block: number, part: MapPart) => {
      if (!(bytes > 0)) return;
      place(start + offset * scale, start + (offset + bytes) * scale, (x, y, w, at) => rects.push({ x, y, w, h: options.rowHeight, at, segment: si, block, part }));
    };
    let listedEnd = 0;
    s.blocks.forEach((b, bi) => {
      const offset = b.address - s.address;
      if (b.state === 'allocated' || b.state === 'pendingFree') {
        const asked = Math.min(b.size, Math.max(0, b.requestedSize));
        add(offset, asked, bi, b.state);
        add(offset + asked, b.size - asked, bi, 'waste');
      } else add(offset, b.size, bi, 'free');
      listedEnd = Math.max(listedEnd, offset + b.size);
    });
    if (s.blocksOmitted > 0 && listedEnd < s.size) add(listedEnd, s.size - listedEnd, -1, 'unlisted');
    place(start, start + segWidth, (x, y, w) => outlines.push({ segment: si, x, y, w, h: options.rowHeight }));
    cursor = start + segWidth + gap;
  }
  return { rects, outlines, width: W, height: (lastRow + 1) * rowStride - options.rowGap, rows: lastRow + 1, bytesPerPixel };
}

/** The rectangle under a CSS-pixel point of the map, else undefined. */
export function mapRectAt(layout: MapLayout, x: number, y: number, options: MapOptions = MAP_OPTIONS): MapRect | undefined {
  const stride = options.rowHeight + options.rowGap;
  const row = Math.floor(y / stride);
  if (row < 0 || y - row * stride > options.rowHeight || x < 0 || x >= layout.width) return undefined;
  const at = row * layout.width + x;
  const rects = layout.rects;
  // The last rectangle starting at or before `at` (they are laid in order along the rows).
  let lo = 0;
  let hi = rects.length - 1;
  if (hi < 0 || rects[0].at > at) return undefined;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (rects[mid].at <= at) lo = mid;
    else hi = mid - 1;
  }
  const r = rects[lo];
  // A sub-pixel block still answers for the pixel it starts in.
  return at < r.at + Math.max(1, r.w) ? r : undefined;
}
