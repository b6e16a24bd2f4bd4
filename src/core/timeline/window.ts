/**
 * The level-of-detail summariser: for a visible x window at W pixel columns, the steps to draw,
 * the largest blocks one by one (up to a budget), and the rest merged per step, conserving the
 * bytes exactly: at every step the drawn blocks plus `rest` equal the active bytes.
 *
 * Cost: O(states in the window) to pick each step's representative, O(blocks in the device x log W)
 * at worst to pick the blocks, and one walk of the live blocks per step where they changed.
 */
import type { TimelineAxis } from './axis';
import { FloatBuffer, IntBuffer, lowerBound } from './buffers';
import type { BlockLayout } from './layout';
import type { TimelineLine, TimelineWindow, WindowRequest } from './types';

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
  line(id: number): TimelineLine;
}

interface Steps {
  readonly x: FloatBuffer;
  readonly first: IntBuffer;
  readonly last: IntBuffer;
}

/** The x range the request asks for, on the request's axis. */
export function windowRange(axis: TimelineAxis, request: WindowRequest): [number, number] {
  const info = axis.info();
  if (request.states) {
    const first = Math.max(0, Math.min(axis.states - 1, request.states[0]));
    const last = Math.max(first, Math.min(axis.states - 1, request.states[1]));
    const a = axis.start(first);
    const b = axis.start(last + 1);
    const minWidth = (info.end - info.start) / 2000;
    const margin = Math.max((b - a) * 0.15, minWidth);
    return [Math.max(info.start, a - margin), Math.min(info.end, b + margin)];
  }
  const x0 = Number.isFinite(request.x0) ? (request.x0 as number) : info.start;
  const x1 = Number.isFinite(request.x1) ? (request.x1 as number) : info.end;
  return x1 > x0 ? [x0, x1] : [x0, x0 + Math.max(1e-9, Math.abs(x0) * 1e-12)];
}

/** Cuts [x0, x1) into steps: one per state when states are at least a column wide, else per column. */
function cutSteps(axis: TimelineAxis, x0: number, x1: number, columns: number): Steps {
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

export function summarizeWindow(
  layout: BlockLayout,
  axis: TimelineAxis,
  request: WindowRequest,
  lines: LineLookup,
): TimelineWindow {
  const started = performance.now();
  const [x0, x1] = windowRange(axis, request);
  const columns = Math.max(1, Math.min(MAX_COLUMNS, Math.round(request.columns) || 1));
  const steps = cutSteps(axis, x0, x1, columns);
  const m = steps.first.length;
  const stepFirst = steps.first.toArray();
  const stepLast = steps.last.toArray();

  // Representatives: the state of highest active bytes (the first such) in each step.
  const stepState = new Int32Array(m);
  const envelope = new Float64Array(m);
  const reserved = new Float64Array(m);
  const { activeAt, reservedAt } = layout;
  for (let i = 0; i < m; i++) {
    let best = stepFirst[i];
    let bestBytes = activeAt[best];
    let res = reservedAt[best];
    for (let s = best + 1; s <= stepLast[i]; s++) {
      if (activeAt[s] > bestBytes) {
        bestBytes = activeAt[s];
        best = s;
      }
      if (reservedAt[s] > res) res = reservedAt[s];
    }
    stepState[i] = best;
    envelope[i] = bestBytes;
    reserved[i] = res;
  }

  // The blocks alive at some representative, largest first (the focus line's first), up to the budget.
  const budget = Math.max(0, Math.min(MAX_BLOCK_BUDGET, Math.floor(request.budget ?? DEFAULT_BLOCK_BUDGET)));
  const { bornState, diedState, size, mark, bySize } = layout;
  const chosen = new IntBuffer(Math.min(budget, 1024) + 1);
  const chosenFirst = new IntBuffer(Math.min(budget, 1024) + 1);
  let moreBlocks = false;
  if (m > 0 && budget > 0) {
    const repMin = stepState[0];
    const repMax = stepState[m - 1];
    const consider = (r: number): void => {
      if (mark[r] >= 0 || bornState[r] > repMax || diedState[r] <= repMin) return;
      const k = lowerBound(stepState, bornState[r]);
      if (k >= m || stepState[k] >= diedState[r]) return;
      if (chosen.length >= budget) {
        moreBlocks = true;
        return;
      }
      mark[r] = chosen.length;
      chosen.push(r);
      chosenFirst.push(k);
    };
    const focus = request.focusLine;
    if (focus !== undefined && focus >= 0) {
      for (let i = 0; i < bySize.length && chosen.length < budget; i++) {
        const r = bySize[i];
        if (lines.recordLine[r] === focus) consider(r);
      }
    }
    for (let i = 0; i < bySize.length && !moreBlocks; i++) consider(bySize[i]);
  }
  const k = chosen.length;

  // One walk of the live list per step where it changed: offsets of the chosen blocks.
  const rest = new Float64Array(m);
  const runBlock = new IntBuffer(k * 2 + 1);
  const runStepAll = new IntBuffer(k * 2 + 1);
  const runOffsetAll = new FloatBuffer(k * 2 + 1);
  const lastOffset = new Float64Array(k).fill(Number.NaN);
  const quantum = Math.max(0, request.offsetQuantum ?? 0);
  if (m > 0) {
    layout.seek(stepState[0]);
    const list = layout.cursor;
    const next = list.next;
    let chosenSum = 0;
    for (let i = 0; i < m; i++) {
      const changed = layout.advanceTo(stepState[i]);
      if (i === 0 || changed) {
        chosenSum = 0;
        if (k > 0) {
          let offset = 0;
          for (let r = list.head; r !== -1; r = next[r]) {
            const j = mark[r];
            if (j >= 0) {
              if (!(Math.abs(offset - lastOffset[j]) <= quantum)) {
                runBlock.push(j);
                runStepAll.push(i);
                runOffsetAll.push(offset);
                lastOffset[j] = offset;
              }
              chosenSum += size[r];
            }
            offset += size[r];
          }
        }
      }
      rest[i] = envelope[i] - chosenSum;
    }
  }

  // Runs grouped per block; the smallest blocks go back into `rest` when there are too many runs.
  const runsPerBlock = new Int32Array(k);
  for (let q = 0; q < runBlock.length; q++) runsPerBlock[runBlock.get(q)]++;
  const runBudget = Math.max(0, Math.floor(request.runBudget ?? DEFAULT_RUN_BUDGET));
  let kept = k;
  let totalRuns = runBlock.length;
  const firstStep = chosenFirst.toArray();
  const lastStep = new Int32Array(k);
  for (let j = 0; j < k; j++) lastStep[j] = lowerBound(stepState, diedState[chosen.get(j)]) - 1;
  // Demote from the smallest (the chosen order is largest first, focus line first).
  const focus = request.focusLine ?? -1;
  const isFocus = (j: number) => (focus >= 0 && lines.recordLine[chosen.get(j)] === focus ? 1 : 0);
  const bySmallest = Array.from({ length: k }, (_, j) => j).sort(
    (a, b) => isFocus(a) - isFocus(b) || size[chosen.get(a)] - size[chosen.get(b)] || b - a,
  );
  const demoted = new Uint8Array(k);
  for (let q = 0; q < bySmallest.length && totalRuns > runBudget; q++) {
    const j = bySmallest[q];
    demoted[j] = 1;
    kept--;
    totalRuns -= runsPerBlock[j];
    const bytes = size[chosen.get(j)];
    for (let i = firstStep[j]; i <= lastStep[j]; i++) rest[i] += bytes;
    moreBlocks = true;
  }
  const newIndex = new Int32Array(k).fill(-1);
  const blockRecord = new Int32Array(kept);
  const blockSize = new Float64Array(kept);
  const blockLine = new Int32Array(kept);
  const blockFirstStep = new Int32Array(kept);
  const blockLastStep = new Int32Array(kept);
  const blockRunStart = new Int32Array(kept + 1);
  for (let j = 0, out = 0; j < k; j++) {
    if (demoted[j]) continue;
    const r = chosen.get(j);
    newIndex[j] = out;
    blockRecord[out] = r;
    blockSize[out] = size[r];
    blockLine[out] = lines.recordLine[r];
    blockFirstStep[out] = firstStep[j];
    blockLastStep[out] = lastStep[j];
    blockRunStart[out + 1] = runsPerBlock[j];
    out++;
  }
  for (let j = 0; j < kept; j++) blockRunStart[j + 1] += blockRunStart[j];
  const runStep = new Int32Array(totalRuns);
  const runOffset = new Float64Array(totalRuns);
  const fill = blockRunStart.slice(0, kept);
  for (let q = 0; q < runBlock.length; q++) {
    const j = newIndex[runBlock.get(q)];
    if (j < 0) continue;
    const at = fill[j]++;
    runStep[at] = runStepAll.get(q);
    runOffset[at] = runOffsetAll.get(q);
  }
  for (let j = 0; j < k; j++) mark[chosen.get(j)] = -1;

  // The lines named, and the segment releases merged per step.
  const lineIds = new Set<number>();
  for (let j = 0; j < kept; j++) if (blockLine[j] >= 0) lineIds.add(blockLine[j]);
  if (request.focusLine !== undefined && request.focusLine >= 0) lineIds.add(request.focusLine);
  const releases = releasesInWindow(layout, axis, stepFirst, stepLast);

  const stepX = steps.x.toArray();
  return {
    axis: axis.kind,
    x0,
    x1,
    columns,
    stepX,
    stepState,
    stepFirst,
    stepLast,
    envelope,
    reserved,
    rest,
    blockRecord,
    blockSize,
    blockLine,
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

function releasesInWindow(
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
