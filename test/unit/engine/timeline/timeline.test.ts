/**
 * The timeline's stacked layout and level-of-detail summaries on traces small enough to lay out by
 * hand. Each expected value is worked out in the comment above it from memory_viz's stacking rule
 * (blocks stack in allocation order; a freed block lets everything above it move down).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { snapshotFromPickle } from '../../../../src/engine/snapshot/fromPickle';
import { lineColor, PALETTE_SIZE } from '../../../../src/engine/timeline/colors';
import { TimelineQueries } from '../../../../src/engine/timeline/queries';
import type { TimelineSpan, SpanRequest } from '../../../../src/engine/timeline/types';
import type { RawEvent } from '../../../helpers/traces';
import { ev, frame, rawSnapshot, segment } from '../../../helpers/traces';

const user = (line: number, name = 'f') => frame('/home/alice/proj/train.py', line, name);
const lib = (line: number) => frame('/usr/lib/python3.11/site-packages/torch/nn/functional.py', line, 'linear');

function queries(raw: unknown): TimelineQueries {
  const snapshot = snapshotFromPickle(raw);
  const analysis = analyzeSnapshot(snapshot);
  return new TimelineQueries(snapshot, () => analysis);
}

/** Each drawn block, by size: its step range and offset runs as [step, offset] pairs. */
function blocksBySize(w: TimelineSpan): Map<number, { first: number; last: number; runs: [number, number][] }> {
  const out = new Map<number, { first: number; last: number; runs: [number, number][] }>();
  for (let j = 0; j < w.blockRecord.length; j++) {
    const runs: [number, number][] = [];
    for (let k = w.blockRunStart[j]; k < w.blockRunStart[j + 1]; k++) runs.push([w.runStep[k], w.runOffset[k]]);
    out.set(w.blockSize[j], { first: w.blockFirstStep[j], last: w.blockLastStep[j], runs });
  }
  return out;
}

// e0 alloc A(100)  e1 alloc B(200)  e2 alloc C(50)  e3 free A  e4 free C  e5 alloc D(300)  e6 free B  e7 free D
// active after each event: 100 300 350 250 200 500 300 0
// layout per state (state s = after event s-1):
//   s1 A@0 | s2 A@0 B@100 | s3 A@0 B@100 C@300 | s4 B@0 C@200 | s5 B@0 | s6 B@0 D@200 | s7 D@0 | s8 -
const stackedTrace = rawSnapshot([
  [
    ev('alloc', 1, 100, [user(10)]),
    ev('alloc', 2, 200, [user(11)]),
    ev('alloc', 3, 50, [user(12), lib(7)]),
    ev('free_completed', 1, 100),
    ev('free_completed', 3, 50),
    ev('alloc', 4, 300, [lib(7), user(13, 'step')]),
    ev('free_completed', 2, 200),
    ev('free_completed', 4, 300),
  ],
]);

describe('timeline layout', () => {
  it('stacks blocks in allocation order and moves them down when a block below is freed', () => {
    const w = queries(stackedTrace).span(0, { axis: 'event', columns: 100 });
    // 9 states, fewer than 100 columns: one step per state, exactly [s, s + 1).
    assert.deepEqual([...w.stepX], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual([...w.stepState], [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    assert.deepEqual([...w.envelope], [0, 100, 300, 350, 250, 200, 500, 300, 0]);
    assert.deepEqual([...w.rest], [0, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual([...w.blockSize], [300, 200, 100, 50], 'largest first');
    const b = blocksBySize(w);
    assert.deepEqual(b.get(300), { first: 6, last: 7, runs: [[6, 200], [7, 0]] });
    assert.deepEqual(b.get(200), { first: 2, last: 6, runs: [[2, 100], [4, 0]] });
    assert.deepEqual(b.get(100), { first: 1, last: 3, runs: [[1, 0]] });
    assert.deepEqual(b.get(50), { first: 3, last: 4, runs: [[3, 300], [4, 200]] });
  });

  it('puts blocks from before the recording at the bottom, those freed last lowest', () => {
    // X (1000) is live at the end and never allocated in the trace; Z (300) is freed at e0, Y (500) at e1.
    // state 0: X@0 Y@1000 Z@1500 (1800) | state 1: X@0 Y@1000 (1500) | state 2: X@0 (1000)
    const raw = rawSnapshot(
      [[ev('free_completed', 0x3000, 300, [user(30)]), ev('free_completed', 0x2000, 500, [user(31)])]],
      [segment(0, 0x1000, 4096, [{ address: 0x1000, size: 1000, requested_size: 1000, state: 'active_allocated', frames: [user(5)] }])],
    );
    const w = queries(raw).span(0, { axis: 'event', columns: 10 });
    assert.deepEqual([...w.envelope], [1800, 1500, 1000]);
    const b = blocksBySize(w);
    assert.deepEqual(b.get(1000), { first: 0, last: 2, runs: [[0, 0]] });
    assert.deepEqual(b.get(500), { first: 0, last: 1, runs: [[0, 1000]] });
    assert.deepEqual(b.get(300), { first: 0, last: 0, runs: [[0, 1500]] });
  });
});

describe('timeline level of detail', () => {
  it('draws only the largest blocks within the budget and merges the rest per step, conserving bytes', () => {
    const w = queries(stackedTrace).span(0, { axis: 'event', columns: 100, budget: 2 });
    // Individual: D (300) and B (200). rest = envelope - (D + B when alive):
    // s0 0 | s1 100-0 | s2 300-200 | s3 350-200 | s4 250-200 | s5 200-200 | s6 500-500 | s7 300-300 | s8 0
    assert.deepEqual([...w.blockSize], [300, 200]);
    assert.deepEqual([...w.rest], [0, 100, 100, 150, 50, 0, 0, 0, 0]);
    assert.equal(w.moreBlocks, true);
  });

  it('shows each pixel column at its state of highest memory when states are narrower than columns', () => {
    // 3 columns over x in [0, 9): [0,3) holds states 0-2 (0, 100, 300): state 2;
    // [3,6) states 3-5 (350, 250, 200): state 3; [6,9) states 6-8 (500, 300, 0): state 6.
    const w = queries(stackedTrace).span(0, { axis: 'event', x0: 0, x1: 9, columns: 3 });
    assert.deepEqual([...w.stepX], [0, 3, 6, 9]);
    assert.deepEqual([...w.stepState], [2, 3, 6]);
    assert.deepEqual([...w.stepFirst], [0, 3, 6]);
    assert.deepEqual([...w.stepLast], [2, 5, 8]);
    assert.deepEqual([...w.envelope], [300, 350, 500]);
    // Blocks alive at states 2, 3, 6: A {2,3}, B {2,3,6}, C {3}, D {6}.
    const b = blocksBySize(w);
    assert.deepEqual(b.get(300), { first: 2, last: 2, runs: [[2, 200]] });
    assert.deepEqual(b.get(200), { first: 0, last: 2, runs: [[0, 100], [2, 0]] });
    assert.deepEqual(b.get(100), { first: 0, last: 1, runs: [[0, 0]] });
    assert.deepEqual(b.get(50), { first: 1, last: 1, runs: [[1, 300]] });
  });

  it('zooms into a span: only the states it overlaps, clipped to it', () => {
    // x in [2.5, 5.5) overlaps states 2..5, each at least a column wide at 10 columns.
    const w = queries(stackedTrace).span(0, { axis: 'event', x0: 2.5, x1: 5.5, columns: 10 });
    assert.deepEqual([...w.stepX], [2.5, 3, 4, 5, 5.5]);
    assert.deepEqual([...w.stepState], [2, 3, 4, 5]);
    assert.deepEqual([...w.envelope], [300, 350, 250, 200]);
    assert.deepEqual([...w.blockSize], [200, 100, 50], 'D is not alive in the span');
  });

  it('fits a range of states with a margin when asked for states instead of x', () => {
    // states 6..7 span [6, 8); the margin is 15% of the width (0.3) on each side.
    const w = queries(stackedTrace).span(0, { axis: 'event', states: [6, 7], columns: 50 });
    assert.ok(Math.abs(w.x0 - 5.7) < 1e-9 && Math.abs(w.x1 - 8.3) < 1e-9, `${w.x0}..${w.x1}`);
    assert.deepEqual([...w.stepState], [5, 6, 7, 8]);
  });

  it('fits states exactly when asked for no margin (keeping the view when the axis changes)', () => {
    const w = queries(stackedTrace).span(0, { axis: 'event', states: [2, 4], statesMargin: 0, columns: 50 });
    assert.deepEqual([w.x0, w.x1], [2, 5]);
    assert.deepEqual([...w.stepState], [2, 3, 4]);
  });

  it('draws the focus line first, even when its blocks are small', () => {
    const q = queries(stackedTrace);
    const cLine = q.lineBlocksFor(0, '/home/alice/proj/train.py', 12);
    assert.ok(cLine);
    const w = q.span(0, { axis: 'event', columns: 100, budget: 1, focusLine: cLine.lineId });
    assert.deepEqual([...w.blockSize], [50]);
    assert.deepEqual(
      w.lines.map((l) => [l.file, l.line]),
      [['/home/alice/proj/train.py', 12]],
    );
  });

  it('sends the smallest blocks back into the merged rest when the vertex budget is exceeded', () => {
    // 7 runs in all (D 2, B 2, A 1, C 2); a budget of 4 keeps D and B (4 runs) and demotes A and C.
    const w = queries(stackedTrace).span(0, { axis: 'event', columns: 100, runBudget: 4 });
    assert.deepEqual([...w.blockSize], [300, 200]);
    assert.equal(w.runStep.length, 4);
    assert.deepEqual([...w.rest], [0, 100, 100, 150, 50, 0, 0, 0, 0]);
  });

  it('skips offset changes smaller than the quantum', () => {
    // B moves from 100 to 0 at step 4 (a change of 100): kept at quantum 99, dropped at quantum 100.
    const q = queries(stackedTrace);
    const fine = blocksBySize(q.span(0, { axis: 'event', columns: 100, offsetQuantum: 99 }));
    const coarse = blocksBySize(q.span(0, { axis: 'event', columns: 100, offsetQuantum: 100 }));
    assert.deepEqual(fine.get(200)?.runs, [[2, 100], [4, 0]]);
    assert.deepEqual(coarse.get(200)?.runs, [[2, 100]]);
  });
});

/**
 * A long random trace (several layout checkpoints), its offsets checked against the stacking rule
 * applied state by state: a wide span reads each column's live blocks from the checkpoint before
 * it, a narrow one moves the layout's cursor from column to column; both must draw every block at
 * the sum of the sizes of the live blocks allocated before it, and conserve the bytes in `rest`.
 */
describe('timeline offsets on a long trace', () => {
  // A small PRNG (mulberry32) so the trace is the same on every run.
  let seed = 0x5eed;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  // 30,000 events: allocations and frees of a few hundred live blocks, some long-lived.
  const events: RawEvent[] = [];
  const live: { addr: number; size: number }[] = [];
  let nextAddr = 0x10000;
  while (events.length < 30_000) {
    if (live.length < 20 || (live.length < 400 && random() < 0.5)) {
      const size = 512 * (1 + Math.floor(random() * 64));
      live.push({ addr: nextAddr, size });
      events.push(ev('alloc', nextAddr, size, [user(100 + (size % 7))]));
      nextAddr += size;
    } else {
      // Mostly the newest blocks die (temporaries), sometimes an old one (a block low in the stack).
      const k = random() < 0.9 ? live.length - 1 - Math.floor(random() * Math.min(live.length, 30)) : Math.floor(random() * live.length);
      const [b] = live.splice(k, 1);
      events.push(ev('free_completed', b.addr, b.size));
    }
  }
  const raw = rawSnapshot([events]);
  const q = queries(raw);

  // The live blocks of every state, in allocation order, as the rule stacks them.
  const liveAt: number[][] = [[]];
  {
    const stack: number[] = [];
    for (const e of events) {
      const addr = e.addr;
      if (e.action === 'alloc') stack.push(addr);
      else stack.splice(stack.indexOf(addr), 1);
      liveAt.push([...stack]);
    }
  }
  const sizeOf = new Map(events.filter((e) => e.action === 'alloc').map((e) => [e.addr, e.size]));

  for (const [name, request] of [
    ['the whole trace at 40 columns (far-apart columns: from the checkpoints)', { axis: 'event', columns: 40 }],
    ['a third of it at 150 columns (from the checkpoints too)', { axis: 'event', x0: 9_000, x1: 19_000, columns: 150 }],
    ['300 states at 1200 columns (one column per state: the cursor)', { axis: 'event', x0: 12_345, x1: 12_645, columns: 1200 }],
  ] as [string, SpanRequest][]) {
    it(`draws every block at the sum of the blocks below it: ${name}`, () => {
      const w = q.span(0, { ...request, budget: 100_000, runBudget: 10_000_000 });
      assert.ok(w.blockRecord.length > 100, `${w.blockRecord.length} blocks drawn`);
      const addrOfBlock = Array.from(w.blockRecord, (r) => q.block(0, r, 0).address);
      for (let i = 0; i < w.stepState.length; i++) {
        const stack = liveAt[w.stepState[i]];
        const expected = new Map<number, number>();
        let offset = 0;
        for (const addr of stack) {
          expected.set(addr, offset);
          offset += sizeOf.get(addr)!;
        }
        let drawn = 0;
        for (let j = 0; j < w.blockRecord.length; j++) {
          if (i < w.blockFirstStep[j] || i > w.blockLastStep[j]) continue;
          let at = Number.NaN;
          for (let k = w.blockRunStart[j]; k < w.blockRunStart[j + 1] && w.runStep[k] <= i; k++) at = w.runOffset[k];
          const addr = addrOfBlock[j];
          assert.equal(at, expected.get(addr), `step ${i} (state ${w.stepState[i]}): block at 0x${addr.toString(16)}`);
          drawn += w.blockSize[j];
        }
        assert.equal(drawn + w.rest[i], w.envelope[i], `step ${i}: drawn blocks and rest make the active bytes`);
        assert.equal(w.envelope[i], offset, `step ${i}: the envelope is the sum of the live blocks`);
      }
    });
  }

  it('answers the same spans when a big layout is warmed up first', () => {
    // The warm-up runs from WARM_UP_STATES states (ten million); lowered here to this trace's.
    const snapshot = snapshotFromPickle(raw);
    const analysis = analyzeSnapshot(snapshot);
    const warmed = new TimelineQueries(snapshot, () => analysis, 1);
    const cold = new TimelineQueries(snapshot, () => analysis, Infinity);
    // The warm-up ran: its spans left the layout's cursor inside the trace, not at its end where a new layout holds it.
    assert.notEqual(warmed.timeline(0).layout.cursorState, cold.timeline(0).layout.cursorState);
    for (const request of [{ axis: 'event', columns: 40 }, { axis: 'event', x0: 12_345, x1: 12_645, columns: 1200 }] as SpanRequest[]) {
      const { computeMs: _a, ...a } = warmed.span(0, request);
      const { computeMs: _b, ...b } = cold.span(0, request);
      assert.deepEqual(a, b);
    }
  });
});

// Times 10, 20, 20, 40: state 0 [10,10) | 1 [10,20) | 2 [20,20) | 3 [20,40) | 4 [40,50)
// (the last state is as wide as the mean gap, (40 - 10) / 3 = 10). Active: 100, 150, 50, 0.
const timedTrace = {
  ...rawSnapshot([
    [
      ev('alloc', 1, 100, [user(20)], { time_us: 10 }),
      ev('alloc', 2, 50, [user(21)], { time_us: 20 }),
      ev('free_completed', 1, 100, [], { time_us: 20 }),
      ev('free_completed', 2, 50, [], { time_us: 40 }),
    ],
  ]),
  external_annotations: [
    { stage: 'START', name: 'step', device: 0, time_us: 15 },
    { stage: 'START', name: 'fwd', device: 0, time_us: 16 },
    { stage: 'END', name: 'fwd', device: 0, time_us: 30 },
    { stage: 'END', name: 'step', device: 0, time_us: 45 },
    { stage: 'START', name: 'tail', device: 0, time_us: 46 },
    { stage: 'START', name: 'other-device', device: 1, time_us: 12 },
  ],
};

describe('timeline time axis', () => {
  it('spans states by wall time and leaves out the instants between two events at the same time', () => {
    const w = queries(timedTrace).span(0, { axis: 'time', columns: 100 });
    assert.deepEqual([w.x0, w.x1], [10, 50]);
    assert.deepEqual([...w.stepX], [10, 20, 40, 50]);
    assert.deepEqual([...w.stepState], [1, 3, 4]);
    assert.deepEqual([...w.envelope], [100, 50, 0]);
  });

  it('keeps a peak that lasted no time when columns are coarser than states', () => {
    // 2 columns: [10,30) covers states 1..3 (100, 150, 50): state 2; [30,50) covers 3..4 (50, 0): state 3.
    const w = queries(timedTrace).span(0, { axis: 'time', columns: 2 });
    assert.deepEqual([...w.stepState], [2, 3]);
    assert.deepEqual([...w.envelope], [150, 50]);
  });

  it('pairs external annotations by name into spans on separate lanes when they overlap', () => {
    const q = queries(timedTrace);
    const time = q.overview(0, 'time', 100);
    // step [15,45) lane 0; fwd [16,30) overlaps it: lane 1; tail is never closed: to the end (50), lane 0.
    assert.deepEqual(
      time.annotations.map((a) => [a.name, a.x0, a.x1, a.lane]),
      [
        ['step', 15, 45, 0],
        ['fwd', 16, 30, 1],
        ['tail', 46, 50, 0],
      ],
    );
    // On the event axis a time falls inside its state's span: 15 is half-way through state 1 [10,20) -> 1.5;
    // 16 -> 1.6; 30 is half-way through state 3 [20,40) -> 3.5; 45 half-way through state 4 [40,50) -> 4.5.
    const events = q.overview(0, 'event', 100);
    const rounded = events.annotations.map((a) => [a.name, Math.round(a.x0 * 10) / 10, Math.round(a.x1 * 10) / 10]);
    assert.deepEqual(rounded.slice(0, 2), [
      ['step', 1.5, 4.5],
      ['fwd', 1.6, 3.5],
    ]);
  });
});

describe('timeline markers and details', () => {
  it('marks the peak with the line that reached it, OOMs and segment releases', () => {
    const raw = rawSnapshot([
      [
        ev('segment_alloc', 0x100, 1024),
        ev('alloc', 0x100, 512, [user(40)]),
        ev('alloc', 0x300, 256, [user(41)]),
        ev('oom', 0, 4096, [user(42)], { device_free: 128 }),
        ev('free_completed', 0x100, 512),
        ev('free_completed', 0x300, 256),
        ev('segment_free', 0x100, 1024),
      ],
    ]);
    const q = queries(raw);
    const o = q.overview(0, 'event', 100);
    // Peak: 768 bytes after e2 (state 3), reached by line 41.
    assert.equal(o.peak.bytes, 768);
    assert.equal(o.peak.state, 3);
    assert.equal(o.peak.line?.line, 41);
    assert.deepEqual(
      o.ooms.map((m) => [m.state, m.requestedBytes, m.deviceFreeBytes, m.line?.line]),
      [[4, 4096, 128, 42]],
    );
    // The release after e6 is state 7, at x = 7 on the event axis.
    assert.deepEqual([...o.summary.releaseX], [7]);
    assert.deepEqual([...o.summary.releaseBytes], [1024]);
    assert.deepEqual([...o.summary.releaseCount], [1]);
  });

  it('describes a block: size, lifetime, times and the innermost Python frames', () => {
    const q = queries(timedTrace);
    const w = q.span(0, { axis: 'time', columns: 100 });
    const record = w.blockRecord[[...w.blockSize].indexOf(100)];
    const d = q.block(0, record, 5);
    assert.equal(d.size, 100);
    assert.deepEqual([d.allocEvent, d.freeEvent, d.allocTimeUs, d.freeTimeUs], [0, 2, 10, 20]);
    assert.deepEqual([d.firstState, d.lastState], [1, 2]);
    assert.equal(d.line?.line, 20);
    assert.deepEqual(d.frames, [{ file: '/home/alice/proj/train.py', line: 20, name: 'f', user: true }]);
  });

  it('lists the blocks of a line largest first, and the lines whose stacks mention a text', () => {
    const q = queries(stackedTrace);
    const d = q.lineBlocksFor(0, '/home/alice/proj/train.py', 13);
    assert.ok(d);
    assert.deepEqual(
      d.blocks.map((b) => [b.size, b.firstState, b.lastState]),
      [[300, 6, 7]],
    );
    // "linear" is the library frame in the stacks of C (self line 12) and D (self line 13).
    const ids = q.linesMatchingStack('LINEAR');
    const analysis = analyzeSnapshot(snapshotFromPickle(stackedTrace));
    assert.deepEqual(ids.map((id) => analysis.lineIndex.lines[id].line).sort(), [12, 13]);
  });
});

describe('timeline colours', () => {
  it('hashes file:line into the palette (FNV-1a 32), the same in every snapshot and window', () => {
    // FNV-1a of "/home/alice/proj/train.py:10" is 2639297069; mod 12 = 5. ":11" gives 2622519450 -> 6.
    assert.equal(lineColor('/home/alice/proj/train.py', 10), 5);
    assert.equal(lineColor('/home/alice/proj/train.py', 11), 6);
    // PyTorch's 2^64-1 line numbers hash by their exact decimal digits: 360304158 mod 12 = 6.
    assert.equal(lineColor('model.py', 18446744073709551615n), 6);
    const colourOf10 = (raw: unknown, request: SpanRequest) =>
      queries(raw)
        .span(0, request)
        .lines.find((l) => l.line === 10)?.color;
    // Line 10 is line id 0 in one snapshot and id 1 in the other: same colour.
    const other = rawSnapshot([[ev('alloc', 9, 64, [user(99)]), ev('alloc', 1, 100, [user(10)])]]);
    assert.equal(colourOf10(stackedTrace, { axis: 'event', columns: 100 }), 5);
    assert.equal(colourOf10(other, { axis: 'event', columns: 3 }), 5);
    assert.equal(PALETTE_SIZE, 12);
  });
});
