/**
 * The time ranges of a device's `external_annotations` (record_function / profiler ranges such as
 * `Optimizer.step#AdamW.step`, and Profile VRAM's "backward: <module>" ranges, one per module per
 * step), and the innermost range holding a time: asked once per block no line holds, so a long
 * profiled run (many thousands of ranges, ~100,000 blocks) needs an index, not a scan.
 */
import type { ExternalAnnotation } from '../snapshot/model';

/** A closed time range of `external_annotations` (bounds inclusive); `order` is its START's position. */
export interface AnnotationRange {
  readonly name: string;
  readonly start: number;
  readonly end: number;
  readonly order: number;
}

/**
 * The ranges of one device, in list order: an END closes the latest still-open START of the same
 * name, an unclosed START runs to the end, an END with none open is ignored.
 */
export function annotationRanges(annotations: readonly ExternalAnnotation[], device: number): AnnotationRange[] {
  const open = new Map<string, { start: number; order: number }[]>();
  const ranges: AnnotationRange[] = [];
  annotations.forEach((a, order) => {
    if (a.device !== device) return;
    if (a.stage === 'START') {
      const list = open.get(a.name) ?? [];
      list.push({ start: a.timeUs, order });
      open.set(a.name, list);
    } else if (a.stage === 'END') {
      const started = open.get(a.name)?.pop();
      if (started !== undefined) ranges.push({ name: a.name, start: started.start, end: a.timeUs, order: started.order });
    }
  });
  for (const [name, list] of open) for (const s of list) ranges.push({ name, start: s.start, end: Infinity, order: s.order });
  return ranges.sort((a, b) => a.order - b.order);
}

/**
 * The innermost range holding time t: the latest start, on equal starts the later START. A scan of
 * every range: the definition, which `AnnotationIndex` answers in logarithmic time.
 */
export function innermostRange(ranges: readonly AnnotationRange[], t: number): AnnotationRange | undefined {
  if (Number.isNaN(t)) return undefined;
  let best: AnnotationRange | undefined;
  for (const r of ranges) {
    if (!(r.start <= t && t <= r.end)) continue;
    if (best === undefined || r.start > best.start || (r.start === best.start && r.order > best.order)) best = r;
  }
  return best;
}

/**
 * `innermostRange` over fixed ranges in O(log n) per question: the ranges sorted by (start, order), and
 * a max-heap-shaped tree of their ends. The innermost range holding t is the last one in that order
 * whose start is at most t and whose end is at least t.
 */
export class AnnotationIndex {
  private readonly sorted: AnnotationRange[];
  private readonly starts: Float64Array;
  /** maxEnd[node] over the sorted ranges below it; leaves from `size`. */
  private readonly maxEnd: Float64Array;
  private readonly size: number;

  constructor(ranges: readonly AnnotationRange[]) {
    this.sorted = [...ranges].sort((a, b) => a.start - b.start || a.order - b.order);
    this.starts = Float64Array.from(this.sorted, (r) => r.start);
    let size = 1;
    while (size < this.sorted.length) size *= 2;
    this.size = size;
    this.maxEnd = new Float64Array(2 * size).fill(-Infinity);
    this.sorted.forEach((r, i) => (this.maxEnd[size + i] = r.end));
    for (let node = size - 1; node >= 1; node--) this.maxEnd[node] = Math.max(this.maxEnd[2 * node], this.maxEnd[2 * node + 1]);
  }

  innermost(t: number): AnnotationRange | undefined {
    if (Number.isNaN(t) || this.sorted.length === 0) return undefined;
    // last: the last range that starts at or before t.
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[mid] <= t) lo = mid + 1;
      else hi = mid;
    }
    const found = this.lastEndingAtOrAfter(1, 0, this.size - 1, lo - 1, t);
    return found < 0 ? undefined : this.sorted[found];
  }

  /** The largest index i <= last in node's span [from, to] whose end is at least t, or -1. */
  private lastEndingAtOrAfter(node: number, from: number, to: number, last: number, t: number): number {
    if (from > last || this.maxEnd[node] < t) return -1;
    if (from === to) return from;
    const middle = (from + to) >>> 1;
    const right = this.lastEndingAtOrAfter(2 * node + 1, middle + 1, to, last, t);
    return right >= 0 ? right : this.lastEndingAtOrAfter(2 * node, from, middle, last, t);
  }
}
