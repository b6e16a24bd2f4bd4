/**
 * The timeline page's words (DOM-free parts): the status line and the tooltip, including what a
 * block without a line of the user's says (its bucket, via describeBucket) and that a hit from an
 * older span prints nothing rather than "NaN B". Expected strings are written out by hand.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BlockDetail, TimelineOverview, TimelineSpan } from '../../../../../src/engine/timeline/types';
import type { PeakBucketKind } from '../../../../../src/engine/analysis/peakBreakdown';
import { statusText } from '../../../../../webview/timeline/controls/statusText';
import { tooltipLines, unattributedLabel } from '../../../../../webview/timeline/controls/tooltipText';
import { deviceOptionLabel } from '../../../../../webview/timeline/controls/statusText';

const MiB = 1024 ** 2;

/** A span of 2 steps and 2 blocks: record 10 (4 MiB, line 1 = model.py:7) and record 11 (2 MiB, no line). */
function span(x0: number, x1: number, moreBlocks = false): TimelineSpan {
  return {
    axis: 'event',
    x0,
    x1,
    columns: 2,
    stepX: new Float64Array([x0, (x0 + x1) / 2, x1]),
    stepState: new Int32Array([1, 2]),
    stepFirst: new Int32Array([1, 2]),
    stepLast: new Int32Array([1, 2]),
    envelope: new Float64Array([6 * MiB, 6 * MiB]),
    reserved: new Float64Array([8 * MiB, 8 * MiB]),
    rest: new Float64Array([0, 0]),
    blockRecord: new Int32Array([10, 11]),
    blockSize: new Float64Array([4 * MiB, 2 * MiB]),
    blockLine: new Int32Array([1, -1]),
    blockBucket: new Int8Array([-1, 0]),
    blockFirstStep: new Int32Array([0, 0]),
    blockLastStep: new Int32Array([1, 1]),
    blockRunStart: new Int32Array([0, 1]),
    runStep: new Int32Array([0, 0]),
    runOffset: new Float64Array([0, 4 * MiB]),
    lines: [{ id: 1, file: '/home/u/proj/model.py', line: 7, color: 0 }],
    releaseX: new Float64Array(0),
    releaseBytes: new Float64Array(0),
    releaseCount: new Int32Array(0),
    moreBlocks,
    computeMs: 0,
  };
}

function overview(ooms = 0): TimelineOverview {
  return {
    device: 0,
    axis: { kind: 'event', start: 0, end: 1000, states: 1001 },
    hasTimes: false,
    peak: { state: 500, x: 500, bytes: 12 * 1024 * MiB, line: { id: 1, file: '/home/u/proj/model.py', line: 7 } as never },
    peakReservedBytes: 0,
    ooms: Array.from({ length: ooms }, (_, i) => ({ state: i, x: i, requestedBytes: MiB }) as never),
    annotations: [],
    annotationsOmitted: 0,
    summary: span(0, 1000),
    peakBreakdown: [],
    allocations: 2,
  };
}

function detail(record: number, allocEvent: number, bucket?: { kind: PeakBucketKind; label: string }): BlockDetail {
  return {
    record,
    size: 2 * MiB,
    address: 0,
    firstState: 1,
    lastState: 2,
    allocEvent,
    freeEvent: -1,
    allocTimeUs: undefined,
    freeTimeUs: undefined,
    line: undefined,
    frames: [],
    totalFrames: 0,
    hiddenFrames: 0,
    ...(bucket ? { bucket } : {}),
  };
}

describe('timeline status line', () => {
  it('names the peak and its line, and nothing about drawing', () => {
    assert.equal(statusText(overview(), span(0, 1000)), 'peak 12.0 GiB at model.py:7');
  });
  it('adds OOMs, the share of the run on screen when zoomed, and merged blocks', () => {
    // [100, 220) of [0, 1000): 12%.
    assert.equal(statusText(overview(3), span(100, 220, true)), 'peak 12.0 GiB at model.py:7 · 3 out-of-memory errors · showing 12% of the run · small blocks merged (zoom in)');
    assert.equal(statusText(overview(1), undefined), 'peak 12.0 GiB at model.py:7 · 1 out-of-memory error');
  });
});

describe('timeline tooltip', () => {
  const o = overview();
  it('shows a block of a line with its line and the open-line hint', () => {
    const lines = tooltipLines({ kind: 'block', index: 0, record: 10, step: 0 }, span(0, 1000), o, undefined);
    assert.deepEqual(lines, ['4.0 MiB  model.py:7', 'Click to pin, double-click to open the line']);
  });
  it('shows a block without a line as its bucket, with no open-line hint', () => {
    const w = span(0, 1000);
    const hit = { kind: 'block', index: 1, record: 11, step: 0 } as const;
    assert.equal(tooltipLines(hit, w, o, detail(11, 5, { kind: 'backward', label: 'BmmBackward0' }))[0], '2.0 MiB  backward: BmmBackward0');
    assert.equal(tooltipLines(hit, w, o, detail(11, 5, { kind: 'backward', label: 'AccumulateGrad' }))[0], '2.0 MiB  gradients (AccumulateGrad)');
    assert.equal(tooltipLines(hit, w, o, detail(11, 5, { kind: 'annotation', label: 'Optimizer.step#AdamW.step' }))[0], '2.0 MiB  inside Optimizer.step#AdamW.step');
    const lines = tooltipLines(hit, w, o, detail(11, -1));
    assert.equal(lines[0], '2.0 MiB  allocated before recording began');
    assert.equal(lines.at(-1), 'Click to pin and see its stack');
    assert.ok(!lines.some((l) => l.includes('open the line')));
  });
  it('says what is known before the detail arrives (the bucket kind the span names), and ignores a detail of another block', () => {
    assert.equal(unattributedLabel(undefined), 'no Python line recorded');
    const lines = tooltipLines({ kind: 'block', index: 1, record: 11, step: 0 }, span(0, 1000), o, detail(99, -1));
    assert.equal(lines[0], '2.0 MiB  backward pass');
    const w = span(0, 1000);
    const unknown = { ...w, blockBucket: new Int8Array([-1, -1]) };
    assert.equal(tooltipLines({ kind: 'block', index: 1, record: 11, step: 0 }, unknown, o, undefined)[0], '2.0 MiB  no Python line recorded');
  });
  it('shows the line\'s own live-at-peak bytes (the lines table\'s row) under a block of that line', () => {
    const row = { id: 1, file: '/home/u/proj/model.py', line: 7, color: 0, allocCount: 3, allocBytes: 12 * MiB, peakWhileAllocatingBytes: 0, liveAtPeakBytes: 8 * MiB, inclusiveLiveAtPeakBytes: 8 * MiB, freedBytes: 0, inclusiveAllocBytes: 12 * MiB, inclusivePeakWhileAllocatingBytes: 0, reservedGrowthBytes: 0, deviceCallCount: 0 };
    const lines = tooltipLines({ kind: 'block', index: 0, record: 10, step: 0 }, span(0, 1000), o, undefined, (id) => (id === 1 ? row : undefined));
    assert.deepEqual(lines, ['4.0 MiB  model.py:7', 'model.py:7 holds 8.0 MiB live at peak', 'Click to pin, double-click to open the line']);
  });
  it('prints nothing for a hit from an older span instead of NaN', () => {
    const w = span(0, 1000);
    // Step 5 and block index 7 do not exist in this 2-step, 2-block span; record 10 is not at index 1.
    assert.deepEqual(tooltipLines({ kind: 'reserved', step: 5 }, w, o, undefined), []);
    assert.deepEqual(tooltipLines({ kind: 'rest', step: 2 }, w, o, undefined), []);
    assert.deepEqual(tooltipLines({ kind: 'block', index: 7, record: 10, step: 0 }, w, o, undefined), []);
    assert.deepEqual(tooltipLines({ kind: 'block', index: 1, record: 10, step: 0 }, w, o, undefined), []);
    assert.deepEqual(tooltipLines({ kind: 'release', index: 0 }, w, o, undefined), []);
    const reserved = tooltipLines({ kind: 'reserved', step: 1 }, w, o, undefined);
    assert.deepEqual(reserved, ['2.0 MiB reserved but not allocated (cached by PyTorch)', '8.0 MiB reserved, 6.0 MiB allocated']);
    assert.ok(!reserved.join(' ').includes('NaN'));
  });
});

describe('the timeline\'s device selector (issue 29, found trying the VSIX)', () => {
  it('names a device as the summary does ("Device 1 · 78.3 GiB"), not "GPU 1" (a CPU run has devices too)', () => {
    assert.equal(deviceOptionLabel({ device: 1, peakBytes: 78.3 * 2 ** 30 }), 'Device 1 · 78.3 GiB');
  });
});
