/**
 * The allocator's view of a timeline span (src/engine/timeline/allocatorSpan.ts): reserved memory
 * by segment, stacked, and the allocator's series per step. On a hand-written recording whose segments,
 * offsets and steps are worked out by hand, and on every corpus snapshot against the reserved memory
 * the block timeline computes from the segment events PyTorch recorded.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { MiB } from '../../../../src/engine/allocator/sizes';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { Action } from '../../../../src/engine/snapshot/model';
import { SnapshotSession } from '../../../../src/engine/session/session';
import type { AllocatorSpan } from '../../../../src/engine/timeline/allocatorSpan';
import { corpusFiles, corpusMissing } from '../../../helpers/corpus';
import { RecordedTrace } from '../../../helpers/recordedTrace';
import { user, userPath } from '../../../helpers/traceBuilder';

const A = 0x7f00_0000_0000;
const B = 0x7f10_0000_0000;
const C = 0x7f20_0000_0000;

/**
 * Three large segments: A (20 MiB, made for a.py:1's 3 MiB), B (18 MiB, a.py:2), C (18 MiB, a.py:3);
 * A's block is freed and empty_cache() releases A (recorded at event 8), so B and C move down by 20 MiB.
 * The replay makes a segment while replaying the allocation that needs it (PyTorch records it just
 * before) and releases A while replaying the event after the recorded release; each counts at the event
 * PyTorch recorded it.
 */
function program() {
  const t = new RecordedTrace()
    .segmentAlloc(A, 20 * MiB, [user('a.py', 1)]) // 0
    .alloc(A, 3 * MiB, [user('a.py', 1)]) // 1
    .segmentAlloc(B, 18 * MiB, [user('a.py', 2)]) // 2
    .alloc(B, 18 * MiB, [user('a.py', 2)]) // 3
    .segmentAlloc(C, 18 * MiB, [user('a.py', 3)]) // 4
    .alloc(C, 18 * MiB, [user('a.py', 3)]) // 5
    .free(A, 3 * MiB) // 6, 7
    .segmentFree(A, 20 * MiB) // 8
    .free(C, 18 * MiB); // 9, 10
  const snap = t.snapshot(
    [
      { address: B, type: 'large', blocks: [[18 * MiB, 'active_allocated']] },
      { address: C, type: 'large', blocks: [[18 * MiB, 'inactive']] },
    ],
    {},
  );
  return new SnapshotSession(snap, 0, {});
}

/** Per segment sent one by one: [address, size, first step, last step, runs as [step, offset in MiB]], and its line. */
function pieces(w: AllocatorSpan) {
  const lineOf = (id: number) => {
    const l = w.lines.find((x) => x.id === id);
    return l ? `${l.file}:${l.line}` : null;
  };
  return Array.from(w.pieceSize, (size, j) => ({
    address: w.pieceAddress[j],
    size: size / MiB,
    steps: [w.pieceFirstStep[j], w.pieceLastStep[j]],
    runs: Array.from({ length: w.pieceRunStart[j + 1] - w.pieceRunStart[j] }, (_, q) => [w.runStep[w.pieceRunStart[j] + q], w.runOffset[w.pieceRunStart[j] + q] / MiB]),
    events: [w.pieceFromEvent[j], w.pieceToEvent[j]],
    line: lineOf(w.pieceLine[j]),
  }));
}

describe('the allocator span', () => {
  it('one step per state: the segments stacked in the order they were made, moving down when one below is released', () => {
    const session = program();
    assert.equal(session.allocator(0).check().check.firstDeparture, null, 'the replay reproduces the recording');
    const w = session.allocatorSpan(0, { axis: 'event', columns: 100 })!;
    // 11 events: states 0..11 (state p: after event p - 1), each a step of its own. Reserved memory rises and
    // falls at the recorded segment events (0, 2, 4; 8); a new segment is one free block until the allocation
    // after it takes it.
    assert.deepEqual(Array.from(w.stepState), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    assert.deepEqual(Array.from(w.reserved, (b) => b / MiB), [0, 20, 20, 38, 38, 56, 56, 56, 56, 36, 36, 36]);
    assert.deepEqual(Array.from(w.allocated, (b) => b / MiB), [0, 0, 3, 3, 21, 21, 39, 39, 36, 36, 36, 18]);
    assert.deepEqual(Array.from(w.unallocated, (b) => b / MiB), [0, 20, 17, 35, 17, 35, 17, 17, 20, 0, 0, 18]);
    assert.deepEqual(Array.from(w.largestFree, (b) => b / MiB), [0, 20, 17, 18, 17, 18, 17, 17, 20, 0, 0, 18]);
    assert.deepEqual(pieces(w), [
      { address: A, size: 20, steps: [1, 8], runs: [[1, 0]], events: [0, 8], line: `${userPath('a.py')}:1` },
      { address: B, size: 18, steps: [3, 11], runs: [[3, 20], [9, 0]], events: [2, -1], line: `${userPath('a.py')}:2` },
      { address: C, size: 18, steps: [5, 11], runs: [[5, 38], [9, 18]], events: [4, -1], line: `${userPath('a.py')}:3` },
    ]);
    assert.equal(w.piecesOmitted, 0);
  });

  it('zoomed out: each step shows the segments alive at its state of highest reserved memory', () => {
    const w = program().allocatorSpan(0, { axis: 'event', columns: 3 })!;
    // Three columns of four states: [0, 3], [4, 7], [8, 11]; the first state of highest reserved memory in each.
    assert.deepEqual([Array.from(w.stepFirst), Array.from(w.stepLast), Array.from(w.stepState)], [[0, 4, 8], [3, 7, 11], [3, 5, 8]]);
    assert.deepEqual(Array.from(w.reserved, (b) => b / MiB), [38, 56, 56]);
    assert.deepEqual(Array.from(w.unallocated, (b) => b / MiB), [35, 35, 20]);
    assert.deepEqual(
      pieces(w).map((p) => [p.size, p.steps, p.runs]),
      [
        [20, [0, 2], [[0, 0]]],
        [18, [0, 2], [[0, 20]]],
        [18, [1, 2], [[1, 38]]],
      ],
    );
  });

  it('a budget: the largest segments one by one, the others counted', () => {
    const w = program().allocatorSpan(0, { axis: 'event', columns: 100, budget: 1 })!;
    assert.deepEqual(pieces(w).map((p) => [p.address, p.runs]), [[A, [[1, 0]]]]);
    assert.equal(w.piecesOmitted, 2);
    // A span after A's release: only B and C are alive there.
    const late = program().allocatorSpan(0, { axis: 'event', columns: 100, x0: 10, x1: 12 })!;
    assert.deepEqual(Array.from(late.stepState), [10, 11]);
    assert.deepEqual(pieces(late).map((p) => [p.address, p.steps, p.runs]), [
      [B, [0, 1], [[0, 0]]],
      [C, [0, 1], [[0, 18]]],
    ]);
  });

  it('a device without a trace has no allocator span', () => {
    const snap = new RecordedTrace().snapshot([{ address: A, type: 'large', blocks: [[20 * MiB, 'inactive']] }], {});
    const session = new SnapshotSession({ ...snap, traces: [] }, 0, {});
    assert.equal(session.allocatorSpan(0, { axis: 'event', columns: 10 }), undefined);
  });

  it('on every corpus snapshot: the segments stack to the reserved memory, which is the one PyTorch recorded where the replay reproduces it', { skip: corpusMissing }, () => {
    let compared = 0;
    for (const file of corpusFiles()) {
      const bytes = readFileSync(file);
      const session = new SnapshotSession(snapshotFromBytes(bytes), bytes.byteLength, {});
      for (const device of session.analysis.devices.map((d) => d.device)) {
        const name = `${path.basename(file)} device ${device}`;
        const w = session.allocatorSpan(device, { axis: 'event', columns: 700, budget: 20_000 });
        if (!w) continue;
        assert.equal(w.piecesOmitted, 0, name);
        // Every step: the segments alive at its representative lie edge to edge from 0 up to its reserved memory.
        const steps = w.stepState.length;
        const ranges: [number, number][][] = Array.from({ length: steps }, () => []);
        for (let j = 0; j < w.pieceSize.length; j++) {
          let offset = Number.NaN;
          let q = w.pieceRunStart[j];
          for (let i = w.pieceFirstStep[j]; i <= w.pieceLastStep[j]; i++) {
            while (q < w.pieceRunStart[j + 1] && w.runStep[q] <= i) offset = w.runOffset[q++];
            ranges[i].push([offset, offset + w.pieceSize[j]]);
          }
        }
        for (let i = 0; i < steps; i++) {
          const sorted = ranges[i].sort((a, b) => a[0] - b[0]);
          let top = 0;
          for (const [lo, hi] of sorted) {
            assert.equal(lo, top, `${name} step ${i}: segments edge to edge`);
            top = hi;
          }
          assert.equal(top, w.reserved[i], `${name} step ${i}: the stack's top is the reserved memory`);
          assert.ok(w.allocated[i] <= w.reserved[i], `${name} step ${i}: allocated within reserved`);
          assert.ok(w.largestFree[i] <= w.unallocated[i], `${name} step ${i}: the largest free block within what is free`);
        }
        // Where the replay made every segment event PyTorch made, its reserved memory is PyTorch's (the block
        // timeline's, from the recorded segment events) after every event: a segment event counts where PyTorch
        // recorded it, though the replay makes it while replaying the allocation (or event) after it.
        const check = session.allocator(device).check();
        if (check.check.firstDeparture !== null) continue;
        const blocks = session.timeline.span(device, { axis: 'event', columns: 700, budget: 0 });
        assert.deepEqual(Array.from(blocks.stepFirst), Array.from(w.stepFirst), `${name}: the same steps as the block timeline`);
        const layout = session.timeline.timeline(device).layout;
        const series = session.allocator(device).series()!;
        const trace = session.snapshot.traces[device];
        assert.equal(series.initialReserved, layout.reservedAt(0), `${name}: reserved when recording began`);
        for (let e = 0; e < trace.length; e++) assert.equal(series.reserved[e], layout.reservedAt(e + 1), `${name}: reserved after event ${e}`);
        for (let i = 0; i < w.stepState.length; i++) assert.equal(w.reserved[i], blocks.reserved[i], `${name} step ${i}: the block timeline's reserved memory`);
        // Each segment's life begins and ends at a recorded segment event of its address.
        for (const span of series.spans) {
          if (span.from >= 0) assert.ok([Action.SegmentAlloc, Action.SegmentMap].includes(trace.action[span.from]) && trace.addr[span.from] <= span.address, `${name}: span from ${span.from}`);
          if (span.to >= 0) assert.ok([Action.SegmentFree, Action.SegmentUnmap].includes(trace.action[span.to]), `${name}: span to ${span.to}`);
        }
        // The segments PyTorch made and released are the trace's own segment_alloc and segment_free events, at their indices.
        const recordedAt = (action: Action) => Array.from(trace.action.keys()).filter((e) => trace.action[e] === action);
        const made = series.spans.filter((s) => s.from >= 0 && trace.action[s.from] === Action.SegmentAlloc);
        assert.deepEqual(made.map((s) => s.from).sort((x, y) => x - y), recordedAt(Action.SegmentAlloc), `${name}: spans begin at the segment_alloc events`);
        for (const s of made) assert.deepEqual([trace.addr[s.from], trace.size[s.from]], [s.address, s.size], `${name}: the segment_alloc at ${s.from}`);
        const released = series.spans.filter((s) => s.to >= 0 && trace.action[s.to] === Action.SegmentFree);
        assert.deepEqual(released.map((s) => s.to).sort((x, y) => x - y), recordedAt(Action.SegmentFree), `${name}: spans end at the segment_free events`);
        for (const s of released) assert.deepEqual([trace.addr[s.to], trace.size[s.to]], [s.address, s.size], `${name}: the segment_free at ${s.to}`);
        compared++;
      }
    }
    assert.ok(compared >= 10, `compared ${compared} devices`);
  });
});
