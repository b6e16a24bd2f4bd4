/**
 * The allocator's view of one x span, at the level of detail the block timeline uses (span.ts):
 * the same steps (one per state when states are wider than a pixel column, else one per column), and
 * per step, from the allocator replay's series (src/engine/allocator/series.ts), the highest reserved
 * memory, allocated memory, reserved-but-unallocated memory and largest cached free block among the
 * states it covers.
 *
 * Reserved memory by segment: every segment (for expandable segments, every mapped page range) is a
 * band stacked as the block timeline stacks blocks: a new one goes on top, keeps its place while it
 * lives, and moves down by the size of one below it that is released. A step shows the segments alive
 * at its *representative*, its state of highest reserved memory, so the stack's top is that step's
 * reserved memory exactly and no peak of reserved memory is lost when zoomed out. The largest segments
 * are sent one by one (up to a budget); the others are counted in `piecesOmitted` and the page fills
 * their room under the reserved line.
 *
 * Cost per span: O(states in the span) for the series, and O(segments alive x steps where some
 * segment was released or made) for the offsets, sent only where a segment's offset moves by at least
 * `offsetQuantum` bytes.
 */
import { FloatBuffer, IntBuffer } from '../base/growableArrays';
import type { AllocatorSeriesData, SegmentSpan } from '../allocator/series';
import type { LineIndex } from '../analysis/lineIndex';
import { NO_LINE } from '../analysis/lineIndex';
import type { DeviceTrace } from '../snapshot/model';
import { NO_STACK } from '../snapshot/model';
import type { TimelineAxis } from './axis';
import { timelineLine } from './queries';
import type { AxisKind, TimelineLine, SpanSteps } from './types';
import { cutSpan, spanSteps } from './span';

/** Default and highest number of segments sent one by one. */
export const DEFAULT_SEGMENT_BUDGET = 2_000;
export const MAX_SEGMENT_BUDGET = 20_000;
/** Most offset changes sent for the segments one by one (the smallest are left out beyond it). */
export const SEGMENT_RUN_BUDGET = 200_000;

export interface AllocatorSpanRequest {
  readonly axis: AxisKind;
  /** The x range to show (the whole axis when left out). */
  readonly x0?: number;
  readonly x1?: number;
  /** Pixel columns of the plot. */
  readonly columns: number;
  /** Most segments sent one by one (default DEFAULT_SEGMENT_BUDGET). */
  readonly budget?: number;
  /** A segment's offset changes smaller than this many bytes (from the last one sent) are not sent. */
  readonly offsetQuantum?: number;
}

/**
 * The allocator over one window. Steps as in TimelineSpan: step i spans [stepX[i], stepX[i + 1]) and
 * covers states [stepFirst[i], stepLast[i]]; its representative `stepState[i]` is the first of its
 * states with the highest reserved memory.
 *
 * Segment j (one by one, largest first) spans steps [pieceFirstStep[j], pieceLastStep[j]]; its bottom
 * edge is runOffset[k] bytes from step runStep[k] on, for k in [pieceRunStart[j], pieceRunStart[j + 1]).
 */
export interface AllocatorSpan extends SpanSteps {
  /** Highest over the step's states: reserved; allocated (rounded block sizes, memory_allocated()); reserved minus allocated; the largest cached free block. */
  readonly reserved: Float64Array;
  readonly allocated: Float64Array;
  readonly unallocated: Float64Array;
  readonly largestFree: Float64Array;
  readonly pieceAddress: Float64Array;
  readonly pieceSize: Float64Array;
  /** 1: a mapped page range of an expandable segment; 0: a segment cudaMalloc'd whole. */
  readonly pieceExpandable: Uint8Array;
  /** The event whose allocation made it (-1: it was there when recording began), and the event that released it (-1: never). */
  readonly pieceFromEvent: Int32Array;
  readonly pieceToEvent: Int32Array;
  /** Self line id of the allocation that made it, or -1 (none of the user's lines, or before recording). */
  readonly pieceLine: Int32Array;
  readonly pieceFirstStep: Int32Array;
  readonly pieceLastStep: Int32Array;
  readonly pieceRunStart: Int32Array;
  readonly runStep: Int32Array;
  readonly runOffset: Float64Array;
  /** The lines the segments name. */
  readonly lines: readonly TimelineLine[];
  /** Segments alive in the span that are not sent one by one. */
  readonly piecesOmitted: number;
  readonly computeMs: number;
}

/**
 * A device's segments in stacking order (by the event that made them, then by address), with the
 * states each is alive in: born at state from + 1, gone from state to + 1 (state s is the memory right
 * after event s - 1; a segment there when recording began is born at state 0).
 */
export class SegmentStack {
  readonly count: number;
  readonly address: Float64Array;
  readonly size: Float64Array;
  readonly expandable: Uint8Array;
  readonly fromEvent: Int32Array;
  readonly toEvent: Int32Array;
  readonly born: Int32Array;
  readonly died: Int32Array;
  /** Segment indices ordered by the state they die in. */
  readonly byDeath: Int32Array;

  constructor(spans: readonly SegmentSpan[], states: number) {
    const sorted = [...spans].sort((a, b) => a.from - b.from || a.address - b.address);
    const n = sorted.length;
    this.count = n;
    this.address = Float64Array.from(sorted, (s) => s.address);
    this.size = Float64Array.from(sorted, (s) => s.size);
    this.expandable = Uint8Array.from(sorted, (s) => (s.expandable ? 1 : 0));
    this.fromEvent = Int32Array.from(sorted, (s) => s.from);
    this.toEvent = Int32Array.from(sorted, (s) => s.to);
    this.born = Int32Array.from(sorted, (s) => s.from + 1);
    this.died = Int32Array.from(sorted, (s) => (s.to < 0 ? states : s.to + 1));
    this.byDeath = Int32Array.from({ length: n }, (_, k) => k).sort((a, b) => this.died[a] - this.died[b] || a - b);
  }
}

/** The value of a per-event series at state s (state 0: before the first event). */
function at(series: Float64Array, initial: number, s: number): number {
  return s === 0 ? initial : series[s - 1];
}

export function summarizeAllocatorSpan(
  data: AllocatorSeriesData,
  stack: SegmentStack,
  axis: TimelineAxis,
  request: AllocatorSpanRequest,
  trace: DeviceTrace,
  lineIndex: LineIndex | undefined,
): AllocatorSpan {
  const started = performance.now();
  const cut = cutSpan(axis, { axis: request.axis, x0: request.x0, x1: request.x1, columns: request.columns });
  const { stepFirst, stepLast } = cut;
  const m = stepFirst.length;

  // The series per step, and each step's representative (its first state of highest reserved memory).
  const stepState = new Int32Array(m);
  const reserved = new Float64Array(m);
  const allocated = new Float64Array(m);
  const unallocated = new Float64Array(m);
  const largestFree = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    let best = stepFirst[i];
    let r = -1;
    let a = 0;
    let u = 0;
    let f = 0;
    for (let s = stepFirst[i]; s <= stepLast[i]; s++) {
      const rs = at(data.reserved, data.initialReserved, s);
      const as = at(data.allocated, data.initialAllocated, s);
      const fs = at(data.largestFree, data.initialLargestFree, s);
      if (rs > r) {
        r = rs;
        best = s;
      }
      if (as > a) a = as;
      if (rs - as > u) u = rs - as;
      if (fs > f) f = fs;
    }
    stepState[i] = best;
    reserved[i] = Math.max(0, r);
    allocated[i] = a;
    unallocated[i] = u;
    largestFree[i] = f;
  }

  // The segments alive at some representative: the largest up to the budget are sent one by one.
  const budget = Math.max(0, Math.min(MAX_SEGMENT_BUDGET, Math.floor(request.budget ?? DEFAULT_SEGMENT_BUDGET)));
  const shown = aliveAtSomeStep(stack, stepState);
  const chosen = shown.length > budget ? [...shown].sort((p, q) => stack.size[q] - stack.size[p] || p - q).slice(0, budget) : shown;
  const chosenSet = new Uint8Array(stack.count);
  for (const k of chosen) chosenSet[k] = 1;
  const quantum = Math.max(0, request.offsetQuantum ?? 0);
  const runs = walkSegmentOffsets(stack, stepState, chosenSet, quantum);

  // Pack the chosen segments in stacking order, their runs grouped per segment (in step order).
  let order = chosen.slice().sort((p, q) => p - q);
  let omitted = shown.length - chosen.length;
  const runsOf = new Map<number, number[]>();
  for (let q = 0; q < runs.piece.length; q++) {
    const k = runs.piece.get(q);
    let list = runsOf.get(k);
    if (!list) runsOf.set(k, (list = []));
    list.push(q);
  }
  let totalRuns = runs.piece.length;
  if (totalRuns > SEGMENT_RUN_BUDGET) {
    // Too many offset changes: the smallest segments go.
    const bySmallest = order.slice().sort((p, q) => stack.size[p] - stack.size[q] || q - p);
    const dropped = new Set<number>();
    for (const k of bySmallest) {
      if (totalRuns <= SEGMENT_RUN_BUDGET) break;
      dropped.add(k);
      totalRuns -= runsOf.get(k)?.length ?? 0;
    }
    order = order.filter((k) => !dropped.has(k));
    omitted += dropped.size;
  }
  const n = order.length;
  const pieceAddress = new Float64Array(n);
  const pieceSize = new Float64Array(n);
  const pieceExpandable = new Uint8Array(n);
  const pieceFromEvent = new Int32Array(n);
  const pieceToEvent = new Int32Array(n);
  const pieceLine = new Int32Array(n);
  const pieceFirstStep = new Int32Array(n);
  const pieceLastStep = new Int32Array(n);
  const pieceRunStart = new Int32Array(n + 1);
  const runStep = new Int32Array(totalRuns);
  const runOffset = new Float64Array(totalRuns);
  const lineIds = new Set<number>();
  let w = 0;
  for (let j = 0; j < n; j++) {
    const k = order[j];
    pieceAddress[j] = stack.address[k];
    pieceSize[j] = stack.size[k];
    pieceExpandable[j] = stack.expandable[k];
    pieceFromEvent[j] = stack.fromEvent[k];
    pieceToEvent[j] = stack.toEvent[k];
    const line = lineOfEvent(trace, lineIndex, stack.fromEvent[k]);
    pieceLine[j] = line;
    if (line !== NO_LINE) lineIds.add(line);
    pieceFirstStep[j] = firstStepAlive(stack, k, stepState);
    pieceLastStep[j] = lastStepAlive(stack, k, stepState);
    pieceRunStart[j] = w;
    for (const q of runsOf.get(k) ?? []) {
      runStep[w] = runs.step.get(q);
      runOffset[w] = runs.offset.get(q);
      w++;
    }
  }
  pieceRunStart[n] = w;
  const lines = lineIndex ? [...lineIds].sort((a, b) => a - b).map((id) => timelineLine(lineIndex, id)) : [];
  return {
    ...spanSteps(axis, cut, stepState),
    reserved,
    allocated,
    unallocated,
    largestFree,
    pieceAddress,
    pieceSize,
    pieceExpandable,
    pieceFromEvent,
    pieceToEvent,
    pieceLine,
    pieceFirstStep,
    pieceLastStep,
    pieceRunStart,
    runStep,
    runOffset,
    lines,
    piecesOmitted: omitted,
    computeMs: performance.now() - started,
  };
}

/** The self line of the allocation at `event` (-1: none, or no event). */
function lineOfEvent(trace: DeviceTrace, lineIndex: LineIndex | undefined, event: number): number {
  if (!lineIndex || event < 0 || event >= trace.length) return NO_LINE;
  const stack = trace.stack[event];
  return stack === NO_STACK ? NO_LINE : lineIndex.selfLine[stack] ?? NO_LINE;
}

/** First index i with stepState[i] >= s (stepState is increasing). */
function firstStepAtOrAfter(stepState: Int32Array, s: number): number {
  let lo = 0;
  let hi = stepState.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (stepState[mid] < s) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function firstStepAlive(stack: SegmentStack, k: number, stepState: Int32Array): number {
  return firstStepAtOrAfter(stepState, stack.born[k]);
}

function lastStepAlive(stack: SegmentStack, k: number, stepState: Int32Array): number {
  return firstStepAtOrAfter(stepState, stack.died[k]) - 1;
}

/** The segments alive at some step's representative, in stacking order. */
function aliveAtSomeStep(stack: SegmentStack, stepState: Int32Array): number[] {
  const out: number[] = [];
  if (stepState.length === 0) return out;
  for (let k = 0; k < stack.count; k++) {
    const first = firstStepAlive(stack, k, stepState);
    if (first < stepState.length && stepState[first] < stack.died[k]) out.push(k);
  }
  return out;
}

interface Runs {
  readonly piece: IntBuffer;
  readonly step: IntBuffer;
  readonly offset: FloatBuffer;
}

/**
 * Walks the representatives in order, keeping the segments alive there in stacking order, and records
 * for each chosen segment its offset (the bytes of the segments alive below it) where it changes by
 * at least `quantum` from the last recorded, and at its first step.
 */
function walkSegmentOffsets(stack: SegmentStack, stepState: Int32Array, chosen: Uint8Array, quantum: number): Runs {
  const runs: Runs = { piece: new IntBuffer(), step: new IntBuffer(), offset: new FloatBuffer() };
  const alive: number[] = [];
  const lastSent = new Float64Array(stack.count).fill(Number.NaN);
  let nextBorn = 0;
  let nextDeath = 0;
  for (let i = 0; i < stepState.length; i++) {
    const s = stepState[i];
    let changed = i === 0;
    // Releases up to s: they leave the stack (those born after s never entered it).
    while (nextDeath < stack.count && stack.died[stack.byDeath[nextDeath]] <= s) {
      const k = stack.byDeath[nextDeath++];
      const at = alive.indexOf(k);
      if (at >= 0) {
        alive.splice(at, 1);
        changed = true;
      }
    }
    // New segments up to s that are still alive at s go on top, in stacking order.
    while (nextBorn < stack.count && stack.born[nextBorn] <= s) {
      const k = nextBorn++;
      if (stack.died[k] > s) {
        insertSorted(alive, k);
        changed = true;
      }
    }
    if (!changed) continue;
    let offset = 0;
    for (const k of alive) {
      if (chosen[k]) {
        const prev = lastSent[k];
        if (Number.isNaN(prev) || (offset !== prev && Math.abs(offset - prev) >= quantum)) {
          runs.piece.push(k);
          runs.step.push(i);
          runs.offset.push(offset);
          lastSent[k] = offset;
        }
      }
      offset += stack.size[k];
    }
  }
  return runs;
}

function insertSorted(list: number[], k: number): void {
  if (list.length === 0 || list[list.length - 1] < k) {
    list.push(k);
    return;
  }
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, k);
}
