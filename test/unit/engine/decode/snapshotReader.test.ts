/**
 * The snapshot reader fed in chunks, with and without the decoder's trace fast path: every corpus
 * file read in odd-sized chunks (so entries, frames lists and opcodes are cut everywhere) gives exactly
 * the snapshot of one whole-buffer read by the general machine alone; pickles the fast path gives back
 * (shared entries, tokens read by the general machine, batches not closed by APPENDS) too.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { RestartWithoutFastPath, readWhole } from '../../../../src/engine/decode/load';
import { encodePickle, type PlainValue } from '../../../../src/engine/pickle/encoder';
import type { Snapshot } from '../../../../src/engine/snapshot/model';
import { readInChunks } from '../../../helpers/chunkedRead';
import { corpusFiles, corpusMissing } from '../../../helpers/corpus';

function read(pickle: Uint8Array, chunk: number, fastPath: boolean): Snapshot {
  return readInChunks(pickle, chunk, { fastPath });
}

/** Chunked, with the fast path, starting over without it when the reader says so (as the runtime does). */
function readChunked(pickle: Uint8Array, chunk: number): Snapshot {
  try {
    return read(pickle, chunk, true);
  } catch (e) {
    if (!(e instanceof RestartWithoutFastPath)) throw e;
    return read(pickle, chunk, false);
  }
}

function outcome(run: () => Snapshot): Snapshot | string {
  try {
    return run();
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
}

/** The reference: one whole buffer, the general machine only. */
function general(pickle: Uint8Array): Snapshot {
  return read(pickle, pickle.length, false);
}

describe('SnapshotReader', { skip: corpusMissing }, () => {
  for (const file of corpusFiles()) {
    const name = file.split('/').pop()!;
    it(`${name}: the fast path in chunks of 1,009, 65,537 and 1 MiB + 7 bytes gives the general machine's snapshot`, () => {
      const pickle = readFileSync(file);
      const expected = general(pickle);
      assert.deepStrictEqual(readWhole(pickle), expected, 'whole buffer');
      for (const chunk of [1009, 65_537, (1 << 20) + 7]) assert.deepStrictEqual(readChunked(pickle, chunk), expected, `chunks of ${chunk}`);
    });
  }

  it('a small corpus file in chunks of every size from 1 to 300 bytes', () => {
    const file = corpusFiles().find((f) => f.endsWith('magma27-cs336-user-metadata.pickle')) ?? corpusFiles()[0];
    const pickle = readFileSync(file).subarray(0);
    const expected = general(pickle);
    for (let chunk = 1; chunk <= 300; chunk += chunk < 40 ? 1 : 13) assert.deepStrictEqual(readChunked(pickle, chunk), expected, `chunks of ${chunk}`);
  });
});

describe('pickles the fast path gives back to the general machine', () => {
  const frames = [
    { filename: '/w/train.py', line: 3, name: 'step' },
    { filename: '/w/model.py', line: 9, name: 'forward' },
  ];
  const entry = (i: number, f: PlainValue = frames): { [key: string]: PlainValue } => ({ action: i % 2 === 0 ? 'alloc' : 'free_completed', addr: 4096 * (i >> 1), size: 512, stream: 0, time_us: 1000 + i, frames: f });
  const cases: [string, PlainValue][] = [
    ['entries shared by two traces (the second reads back consumed entries)', (() => {
      const trace = Array.from({ length: 2500 }, (_, i) => entry(i));
      return { segments: [], device_traces: [trace, trace.slice(0, 1200)] };
    })()],
    ['a frames list first read by the fast path, then by the general machine in a block', (() => {
      const shared = [...frames];
      return { device_traces: [Array.from({ length: 30 }, (_, i) => entry(i, shared))], segments: [{ device: 0, address: 0, total_size: 4096, blocks: [{ size: 512, state: 'active_allocated', frames: shared }] }] };
    })()],
    ['entries with keys in other orders, extra keys, big ints and odd values', {
      device_traces: [
        [
          { action: 'alloc', frames: frames, addr: 1, size: 2n ** 52n, time_us: 2 ** 53 - 1, extra: 'x', stream: -1.5 },
          { size: 7, action: 'alloc', addr: 2, stream: 2 ** 40, user_metadata: 'm', compile_context: 'N/A' },
          { action: 'oom', device_free: 9, size: 64, addr: 0, frames: null },
          { action: 'workspace_snapshot', addr: -5, frames: [{ filename: 'f', line: 2n ** 64n - 1n, name: 'g', extra: 1 }] },
          { action: 'free_completed', addr: 1, size: 512, frames: [frames[0], 'not a frame', frames[1]] },
        ],
      ],
    }],
  ];
  // Values the snapshot refuses are refused alike: the same message, whichever path read the entry.
  cases.push(['an entry whose time is a float', { device_traces: [[entry(0), { ...entry(1), time_us: 3.5 }]] }]);
  cases.push(['an entry whose size is beyond 2^53', { device_traces: [[entry(0), { ...entry(1), size: 2n ** 60n }]] }]);
  cases.push(['a frame whose line is text', { device_traces: [[entry(0, [{ filename: 'f', line: 'x', name: 'g' }])]] }]);
  for (const [name, value] of cases) {
    it(`${name}: the same snapshot (or error), in chunks of every size from 1 to 64 and whole`, () => {
      const pickle = encodePickle(value);
      const expected = outcome(() => general(pickle));
      assert.deepStrictEqual(outcome(() => readWhole(pickle)), expected);
      for (let chunk = 1; chunk <= 64; chunk++) assert.deepStrictEqual(outcome(() => readChunked(pickle, chunk)), expected, `chunks of ${chunk}`);
    });
  }

  it('a FRAME opcode between a batch\'s MARK and its first entry keeps the fast path (a 500 MB file read its batches after one such twice over)', () => {
    // One frames list shared by every entry: after the first batch it is a stack token in the memo, which
    // the general machine cannot read (it starts over without the fast path).
    const frames = [{ filename: '/work/train.py', line: 3, name: 'step' }];
    const trace = Array.from({ length: 2500 }, (_, i) => ({ ...entry(i), frames }));
    const bytes = encodePickle({ segments: [], device_traces: [trace] });
    // CPython writes a FRAME opcode wherever a 64 KiB frame ends, between any two opcodes: here right
    // after the MARK that opens the trace's second batch (APPENDS MARK EMPTY_DICT).
    const at = bytes.findIndex((b, i) => b === 0x65 && bytes[i + 1] === 0x28 && bytes[i + 2] === 0x7d) + 2;
    assert.ok(at > 2, 'the second batch opens');
    const framed = new Uint8Array(bytes.length + 9);
    framed.set(bytes.subarray(0, at));
    framed.set([0x95, 0, 0, 0, 0, 0, 0, 0, 0], at);
    framed.set(bytes.subarray(at), at + 9);
    for (const chunk of [at + 1, at + 4, at + 9, 1 << 20]) assert.deepStrictEqual(read(framed, chunk, true), general(framed), `chunks of ${chunk}`);
    assert.equal(general(framed).traces[0].length, 2500);
  });

  it('entries shared by two traces make the fast path start over', () => {
    const trace = Array.from({ length: 10 }, (_, i) => entry(i));
    assert.throws(() => read(encodePickle({ device_traces: [trace, trace.slice(0, 5)] }), 1 << 20, true), RestartWithoutFastPath);
  });

  it('entries the fast path wrote that an opcode of their batch then needs: the general machine decides (fuzz input 4883)', () => {
    // Hand-written pickles: an entry dict memoized a second time after its SETITEMS, or popped before the
    // APPENDS. The general machine reads them (the dict memoized twice is appended; a popped one is not);
    // the fast path, which wrote the entry to columns, has no dict on the stack for them.
    const str = (t: string) => [0x8c, t.length, ...Buffer.from(t, 'latin1'), 0x94];
    const entryBytes = (addr: number) => [0x7d, 0x94, 0x28, ...str('action'), ...str('alloc'), ...str('addr'), 0x4b, addr, ...str('size'), 0x4b, 64, 0x75];
    const traceWith = (after: number[]) => new Uint8Array([
      0x80, 4, 0x7d, 0x94, 0x28, ...str('segments'), 0x5d, 0x94, ...str('device_traces'), 0x5d, 0x94, 0x28, 0x5d, 0x94, 0x28,
      ...entryBytes(0), ...entryBytes(64), ...after, ...entryBytes(128), 0x65, 0x65, 0x75, 0x2e,
    ]);
    for (const [what, after, events] of [['MEMOIZE', [0x94], 3], ['POP', [0x30], 2]] as const) {
      const pickle = traceWith([...after]);
      const expected = general(pickle);
      assert.equal(expected.traces[0].length, events, what);
      assert.deepStrictEqual(outcome(() => readWhole(pickle)), expected, what);
      for (let chunk = 1; chunk <= 40; chunk++) assert.deepStrictEqual(outcome(() => readChunked(pickle, chunk)), expected, `${what}, chunks of ${chunk}`);
    }
    // A damaged one: both paths give the general machine's error.
    const damaged = traceWith([0x94, 0x68, 0x7d]);
    const error = outcome(() => general(damaged));
    assert.ok(typeof error === 'string' && /memo key 125 was never stored/.test(error), 'the general machine refuses it');
    assert.equal(outcome(() => readWhole(damaged)), error);
  });

  it('a frame dict the fast path read, changed later by SETITEM: the general machine decides (fuzz run 432411037, input 10096)', () => {
    // Hand-written: a trace entry whose frame is {filename: 'a', line: 1, name: 'x'} (memo 13); before the
    // batch's APPENDS, that dict is read back, given name = 'y' by SETITEM and popped, then a second entry.
    // The general machine reads the entries at APPENDS, when the frame reads 'y'; the fast path read the
    // first entry's frame when it came ('x'), so it must start over.
    const str = (t: string) => [0x8c, t.length, ...Buffer.from(t, 'latin1'), 0x94];
    const frame = [0x7d, 0x94, 0x28, ...str('filename'), ...str('a'), ...str('line'), 0x4b, 1, ...str('name'), ...str('x'), 0x75];
    const entryBytes = [0x7d, 0x94, 0x28, ...str('action'), ...str('alloc'), ...str('addr'), 0x4b, 0, ...str('size'), 0x4b, 64, ...str('frames'), 0x5d, 0x94, 0x28, ...frame, 0x65, 0x75];
    const second = [0x7d, 0x94, 0x28, ...str('action'), ...str('alloc'), ...str('addr'), 0x4b, 64, ...str('size'), 0x4b, 64, 0x75];
    const pickle = new Uint8Array([
      0x80, 4, 0x7d, 0x94, 0x28, ...str('segments'), 0x5d, 0x94, ...str('device_traces'), 0x5d, 0x94, 0x28, 0x5d, 0x94, 0x28,
      ...entryBytes, 0x68, 13, 0x68, 17, ...str('y'), 0x73, 0x30, ...second, 0x65, 0x65, 0x75, 0x2e,
    ]);
    const expected = general(pickle);
    assert.deepEqual(expected.frames, [{ filename: 'a', line: 1, name: 'y' }], 'the general machine sees the changed dict');
    assert.deepStrictEqual(outcome(() => readWhole(pickle)), expected);
    for (let chunk = 1; chunk <= 40; chunk++) assert.deepStrictEqual(outcome(() => readChunked(pickle, chunk)), expected, `chunks of ${chunk}`);
  });

  it('a batch of entries inside another batch of entries: the general machine decides (fuzz run 2388904084, input 9001)', () => {
    // Hand-written: a trace whose batch of two entries holds a second MARK and two more entries, then
    // APPENDS twice. The fast path wrote the first two to columns, so the inner batch's MARK stood on the
    // trace list itself; the general machine finds an entry dict below it (and then refuses the file).
    const str = (t: string) => [0x8c, t.length, ...Buffer.from(t, 'latin1'), 0x94];
    const entryBytes = (addr: number) => [0x7d, 0x94, 0x28, ...str('action'), ...str('alloc'), ...str('addr'), 0x4b, addr, ...str('size'), 0x4b, 64, 0x75];
    const pickle = new Uint8Array([
      0x80, 4, 0x7d, 0x94, 0x28, ...str('segments'), 0x5d, 0x94, ...str('device_traces'), 0x5d, 0x94, 0x28, 0x5d, 0x94, 0x28,
      ...entryBytes(0), ...entryBytes(64), 0x28, ...entryBytes(128), ...entryBytes(192), 0x65, 0x65, 0x65, 0x75, 0x2e,
    ]);
    const error = outcome(() => general(pickle));
    assert.ok(typeof error === 'string' && /APPENDS applied to something other than a list/.test(error), 'the general machine refuses it');
    assert.equal(outcome(() => readWhole(pickle)), error);
    for (let chunk = 1; chunk <= 40; chunk++) assert.equal(outcome(() => readChunked(pickle, chunk)), error, `chunks of ${chunk}`);
  });

  it("allocator_settings that hold the pickle's root: the model keeps plain settings, whichever path read the file (fuzz input 6242)", () => {
    const str = (t: string) => [0x8c, t.length, ...Buffer.from(t, 'latin1'), 0x94];
    const entry = [0x7d, 0x94, 0x28, ...str('action'), ...str('alloc'), ...str('addr'), 0x4b, 0, ...str('size'), 0x4b, 64, 0x75];
    const pickle = new Uint8Array([
      0x80, 4, 0x7d, 0x94, 0x28, ...str('segments'), 0x5d, 0x94, ...str('device_traces'), 0x5d, 0x94, 0x28, 0x5d, 0x94, 0x28, ...entry, 0x65, 0x65,
      ...str('allocator_settings'), 0x7d, 0x94, 0x28, ...str('max_split_size'), 0x4b, 7, ...str('roundup_power2_divisions'), 0x7d, 0x94, 0x28,
      ...str('8192'), 0x68, 0, 0x75, ...str('garbage_collection_threshold'), 0x68, 0, 0x75, 0x75, 0x2e,
    ]);
    const expected = general(pickle);
    assert.deepStrictEqual(expected.allocatorSettings, { max_split_size: 7 });
    assert.deepStrictEqual(readWhole(pickle), expected);
  });
});
