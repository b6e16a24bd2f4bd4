/**
 * The timeline summaries of every corpus snapshot, checked against a naive layout computed here
 * from the replay's allocation records alone: at sampled steps, the live blocks are sorted by
 * memory_viz's stacking rule and their offsets are prefix sums. Every step must conserve bytes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { DeviceAnalysis } from '../../../../src/engine/analysis/analyze';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { BEFORE_TRACE, NEVER_FREED } from '../../../../src/engine/analysis/replay';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { TimelineQueries } from '../../../../src/engine/timeline/queries';
import { chooseAmongCandidates, chooseBySize, type Chosen } from '../../../../src/engine/timeline/span';
import { IntBuffer } from '../../../../src/engine/base/growableArrays';
import type { TimelineSpan } from '../../../../src/engine/timeline/types';
import { corpusFiles, corpusMissing } from '../../../helpers/corpus';

/** Live records after `state` (0: before the first event), bottom first, with their offsets. */
function naiveLayout(d: DeviceAnalysis, state: number): Map<number, number> {
  const rec = d.allocations;
  const live: number[] = [];
  for (let r = 0; r < rec.count; r++) {
    const bornAfter = rec.allocEvent[r]; // alive from state allocEvent + 1 (BEFORE_TRACE: state 0)
    const freedAt = rec.freeEvent[r]; // gone from state freeEvent + 1
    const born = bornAfter === BEFORE_TRACE ? 0 : bornAfter + 1;
    const died = freedAt === NEVER_FREED ? Infinity : freedAt + 1;
    if (born <= state && state < died) live.push(r);
  }
  // Stacking order: blocks from before the trace first (never freed, then freed later before freed
  // earlier), then allocations in trace order.
  const key = (r: number): [number, number, number] => {
    if (rec.allocEvent[r] !== BEFORE_TRACE) return [2, rec.allocEvent[r], r];
    if (rec.freeEvent[r] === NEVER_FREED) return [0, 0, r];
    return [1, -rec.freeEvent[r], r];
  };
  live.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return ka[0] - kb[0] || ka[1] - kb[1] || ka[2] - kb[2];
  });
  const offsets = new Map<number, number>();
  let offset = 0;
  for (const r of live) {
    offsets.set(r, offset);
    offset += rec.size[r];
  }
  return offsets;
}

function activeAfter(d: DeviceAnalysis, state: number): number {
  return state === 0 ? d.initialActiveBytes : d.active[state - 1];
}

function offsetAt(w: TimelineSpan, j: number, step: number): number {
  let offset = Number.NaN;
  for (let k = w.blockRunStart[j]; k < w.blockRunStart[j + 1] && w.runStep[k] <= step; k++) offset = w.runOffset[k];
  return offset;
}

function checkSpan(d: DeviceAnalysis, w: TimelineSpan, budget: number, label: string): void {
  const m = w.stepState.length;
  assert.equal(w.stepX.length, m === 0 ? 0 : m + 1, `${label}: step boundaries`);
  for (let i = 0; i < m; i++) {
    assert.ok(w.stepX[i] < w.stepX[i + 1], `${label}: steps increase`);
    assert.ok(w.stepX[i] >= w.x0 && w.stepX[i + 1] <= w.x1, `${label}: steps inside the span`);
  }
  assert.ok(w.blockRecord.length <= budget, `${label}: budget`);

  // Conservation at every step: drawn blocks + rest = envelope = the replay's active bytes.
  const drawn = new Float64Array(m);
  for (let j = 0; j < w.blockRecord.length; j++) for (let i = w.blockFirstStep[j]; i <= w.blockLastStep[j]; i++) drawn[i] += w.blockSize[j];
  for (let i = 0; i < m; i++) {
    assert.equal(drawn[i] + w.rest[i], w.envelope[i], `${label}: step ${i} conserves bytes`);
    assert.equal(w.envelope[i], activeAfter(d, w.stepState[i]), `${label}: step ${i} envelope`);
    assert.ok(w.rest[i] >= 0, `${label}: step ${i} rest`);
  }

  // At sampled steps: the representative is the highest state, and the layout matches the naive one.
  const sample = Math.max(1, Math.ceil(m / 12));
  let smallestDrawn = Infinity;
  for (let j = 0; j < w.blockSize.length; j++) smallestDrawn = Math.min(smallestDrawn, w.blockSize[j]);
  for (let i = 0; i < m; i += sample) {
    const s = w.stepState[i];
    let first = -1;
    for (let t = w.stepFirst[i]; t <= w.stepLast[i]; t++) {
      assert.ok(activeAfter(d, t) <= w.envelope[i], `${label}: step ${i} peak`);
      if (first < 0 && activeAfter(d, t) === w.envelope[i]) first = t;
    }
    assert.equal(s, first, `${label}: step ${i} shows the first state of its peak`);
    const naive = naiveLayout(d, s);
    let naiveTotal = 0;
    for (const r of naive.keys()) naiveTotal += d.allocations.size[r];
    assert.equal(naiveTotal, w.envelope[i], `${label}: step ${i} live blocks add up to the active bytes`);
    const drawnHere = new Set<number>();
    for (let j = 0; j < w.blockRecord.length; j++) {
      if (i < w.blockFirstStep[j] || i > w.blockLastStep[j]) continue;
      const r = w.blockRecord[j];
      drawnHere.add(r);
      assert.equal(offsetAt(w, j, i), naive.get(r), `${label}: step ${i} block ${r} offset`);
    }
    let undrawn = 0;
    for (const r of naive.keys()) {
      if (drawnHere.has(r)) continue;
      undrawn += d.allocations.size[r];
      if (!w.moreBlocks) assert.fail(`${label}: step ${i} block ${r} alive but neither drawn nor counted as more`);
      assert.ok(d.allocations.size[r] <= smallestDrawn, `${label}: an undrawn block is no larger than every drawn one`);
    }
    assert.equal(undrawn, w.rest[i], `${label}: step ${i} rest is the undrawn blocks`);
  }
}

describe('timeline on the corpus: exact layout and conservation', { skip: corpusMissing }, () => {
  for (const file of corpusFiles()) {
    it(path.basename(file), () => {
      const snapshot = snapshotFromBytes(readFileSync(file));
      const analysis = analyzeSnapshot(snapshot);
      const q = new TimelineQueries(snapshot, () => analysis);
      for (const d of analysis.devices) {
        const budget = 150;
        const overall = q.span(d.device, { axis: 'event', columns: 300, budget });
        checkSpan(d, overall, budget, `device ${d.device} whole`);
        const info = q.timeline(d.device).axis('time').info();
        const width = info.end - info.start;
        const zoomed = q.span(d.device, {
          axis: info.kind,
          x0: info.start + width * 0.45,
          x1: info.start + width * 0.55,
          columns: 200,
          budget,
        });
        checkSpan(d, zoomed, budget, `device ${d.device} zoomed ${info.kind}`);
        // A few wide columns: thousands of states each (block maxima, checkpoint jumps).
        const coarse = q.span(d.device, { axis: 'event', columns: 7, budget });
        checkSpan(d, coarse, budget, `device ${d.device} coarse`);
      }
    });
  }
});

describe('choosing the blocks a span draws: candidates and the walk by size pick the same', { skip: corpusMissing }, () => {
  const file = corpusFiles().find((f) => f.endsWith('nothanmin-cs336.pickle')) ?? corpusFiles()[0];
  it(`${path.basename(file)}: spans from the whole trace to a few states, with and without a focus line`, () => {
    const snapshot = snapshotFromBytes(readFileSync(file));
    const analysis = analyzeSnapshot(snapshot);
    const q = new TimelineQueries(snapshot, () => analysis);
    const device = analysis.devices[0].device;
    const layout = q.timeline(device).layout;
    const recordLine = new Int32Array(layout.count).fill(-1);
    for (let r = 0; r < layout.count; r++) recordLine[r] = r % 7 === 0 ? 1 : 2;
    const states = layout.states;
    let compared = 0;
    for (const [from, to, every] of [
      [0, states - 1, 1000],
      [Math.floor(states / 3), Math.floor(states / 2), 50],
      [Math.floor(states / 2), Math.floor(states / 2) + 300, 7],
      [states - 40, states - 1, 1],
    ]) {
      const reps: number[] = [];
      for (let s = from; s <= to; s += every) reps.push(s);
      const stepState = Int32Array.from(reps);
      for (const budget of [5, 200, 5000]) {
        for (const line of [-1, 1]) {
          const pick = (choose: (...a: Parameters<typeof chooseAmongCandidates>) => unknown): { records: number[]; first: number[]; more: boolean } => {
            const chosen: Chosen = { records: new IntBuffer(), first: new IntBuffer(), more: false };
            layout.seek(stepState[0]);
            choose(layout, stepState, budget, chosen, recordLine, line);
            const records = Array.from(chosen.records.take());
            for (const r of records) layout.mark[r] = -1;
            return { records, first: Array.from(chosen.first.take()), more: chosen.more };
          };
          const bySize = pick(chooseBySize);
          assert.deepStrictEqual(pick(chooseAmongCandidates), bySize, `states ${from}..${to} every ${every}, budget ${budget}, line ${line}`);
          compared += bySize.records.length;
        }
      }
    }
    assert.ok(compared > 1000, `compared ${compared} chosen blocks`);
  });
});
