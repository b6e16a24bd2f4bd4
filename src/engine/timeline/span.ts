/**
 * The level-of-detail summariser: for a visible x span at W pixel columns, the steps to draw,
 * the largest blocks one by one (up to a budget), and the rest merged per step, conserving the
 * bytes exactly: at every step the drawn blocks plus `rest` equal the active bytes.
 *
 * Cost: O(states in the span) to pick each step's representative, O(blocks in the device x log W)
 * at worst to pick the blocks, and one read of the live blocks per step where they changed.
 */
import type { TimelineAxis } from './axis';
import { FloatBuffer, IntBuffer } from '../base/growableArrays';
import { lowerBound } from './lowerBound';
import type { BlockLayout } from './layout';
import { MAX_BLOCK } from './layout';
import type { SpanRequest, SpanSteps, TimelineLine, TimelineSpan } from './types';

/** Default and highest number of blocks drawn one by one. */
export const DEFAULT_BLOCK_BUDGET = 20_000;
export const MAX_BLOCK_BUDGET = 100_000;
/** Default number of offset changes (polygon vertices) sent for the individual blocks. */
export const DEFAULT_RUN_BUDGET = 400_000;
const MAX_COLUMNS = 16_384;

/** What the summariser needs to know about lines under the current user-frame filter. */
export interface LineLookup {
  /** Self line id of each allocation record, or -1. */
  readonly recordLine: Int32Array;
  /**
   * For each record no self line holds: its bucket kind (spec "Explaining the peak") as an index
   * into PEAK_BUCKET_KINDS; -1 for the records a line holds.
   */
  readonly recordBucket: Int8Array;
  line(id: number): TimelineLine;
}

export interface Steps {
  readonly x: FloatBuffer;
  readonly first: IntBuffer;
  readonly last: IntBuffer;
}

/** The x range the request asks for, on the request's axis. */
export function spanRange(axis: TimelineAxis, request: SpanRequest): [number, number] {
  const info = axis.info();
  if (request.states) {
    const first = Math.max(0, Math.min(axis.states - 1, request.states[0]));
    const last = Math.max(first, Math.min(axis.states - 1, request.states[1]));
    const a = axis.start(first);
    const b = axis.start(last + 1);
    const minWidth = (info.end - info.start) / 2000;
    const fraction = Math.max(0, Math.min(10, request.statesMargin ?? 0.15));
    const margin = fraction > 0 ? Math.max((b - a) * fraction, minWidth) : 0;
    return [Math.max(info.start, a - margin), Math.min(info.end, b + margin)];
  }
  const x0 = Number.isFinite(request.x0) ? (request.x0 as number) : info.start;
  const x1 = Number.isFinite(request.x1) ? (request.x1 as number) : info.end;
  return x1 > x0 ? [x0, x1] : [x0, x0 + Math.max(1e-9, Math.abs(x0) * 1e-12)];
}

/** Cuts [x0, x1) into steps: one per state when states are at least a column wide, else per column. */
export function cutSteps(axis: TimelineAxis, x0: number, x1: number, columns: number): Steps {
  const info = axis.info();
  const steps: Steps = { x: new FloatBuffer(columns + 1), first: new IntBuffer(columns), last: new IntBuffer(columns) };
  const a = Math.max(x0, info.start);
  const b = Math.min(x1, info.end);
  if (!(a < b)) return steps;
  const firstState = axis.firstEndingAfter(a);
  const lastState = axis.lastStartingBefore(b);
  if (lastState < firstState) return steps;
  let end = a;
  if (lastState - firstState + 1 <= columns) {
    for (let s = firstState; s <= lastState; s++) {
      const sx0 = Math.max(axis.start(s), a);
      const sx1 = Math.min(axis.start(s + 1), b);
      if (!(sx1 > sx0)) continue;
      steps.x.push(sx0);
      steps.first.push(s);
      steps.last.push(s);
      end = sx1;
    }
  } else {
    const width = (x1 - x0) / columns;
    let prevLo = -1;
    let prevHi = -1;
    for (let c = 0; c < columns; c++) {
      const ca = Math.max(a, x0 + c * width);
      const cb = Math.min(b, x0 + (c + 1) * width);
      if (!(cb > ca)) continue;
      const lo = axis.firstEndingAfter(ca);
      const hi = axis.lastStartingBefore(cb);
      if (hi < lo) continue;
      if (lo !== prevLo || hi !== prevHi) {
        steps.x.push(ca);
        steps.first.push(lo);
        steps.last.push(hi);
        prevLo = lo;
        prevHi = hi;
      }
      end = cb;
    }
  }
  if (steps.first.length > 0) steps.x.push(end);
  return steps;
}

/**
 * Each step's representative (its state of highest active bytes, the first such), envelope and
 * highest reserved: whole blocks of states from the layout's block maxima, the ends state by state.
 */
function representatives(layout: BlockLayout, stepFirst: Int32Array, stepLast: Int32Array) {
  const m = stepFirst.length;
  const stepState = new Int32Array(m);
  const envelope = new Float64Array(m);
  const reserved = new Float64Array(m);
  const { active, reserved: reservedAfter, blockMaxActive, blockMaxState, blockMaxReserved } = layout;
  let best = 0;
  let bestBytes = 0;
  let res = 0;
  // State s >= 1 is index s - 1 of the replay's arrays; state 0 is the initial state.
  const scan = (from: number, to: number) => {
    for (let s = from; s <= to; s++) {
      const a = s === 0 ? layout.initialActive : active[s - 1];
      if (a > bestBytes) {
        bestBytes = a;
        best = s;
      }
      const r = s === 0 ? layout.initialReserved : reservedAfter[s - 1];
      if (r > res) res = r;
    }
  };
  for (let i = 0; i < m; i++) {
    const lo = stepFirst[i];
    const hi = stepLast[i];
    best = lo;
    bestBytes = layout.activeAt(lo);
    res = layout.reservedAt(lo);
    const firstBlock = Math.ceil(lo / MAX_BLOCK);
    const lastBlock = Math.floor((hi + 1) / MAX_BLOCK) - 1;
    if (lastBlock < firstBlock) {
      scan(lo + 1, hi);
    } else {
      scan(lo + 1, firstBlock * MAX_BLOCK - 1);
      for (let b = firstBlock; b <= lastBlock; b++) {
        if (blockMaxActive[b] > bestBytes) {
          bestBytes = blockMaxActive[b];
          best = blockMaxState[b];
        }
        if (blockMaxReserved[b] > res) res = blockMaxReserved[b];
      }
      scan((lastBlock + 1) * MAX_BLOCK, hi);
    }
    stepState[i] = best;
    envelope[i] = bestBytes;
    reserved[i] = res;
  }
  return { stepState, envelope, reserved };
}

export interface Chosen {
  readonly records: IntBuffer;
  /** First step each chosen block is alive in. */
  readonly first: IntBuffer;
  more: boolean;
}

/**
 * Adds to `chosen` the blocks alive at some representative, largest first, up to `budget`, marking
 * each in `layout.mark` with its index; only those of `line` when it is >= 0.
 *
 * `bySize` is walked from the largest, which is quick when the largest blocks are alive in the span
 * (a wide one). When that walk has visited as many blocks as there are candidates without being done,
 * the candidates are read instead: every block alive at a representative is alive at the first one or
 * born between the first and the last (a zoomed-in span has few), and the largest of them are picked
 * by their rank in `bySize`. Either way the same blocks, in the same order; what a span costs depends
 * on what it shows, not on the size of the file.
 */
function chooseBlocks(layout: BlockLayout, stepState: Int32Array, budget: number, chosen: Chosen, recordLine: Int32Array, line: number): void {
  const m = stepState.length;
  if (m === 0) return;
  const repMin = stepState[0];
  const repMax = stepState[m - 1];
  layout.seek(repMin);
  const candidates = layout.cursor.size + layout.birthStart[repMax + 1] - layout.birthStart[repMin + 1];
  // The walk by size first, as far as the candidates would cost; when it has not found them all by then, the candidates.
  const start = chosen.records.length;
  if (chooseBySize(layout, stepState, budget, chosen, recordLine, line, candidates)) return;
  for (let j = start; j < chosen.records.length; j++) layout.mark[chosen.records.get(j)] = -1;
  chosen.records.length = start;
  chosen.first.length = start;
  chosen.more = false;
  chooseAmongCandidates(layout, stepState, budget, chosen, recordLine, line);
}

function take(layout: BlockLayout, chosen: Chosen, r: number, step: number): void {
  layout.mark[r] = chosen.records.length;
  chosen.records.push(r);
  chosen.first.push(step);
}

/** The walk by size; false when it stopped after visiting `limit` blocks without being done. */
export function chooseBySize(layout: BlockLayout, stepState: Int32Array, budget: number, chosen: Chosen, recordLine: Int32Array, line: number, limit = Infinity): boolean {
  const { bySize, bornByRank, diedByRank, mark } = layout;
  const end = Math.min(bySize.length, limit);
  const m = stepState.length;
  const repMin = stepState[0];
  const repMax = stepState[m - 1];
  for (let i = 0; i < end; i++) {
    // Lifetimes read in sequence; the record's own arrays only for the few alive at a representative.
    const born = bornByRank[i];
    const died = diedByRank[i];
    if (born > repMax || died <= repMin) continue;
    const k = lowerBound(stepState, born);
    if (k >= m || stepState[k] >= died) continue;
    const r = bySize[i];
    if (mark[r] >= 0 || (line >= 0 && recordLine[r] !== line)) continue;
    if (chosen.records.length >= budget) {
      chosen.more = true;
      return true;
    }
    take(layout, chosen, r, k);
  }
  return end === bySize.length;
}

/** Bits of a rank dropped to bucket the candidates (4096 ranks a bucket). */
const RANK_BUCKET_BITS = 12;

export function chooseAmongCandidates(layout: BlockLayout, stepState: Int32Array, budget: number, chosen: Chosen, recordLine: Int32Array, line: number): void {
  const m = stepState.length;
  const list = layout.cursor;
  const { birthStart, birthIds, rank, mark, diedState } = layout;
  const wanted = (r: number) => mark[r] < 0 && (line < 0 || recordLine[r] === line);
  // The candidates alive at a representative, as ranks. Those alive at the first (the cursor holds
  // them) are; one born later is when it lives until the first representative at or after its birth.
  const ranks = new IntBuffer(Math.min(budget, 1024) + 16);
  for (let r = list.head; r !== -1; r = list.next[r]) if (wanted(r)) ranks.push(rank[r]);
  // Those born after representative k - 1, up to representative k, are alive at some representative when alive at k.
  for (let k = 1; k < m; k++) {
    const rep = stepState[k];
    for (let q = birthStart[stepState[k - 1] + 1], end = birthStart[rep + 1]; q < end; q++) {
      const r = birthIds[q];
      if (diedState[r] > rep && wanted(r)) ranks.push(rank[r]);
    }
  }
  const room = budget - chosen.records.length;
  if (ranks.length > room) chosen.more = true;
  // The `room` smallest ranks: count them per bucket, keep the buckets that hold them, sort those.
  const all = ranks.take();
  let kept = all;
  if (all.length > room) {
    const counts = new Int32Array((layout.bySize.length >> RANK_BUCKET_BITS) + 1);
    for (let i = 0; i < all.length; i++) counts[all[i] >> RANK_BUCKET_BITS]++;
    let last = 0;
    for (let sum = 0; last < counts.length; last++) {
      sum += counts[last];
      if (sum >= room) break;
    }
    const below = new IntBuffer(room + 1);
    for (let i = 0; i < all.length; i++) if (all[i] >> RANK_BUCKET_BITS <= last) below.push(all[i]);
    kept = below.take();
  }
  const sorted = Int32Array.from(kept).sort();
  const n = Math.min(room, sorted.length);
  for (let i = 0; i < n; i++) {
    const r = layout.bySize[sorted[i]];
    take(layout, chosen, r, lowerBound(stepState, layout.bornState[r]));
  }
}

interface Runs {
  readonly block: IntBuffer;
  readonly step: IntBuffer;
  readonly offset: FloatBuffer;
}

/**
 * The offsets of the chosen blocks and `rest` at each representative where the live blocks changed:
 * records an offset run for a chosen block whenever its offset moved by more than `quantum`.
 *
 * The live blocks of a representative are read one of two ways. When representatives are close (a
 * narrow span), the layout's cursor moves forward from one to the next (the births and deaths on the
 * way replayed) and its list is walked. When they lie far apart (a wide span: more births and deaths
 * between two columns than blocks alive), each is read straight from the checkpoint before it: that
 * copy's blocks not dead by then, followed by the blocks born since that are still alive (births go on
 * top, so this is the list's order), read in sequence with nothing replayed.
 */
function walkOffsets(layout: BlockLayout, stepState: Int32Array, envelope: Float64Array, chosenCount: number, quantum: number, rest: Float64Array): Runs {
  const runs: Runs = { block: new IntBuffer(chosenCount * 2 + 1), step: new IntBuffer(chosenCount * 2 + 1), offset: new FloatBuffer(chosenCount * 2 + 1) };
  const m = stepState.length;
  if (m === 0) return runs;
  const lastOffset = new Float64Array(chosenCount).fill(Number.NaN);
  const { mark, size, diedState, birthStart, birthIds, checkpointState, checkpointStart, checkpointIds } = layout;
  const list = layout.cursor;
  const next = list.next;
  // The live blocks of the representative at hand, bottom first.
  let live = new Int32Array(Math.max(16, list.size * 2));
  let chosenSum = 0;
  // Far apart (more births and deaths between two representatives than blocks alive): from the checkpoints.
  const fromCheckpoints = layout.changesBetween(stepState[0], stepState[m - 1]) > m * Math.max(list.size, 1);
  if (!fromCheckpoints) layout.seek(stepState[0]);
  for (let i = 0; i < m; i++) {
    const s = stepState[i];
    const changed = i === 0 || layout.changesBetween(stepState[i - 1], s) > 0;
    if (!changed || chosenCount === 0) {
      rest[i] = envelope[i] - chosenSum;
      continue;
    }
    let n = 0;
    if (!fromCheckpoints) {
      layout.advanceTo(s);
      if (live.length < list.size) live = new Int32Array(list.size * 2);
      for (let r = list.head; r !== -1; r = next[r]) live[n++] = r;
    } else {
      const cp = layout.checkpointAtOrBefore(s);
      const births0 = birthStart[checkpointState[cp] + 1];
      const most = checkpointStart[cp + 1] - checkpointStart[cp] + birthStart[s + 1] - births0;
      if (live.length < most) live = new Int32Array(most * 2);
      for (let q = checkpointStart[cp]; q < checkpointStart[cp + 1]; q++) {
        const r = checkpointIds[q];
        if (diedState[r] > s) live[n++] = r;
      }
      for (let q = births0; q < birthStart[s + 1]; q++) {
        const r = birthIds[q];
        if (diedState[r] > s) live[n++] = r;
      }
    }
    chosenSum = 0;
    let offset = 0;
    for (let q = 0; q < n; q++) {
      const r = live[q];
      const j = mark[r];
      if (j >= 0) {
        if (!(Math.abs(offset - lastOffset[j]) <= quantum)) {
          runs.block.push(j);
          runs.step.push(i);
          runs.offset.push(offset);
          lastOffset[j] = offset;
        }
        chosenSum += size[r];
      }
      offset += size[r];
    }
    rest[i] = envelope[i] - chosenSum;
  }
  return runs;
}

/** A request's span cut into steps: its x range, its columns, and each step's x, first and last state. */
export interface CutSpan {
  readonly x0: number;
  readonly x1: number;
  readonly columns: number;
  readonly stepX: Float64Array;
  readonly stepFirst: Int32Array;
  readonly stepLast: Int32Array;
}

/** Cuts the span `request` asks for into steps (every span answer, of the blocks or of the allocator, starts so). */
export function cutSpan(axis: TimelineAxis, request: SpanRequest): CutSpan {
  const [x0, x1] = spanRange(axis, request);
  const columns = Math.max(1, Math.min(MAX_COLUMNS, Math.round(request.columns) || 1));
  const steps = cutSteps(axis, x0, x1, columns);
  return { x0, x1, columns, stepX: steps.x.toArray(), stepFirst: steps.first.toArray(), stepLast: steps.last.toArray() };
}

/** The fields every span answer starts with: where its steps are, and each one's representative state. */
export function spanSteps(axis: TimelineAxis, cut: CutSpan, stepState: Int32Array): SpanSteps {
  return { axis: axis.kind, x0: cut.x0, x1: cut.x1, columns: cut.columns, stepX: cut.stepX, stepState, stepFirst: cut.stepFirst, stepLast: cut.stepLast };
}

export function summarizeSpan(
  layout: BlockLayout,
  axis: TimelineAxis,
  request: SpanRequest,
  lines: LineLookup,
): TimelineSpan {
  const started = performance.now();
  const cut = cutSpan(axis, request);
  const { stepFirst, stepLast } = cut;
  const m = stepFirst.length;
  const { stepState, envelope, reserved } = representatives(layout, stepFirst, stepLast);

  // The blocks alive at some representative, largest first (the focus line's first), up to the budget.
  const budget = Math.max(0, Math.min(MAX_BLOCK_BUDGET, Math.floor(request.budget ?? DEFAULT_BLOCK_BUDGET)));
  const chosen: Chosen = { records: new IntBuffer(Math.min(budget, 1024) + 1), first: new IntBuffer(Math.min(budget, 1024) + 1), more: false };
  const focus = request.focusLine !== undefined && request.focusLine >= 0 ? request.focusLine : -1;
  if (budget > 0) {
    if (focus >= 0) chooseBlocks(layout, stepState, budget, chosen, lines.recordLine, focus);
    if (!chosen.more) chooseBlocks(layout, stepState, budget, chosen, lines.recordLine, -1);
  }
  const k = chosen.records.length;
  let moreBlocks = chosen.more;

  // Offsets of the chosen blocks, and the rest per step.
  const rest = new Float64Array(m);
  const runs = walkOffsets(layout, stepState, envelope, k, Math.max(0, request.offsetQuantum ?? 0), rest);

  // The smallest blocks go back into `rest` when there are too many runs (the focus line's last).
  const { size, diedState, mark } = layout;
  const record = (j: number) => chosen.records.get(j);
  const runsPerBlock = new Int32Array(k);
  for (let q = 0; q < runs.block.length; q++) runsPerBlock[runs.block.get(q)]++;
  const runBudget = Math.max(0, Math.floor(request.runBudget ?? DEFAULT_RUN_BUDGET));
  const firstStep = chosen.first.toArray();
  const lastStep = new Int32Array(k);
  for (let j = 0; j < k; j++) lastStep[j] = lowerBound(stepState, diedState[record(j)]) - 1;
  const demoted = new Uint8Array(k);
  let kept = k;
  let totalRuns = runs.block.length;
  if (totalRuns > runBudget) {
    const isFocus = (j: number) => (focus >= 0 && lines.recordLine[record(j)] === focus ? 1 : 0);
    const bySmallest = Array.from({ length: k }, (_, j) => j).sort(
      (a, b) => isFocus(a) - isFocus(b) || size[record(a)] - size[record(b)] || b - a,
    );
    for (let q = 0; q < bySmallest.length && totalRuns > runBudget; q++) {
      const j = bySmallest[q];
      demoted[j] = 1;
      kept--;
      totalRuns -= runsPerBlock[j];
      const bytes = size[record(j)];
      for (let i = firstStep[j]; i <= lastStep[j]; i++) rest[i] += bytes;
      moreBlocks = true;
    }
  }

  // Pack the kept blocks and their runs (grouped per block, in step order).
  const newIndex = new Int32Array(k).fill(-1);
  const blockRecord = new Int32Array(kept);
  const blockSize = new Float64Array(kept);
  const blockLine = new Int32Array(kept);
  const blockBucket = new Int8Array(kept);
  const blockFirstStep = new Int32Array(kept);
  const blockLastStep = new Int32Array(kept);
  const blockRunStart = new Int32Array(kept + 1);
  for (let j = 0, out = 0; j < k; j++) {
    if (demoted[j]) continue;
    const r = record(j);
    newIndex[j] = out;
    blockRecord[out] = r;
    blockSize[out] = size[r];
    blockLine[out] = lines.recordLine[r];
    blockBucket[out] = lines.recordBucket[r];
    blockFirstStep[out] = firstStep[j];
    blockLastStep[out] = lastStep[j];
    blockRunStart[out + 1] = runsPerBlock[j];
    out++;
  }
  for (let j = 0; j < kept; j++) blockRunStart[j + 1] += blockRunStart[j];
  const runStep = new Int32Array(totalRuns);
  const runOffset = new Float64Array(totalRuns);
  const fill = blockRunStart.slice(0, kept);
  for (let q = 0; q < runs.block.length; q++) {
    const j = newIndex[runs.block.get(q)];
    if (j < 0) continue;
    const at = fill[j]++;
    runStep[at] = runs.step.get(q);
    runOffset[at] = runs.offset.get(q);
  }
  for (let j = 0; j < k; j++) mark[record(j)] = -1;

  // The lines named, and the segment releases merged per step.
  const lineIds = new Set<number>();
  for (let j = 0; j < kept; j++) if (blockLine[j] >= 0) lineIds.add(blockLine[j]);
  if (focus >= 0) lineIds.add(focus);
  const releases = releasesInSpan(layout, axis, stepFirst, stepLast);

  return {
    ...spanSteps(axis, cut, stepState),
    envelope,
    reserved,
    rest,
    blockRecord,
    blockSize,
    blockLine,
    blockBucket,
    blockFirstStep,
    blockLastStep,
    blockRunStart,
    runStep,
    runOffset,
    lines: [...lineIds].sort((a, b) => a - b).map((id) => lines.line(id)),
    releaseX: releases.x,
    releaseBytes: releases.bytes,
    releaseCount: releases.count,
    moreBlocks,
    computeMs: performance.now() - started,
  };
}

function releasesInSpan(
  layout: BlockLayout,
  axis: TimelineAxis,
  stepFirst: Int32Array,
  stepLast: Int32Array,
): { x: Float64Array; bytes: Float64Array; count: Int32Array } {
  const x = new FloatBuffer();
  const bytes = new FloatBuffer();
  const count = new IntBuffer();
  const m = stepFirst.length;
  if (m === 0) return { x: x.toArray(), bytes: bytes.toArray(), count: count.toArray() };
  const { releaseState, releaseBytes } = layout;
  let step = 0;
  let lastStep = -1;
  for (let q = lowerBound(releaseState, stepFirst[0]); q < releaseState.length && releaseState[q] <= stepLast[m - 1]; q++) {
    const s = releaseState[q];
    while (step < m - 1 && stepLast[step] < s) step++;
    if (step === lastStep) {
      bytes.set(bytes.length - 1, bytes.get(bytes.length - 1) + releaseBytes[q]);
      count.set(count.length - 1, count.get(count.length - 1) + 1);
    } else {
      x.push(axis.start(s));
      bytes.push(releaseBytes[q]);
      count.push(1);
      lastStep = step;
    }
  }
  return { x: x.toArray(), bytes: bytes.toArray(), count: count.toArray() };
}
