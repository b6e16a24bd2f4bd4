/**
 * Loading a window of a recording (issue 23): a window's figures against the full replay's, over the
 * same events. The full replay (checked against the Python oracle elsewhere) gives, independently of
 * the window's code: the active and reserved bytes after every event, who allocated each block and
 * when it was freed; from those this test derives what each per-line figure of the window must be,
 * with the memory live when the window opens carried in.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { analyzeSnapshot, type DeviceAnalysis } from '../../../../src/engine/analysis/analyze';
import { NO_LINE } from '../../../../src/engine/analysis/lineIndex';
import { NEVER_FREED } from '../../../../src/engine/analysis/replay';
import { readWhole, SnapshotReader } from '../../../../src/engine/decode/load';
import { Action, NO_STACK, type LoadWindow, type Snapshot } from '../../../../src/engine/snapshot/model';
import { corpusFiles, corpusMissing } from '../../../helpers/corpus';

function load(pickle: Uint8Array, window?: LoadWindow, chunk = pickle.length): Snapshot {
  const reader = new SnapshotReader({ expectedBytes: pickle.length, window });
  for (let at = 0; at < pickle.length && reader.wantsMore; at += chunk) reader.feed(pickle.subarray(at, at + chunk));
  return reader.finish();
}

interface Figures {
  allocCount: number;
  allocBytes: number;
  freedBytes: number;
  peakWhileAllocatingBytes: number;
  liveAtPeakBytes: number;
  inclusiveAllocBytes: number;
  inclusivePeakWhileAllocatingBytes: number;
  inclusiveLiveAtPeakBytes: number;
  /** The two figures beyond the contract (docs/numbers.md), from the window's segment events. */
  reservedGrowthBytes: number;
  deviceCallCount: number;
}

/**
 * The per-line figures of events [a, b) of the full analysis `full`, derived from its replay alone:
 * allocations and frees in the window; each line's peak over its allocations there; the blocks the
 * full replay has live after the window's peak event (or when it opens), attributed by their stacks.
 */
function expectedFigures(full: DeviceAnalysis, snapshot: Snapshot, lineOf: (stack: number) => { self: string | undefined; inclusive: string[] }, a: number, b: number): { peak: number; peakAt: number; lines: Map<string, Figures> } {
  const trace = snapshot.traces[full.device];
  const before = a === 0 ? full.initialActiveBytes : full.active[a - 1];
  let peak = before;
  let peakAt = a - 1;
  for (let i = a; i < b; i++) {
    if (full.active[i] > peak) {
      peak = full.active[i];
      peakAt = i;
    }
  }
  const lines = new Map<string, Figures>();
  const row = (key: string): Figures => {
    let f = lines.get(key);
    if (f === undefined) {
      f = { allocCount: 0, allocBytes: 0, freedBytes: 0, peakWhileAllocatingBytes: 0, liveAtPeakBytes: 0, inclusiveAllocBytes: 0, inclusivePeakWhileAllocatingBytes: 0, inclusiveLiveAtPeakBytes: 0, reservedGrowthBytes: 0, deviceCallCount: 0 };
      lines.set(key, f);
    }
    return f;
  };
  for (let i = a; i < b; i++) {
    const s = trace.stack[i];
    if (s === NO_STACK) continue;
    const { self, inclusive } = lineOf(s);
    if (trace.action[i] === Action.Alloc) {
      if (self !== undefined) {
        const f = row(self);
        f.allocCount++;
        f.allocBytes += trace.size[i];
        f.peakWhileAllocatingBytes = Math.max(f.peakWhileAllocatingBytes, full.active[i]);
      }
      for (const l of inclusive) {
        const f = row(l);
        f.inclusiveAllocBytes += trace.size[i];
        f.inclusivePeakWhileAllocatingBytes = Math.max(f.inclusivePeakWhileAllocatingBytes, full.active[i]);
      }
    } else if (trace.action[i] === Action.FreeRequested && self !== undefined) {
      row(self).freedBytes += trace.size[i];
    } else if (self !== undefined && (trace.action[i] === Action.SegmentAlloc || trace.action[i] === Action.SegmentMap)) {
      row(self).reservedGrowthBytes += trace.size[i];
      row(self).deviceCallCount++;
    } else if (self !== undefined && (trace.action[i] === Action.SegmentFree || trace.action[i] === Action.SegmentUnmap)) {
      row(self).deviceCallCount++;
    }
  }
  // Live right after event peakAt of the recording (before the window's first event when it is a - 1).
  const r = full.allocations;
  for (let k = 0; k < r.count; k++) {
    const born = r.allocEvent[k];
    const died = r.freeEvent[k];
    if (born > peakAt || (died !== NEVER_FREED && died <= peakAt)) continue;
    // A block live since before the recording and freed later has no stack to attribute it.
    const stack = born < 0 && died !== NEVER_FREED ? NO_STACK : r.stack[k];
    if (stack === NO_STACK) continue;
    const { self, inclusive } = lineOf(stack);
    if (self !== undefined) row(self).liveAtPeakBytes += r.size[k];
    for (const l of inclusive) row(l).inclusiveLiveAtPeakBytes += r.size[k];
  }
  for (const [key, f] of lines) if (Object.values(f).every((v) => v === 0)) lines.delete(key);
  return { peak, peakAt, lines };
}

const FIGURES: (keyof Figures)[] = [
  'allocCount',
  'allocBytes',
  'freedBytes',
  'peakWhileAllocatingBytes',
  'liveAtPeakBytes',
  'inclusiveAllocBytes',
  'inclusivePeakWhileAllocatingBytes',
  'inclusiveLiveAtPeakBytes',
  'reservedGrowthBytes',
  'deviceCallCount',
];

function checkWindow(pickle: Uint8Array, full: Snapshot, window: LoadWindow, label: string): void {
  const windowed = load(pickle, window);
  const fullAnalysis = analyzeSnapshot(full);
  const windowAnalysis = analyzeSnapshot(windowed);
  assert.deepStrictEqual(windowed.window, { ...window, originUs: windowed.window!.originUs });
  const index = fullAnalysis.lineIndex;
  const name = (id: number) => `${index.lines[id].file}:${String(index.lines[id].line)}`;
  const lineOf = (stack: number) => ({ self: index.selfLine[stack] === NO_LINE ? undefined : name(index.selfLine[stack]), inclusive: index.inclusiveLines[stack].map(name) });
  for (const fullDevice of fullAnalysis.devices) {
    const device = fullDevice.device;
    const trace = windowed.traces[device];
    const w = trace.window!;
    const a = w.firstEvent;
    const b = a + trace.length;
    const where = `${label} device ${device} events [${a}, ${b})`;
    assert.equal(w.recordedEvents, full.traces[device].length, where);
    // The events kept are the recording's, in order.
    for (const column of ['action', 'addr', 'size', 'timeUs', 'stack'] as const) {
      assert.deepStrictEqual(trace[column], full.traces[device][column].subarray(a, b), `${where}: ${column}`);
    }
    const wd = windowAnalysis.devices.find((d) => d.device === device);
    if (wd === undefined) {
      assert.equal(trace.length, 0, where);
      continue;
    }
    // Active and reserved bytes: the full replay's, from the moment the window opens.
    assert.equal(wd.initialActiveBytes, a === 0 ? fullDevice.initialActiveBytes : fullDevice.active[a - 1], `${where}: active when it opens`);
    assert.equal(wd.initialReservedBytes, a === 0 ? fullDevice.initialReservedBytes : fullDevice.reserved[a - 1], `${where}: reserved when it opens`);
    assert.deepStrictEqual(wd.active, fullDevice.active.subarray(a, b), `${where}: active`);
    assert.deepStrictEqual(wd.reserved, fullDevice.reserved.subarray(a, b), `${where}: reserved`);
    // Per-line figures: derived from the full replay over the window.
    const expected = expectedFigures(fullDevice, full, lineOf, a, b);
    assert.equal(wd.peakBytes, expected.peak, `${where}: peak`);
    assert.equal(wd.peakEventIndex, expected.peakAt < a ? -1 : expected.peakAt - a, `${where}: peak event`);
    const actual = new Map(wd.lines.map((l) => [`${l.file}:${String(l.line)}`, l]));
    assert.deepStrictEqual([...actual.keys()].sort(), [...expected.lines.keys()].sort(), `${where}: lines`);
    for (const [key, f] of expected.lines) {
      for (const figure of FIGURES) assert.equal(actual.get(key)![figure], f[figure], `${where}: ${key} ${figure}`);
    }
    // What the window carried in adds up to the active bytes when it opens (PyTorch's traces have no double frees).
    let carried = 0;
    for (let k = 0; k < w.carried.length; k++) carried += w.carried.size[k];
    assert.equal(carried, wd.initialActiveBytes, `${where}: carried blocks`);
  }
}

describe('a window of the recording against the full replay', { skip: corpusMissing }, () => {
  const files = corpusFiles().filter((f) => /nothanmin-cs336|magma27|constructor-sun|wedsonlin|kkaitlyn111-cs336-2\.7b|maphsge4-select-n-4dev/.test(f));
  for (const file of files) {
    const name = file.split('/').pop()!;
    it(`${name}: event windows at the start, the middle, the end and beyond`, () => {
      const pickle = readFileSync(file);
      const full = readWhole(pickle);
      const n = Math.max(...full.traces.map((t) => t.length));
      const windows: LoadWindow[] = [
        { axis: 'event', to: Math.floor(n / 3) },
        { axis: 'event', from: Math.floor(n / 3), to: Math.floor((2 * n) / 3) },
        { axis: 'event', from: Math.floor(n / 2) },
        { axis: 'event', from: n - 1, to: n + 10 },
        { axis: 'event', from: n + 5 },
        { axis: 'event', from: 0, to: 0 },
      ];
      for (const window of windows) checkWindow(pickle, full, window, JSON.stringify(window));
    });
  }

  it('time windows: the events from `from` to `to` microseconds after the first traced event', () => {
    const file = files.find((f) => f.includes('nothanmin-cs336'))!;
    const pickle = readFileSync(file);
    const full = readWhole(pickle);
    const times = full.traces[0].timeUs;
    const origin = times[0];
    const span = times[times.length - 1] - origin;
    const window: LoadWindow = { axis: 'time', from: Math.round(span * 0.4), to: Math.round(span * 0.6) };
    checkWindow(pickle, full, window, 'time window');
    const trace = load(pickle, window).traces[0];
    const a = trace.window!.firstEvent;
    assert.ok(times[a] - origin >= window.from! && (a === 0 || times[a - 1] - origin < window.from!), 'the first event at or after `from`');
    const b = a + trace.length;
    assert.ok(b === times.length || times[b] - origin >= window.to!, 'ends before the first event at or after `to`');
    assert.ok(times[b - 1] - origin < window.to!);
  });

  it('read in chunks of odd sizes, a window is the same', () => {
    const file = files.find((f) => f.includes('nothanmin-cs336'))!;
    const pickle = readFileSync(file);
    const window: LoadWindow = { axis: 'event', from: 5000, to: 9000 };
    const whole = load(pickle, window);
    for (const chunk of [4093, 65_537]) assert.deepStrictEqual(load(pickle, window, chunk), whole, `chunks of ${chunk}`);
  });
});
