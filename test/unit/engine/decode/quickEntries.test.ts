/**
 * The trace reader's quick loop (`TraceEntryReader.quickEntries`): entries of the one shape nearly every
 * entry of PyTorch's files has are read by it, every other shape is left to the reader's steps, and the
 * result is what the general machine gives, with the same work counted, in any chunking.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it, mock } from 'node:test';
import { readWhole } from '../../../../src/engine/decode/load';
import { WorkBudget } from '../../../../src/engine/base/workBudget';
import { PickleDecoder } from '../../../../src/engine/pickle/decoder';
import { encodePickle, type PlainValue } from '../../../../src/engine/pickle/encoder';
import { TraceEntryReader } from '../../../../src/engine/pickle/traceEntries';
import { TraceSink } from '../../../../src/engine/snapshot/fromPickle';
import { FrameTable } from '../../../../src/engine/snapshot/intern';
import { STACK_NOT_READ } from '../../../../src/engine/snapshot/model';
import { TraceColumns } from '../../../../src/engine/snapshot/traceColumns';
import { readInChunks } from '../../../helpers/chunkedRead';
import { corpusFiles, corpusMissing } from '../../../helpers/corpus';

const FRAMES_A = [
  { filename: 'train.py', line: 10, name: 'step' },
  { filename: 'model.py', line: 42, name: 'forward' },
];
const FRAMES_B = [{ filename: 'train.py', line: 12, name: 'step' }];
/**
 * The frames list of a block in `segments`: PyTorch shares it with the trace entry that allocated the
 * block, so the entry reads back a list the general machine built (the segments come first).
 */
const BLOCK_FRAMES = [FRAMES_A[1], { filename: 'block.py', line: 7, name: 'make_block' }];

type Entry = Record<string, PlainValue>;

/** A frames list of `n` frames interned before (a new list, its items read back from the memo). */
function deepStack(n: number): PlainValue[] {
  return Array.from({ length: n }, (_, i) => (i % 3 === 0 ? FRAMES_B[0] : FRAMES_A[i % 2]));
}

/** An entry of the quick loop's shape: PyTorch's keys, ints, a frames list read before (from the third on). */
function quick(i: number, extra: Entry = {}): Entry {
  return {
    action: i % 2 === 0 ? 'alloc' : 'free_completed',
    addr: 0x7f00_0000_0000 + 512 * (i >> 1),
    size: 512 * (1 + (i % 7)),
    stream: 0,
    time_us: 1_700_000_000_000_000 + i,
    frames: i % 3 === 0 ? FRAMES_A : FRAMES_B,
    ...extra,
  };
}

/**
 * Each entry the quick loop reads (true), or leaves to the reader's steps (false): every branch of its
 * shape test, between entries it reads.
 */
const CASES: [string, Entry, boolean][] = [
  ['keys in another order', { frames: FRAMES_A, size: 1024, addr: 2048, action: 'alloc', time_us: 5 }, true],
  ['blank user_metadata and compile_context', quick(1, { user_metadata: '', compile_context: 'N/A' }), true],
  ['compile_context empty', quick(2, { compile_context: '' }), true],
  ['no time_us (PyTorch 2.0)', { action: 'alloc', addr: 4096, size: 512, stream: 0, frames: FRAMES_B }, true],
  ['no frames', { action: 'alloc', addr: 8192, size: 512, time_us: 9 }, true],
  ['a stream', quick(3, { stream: 93_824_992_000_000 }), true],
  ['ints of every width', quick(4, { addr: 200, size: 70_000, time_us: 2 ** 31 - 1, stream: 2 ** 53 - 1 }), true],
  ['an oom without device_free', quick(5, { action: 'oom' }), true],
  ['a frames list of a block in segments, read back', quick(26, { frames: BLOCK_FRAMES }), true],
  ['a new frames list of frames read before', quick(16, { frames: [FRAMES_B[0], FRAMES_A[1]] }), true],
  ['a new frames list of one frame (APPEND)', quick(17, { frames: [FRAMES_A[1]] }), true],
  ['an empty frames list', quick(18, { frames: [] }), true],
  ['a new frames list of 2,500 frames (three batches)', quick(19, { frames: deepStack(2500) }), true],
  ['a new frame dict like one met before (PyTorch 2.0)', quick(20, { frames: [FRAMES_A[0], { filename: 'new.py', line: 1, name: 'f' }] }), true],
  ['new frame dicts, keys in another order, a line of 4 bytes', quick(22, { frames: [{ name: 'g', filename: 'new.py', line: 70_000 }, { line: 3, name: 'h', filename: 'new.py' }] }), true],
  ['new frame dicts alike but for their lines', quick(27, { frames: [{ filename: 'new.py', line: 8, name: 'f' }, { filename: 'new.py', line: 9, name: 'f' }, { filename: 'new.py', line: 8, name: 'f' }] }), true],
  ['a new frame dict of a frame never met', quick(23, { frames: [FRAMES_A[0], { filename: 'unique.py', line: 1, name: 'f' }] }), false],
  ['a new frame dict with another key', quick(24, { frames: [{ filename: 'new.py', line: 5, name: 'f', column: 3 }] }), false],
  ['a new frame dict of a line of 6 bytes', quick(25, { frames: [{ filename: 'new.py', line: 2 ** 40, name: 'f' }] }), false],
  ['user_metadata kept', quick(6, { user_metadata: 'phase=warmup' }), false],
  ['compile_context kept', quick(7, { compile_context: 'torch/_dynamo frame 3' }), false],
  ['user_metadata N/A is kept', quick(8, { user_metadata: 'N/A' }), false],
  ['device_free', quick(9, { action: 'oom', device_free: 1 << 20 }), false],
  ['another key', quick(10, { note: 1 }), false],
  ['a negative size', quick(11, { size: -512 }), false],
  ['an int of 2^53 (8 bytes)', quick(12, { time_us: 2 ** 53 }), false],
  ['an action PyTorch does not write', quick(13, { action: 'defragment' }), false],
  ['no action', { addr: 1, size: 2, frames: FRAMES_B }, false],
  ['a float', quick(14, { time_us: 1.5 }), false],
  ['a null', quick(15, { stream: null }), false],
];

/** The cases that keep the snapshot valid (the others are refused, by both paths alike). */
const INVALID = new Set(['a negative size', 'an int of 2^53 (8 bytes)', 'a float']);
const VALID = CASES.filter(([name]) => !INVALID.has(name));

const LEAD = 6;

/**
 * A new entry like `e`: the three of a kind are three dicts (as PyTorch writes them), and so are their
 * frames lists (an alloc's is its own), and so is a frame dict of `new.py` (PyTorch 2.0 writes a dict
 * per occurrence of a frame); a frame dict of `unique.py` is another frame each time (its line).
 */
function copy(e: Entry): Entry {
  const frames = e.frames;
  if (!Array.isArray(frames) || frames === BLOCK_FRAMES) return { ...e };
  const fresh = (f: PlainValue): PlainValue => {
    if (typeof f !== 'object' || f === null || Array.isArray(f) || f instanceof Uint8Array) return f;
    const filename = (f as Entry).filename;
    if (filename === 'new.py') return { ...(f as Entry) };
    if (filename === 'unique.py') return { ...(f as Entry), line: ++uniqueLine };
    return f;
  };
  return { ...e, frames: frames.map(fresh) };
}
let uniqueLine = 0;

/** One segment of one active block, whose frames list is BLOCK_FRAMES. */
const SEGMENTS: PlainValue[] = [
  {
    device: 0,
    address: 0x7e00_0000_0000,
    total_size: 2 << 20,
    stream: 0,
    segment_type: 'large',
    allocated_size: 2 << 20,
    active_size: 2 << 20,
    blocks: [{ size: 2 << 20, requested_size: 2 << 20, state: 'active_allocated', frames: BLOCK_FRAMES }],
  },
];

/**
 * A snapshot whose trace holds `LEAD` plain entries (the keys, action names and frames lists are
 * memoized, and the reader's caches hold them), then each of `entries` three times (the first memoizes
 * the strings it adds, the second reads them back, which caches their codes; the third is the one
 * tested), each followed by a plain entry.
 */
function pickleOf(entries: readonly Entry[]): Uint8Array {
  const trace: Entry[] = [];
  for (let i = 0; i < LEAD; i++) trace.push(quick(i));
  for (const e of entries) trace.push(copy(e), copy(e), copy(e), quick(trace.length));
  return encodePickle({ segments: SEGMENTS, device_traces: [trace] });
}

/** What the decoder counts toward the work budget, reading `pickle` with or without the trace fast path. */
function decoderWork(pickle: Uint8Array, fastPath: boolean): number {
  const sink = new TraceSink(new FrameTable(WorkBudget.unlimited()), pickle.length);
  const decoder = new PickleDecoder({ onAppend: sink.onAppend, ...(fastPath ? { entries: new TraceEntryReader(sink) } : {}) });
  decoder.feed(pickle);
  decoder.finish();
  return decoder.work;
}

/** How each entry was written, in order: 'q' by the quick loop, 's' by the reader's steps, 'g' by the general machine. */
function pathsOf(read: () => unknown): string {
  let paths = '';
  const spies = (
    [
      ['pushNumbers', 'q'],
      ['pushEntry', 's'],
      ['pushFields', 'g'],
    ] as const
  ).map(([name, letter]) => {
    const original: unknown = Reflect.get(TraceColumns.prototype, name);
    return mock.method(TraceColumns.prototype, name, function (this: TraceColumns, ...args: unknown[]) {
      paths += letter;
      return Reflect.apply(original as (...a: unknown[]) => unknown, this, args);
    });
  });
  try {
    outcome(read);
  } finally {
    for (const spy of spies) spy.mock.restore();
  }
  return paths;
}

/** The snapshot read, or the error it is refused with. */
function outcome(read: () => unknown): unknown {
  try {
    return read();
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
}

describe('trace quick loop', () => {
  for (const [name, entry, quickly] of CASES) {
    it(`${name}: ${quickly ? 'read by the quick loop' : 'left to the steps'}, as the general machine reads it`, () => {
      const pickle = pickleOf([entry]);
      const paths = pathsOf(() => readWhole(pickle));
      assert.deepStrictEqual(outcome(() => readWhole(pickle)), outcome(() => readInChunks(pickle, pickle.length, { fastPath: false })));
      assert.equal(decoderWork(pickle, true), decoderWork(pickle, false), 'the same work counted');
      // The steps read the first four plain entries (each action name is first read back from the memo
      // in the third and the fourth, which caches its code); the quick loop reads the plain entries after
      // them. The tested entry is the third of its kind.
      assert.equal(paths.slice(0, LEAD), 'ssssqq', paths);
      assert.equal(paths[LEAD + 2], quickly ? 'q' : 's', paths);
      assert.equal(paths[LEAD + 3], 'q', paths);
    });
  }

  it('every case in one trace, cut into chunks of every size up to 97 bytes, reads as the general machine does', () => {
    const pickle = pickleOf(VALID.map(([, e]) => e));
    const expected = readInChunks(pickle, pickle.length, { fastPath: false });
    assert.equal(expected.traces[0].length, LEAD + 4 * VALID.length);
    for (let chunk = 1; chunk <= 97; chunk++) assert.deepStrictEqual(readInChunks(pickle, chunk), expected, `chunks of ${chunk}`);
    // Without stacks, the traces (every stack STACK_NOT_READ); the frame and stack tables hold only what
    // the segments name, which each path fills in its own way (see snapshotReaderStacks.test.ts).
    const unread = readInChunks(pickle, 64, { stacks: false });
    assert.deepStrictEqual(unread.traces, readInChunks(pickle, pickle.length, { fastPath: false, stacks: false }).traces);
    assert.ok(unread.traces[0].stack.every((s) => s === STACK_NOT_READ));
    const paths = pathsOf(() => readWhole(pickle));
    assert.ok(paths.split('q').length - 1 > VALID.length, paths);
  });

  it('a window of the trace keeps what the general machine keeps', () => {
    const pickle = pickleOf(VALID.map(([, e]) => e));
    const window = { axis: 'event', from: 7, to: 18 } as const;
    assert.deepStrictEqual(readInChunks(pickle, 50, { window }), readInChunks(pickle, pickle.length, { fastPath: false, window }));
  });
});

describe('trace quick loop on PyTorch files', { skip: corpusMissing }, () => {
  // As PyTorch 2.x writes them: every alloc's frames list its own, frame dicts new where a frame is first
  // met, a new 'N/A' for `compile_context` in every entry, '' for `user_metadata` read back.
  const file = corpusFiles().find((f) => f.endsWith('wedsonlin-cs336-medium-512-training.pickle'));
  it('reads nearly every entry of a real snapshot, to the general machine\'s snapshot', { skip: file === undefined }, () => {
    const pickle = readFileSync(file!);
    const paths = pathsOf(() => readWhole(pickle));
    const quickly = paths.split('q').length - 1;
    assert.equal(paths.length, 22_332);
    assert.ok(quickly / paths.length > 0.9, `${quickly} of ${paths.length} entries by the quick loop`);
    assert.deepStrictEqual(readWhole(pickle), readInChunks(pickle, pickle.length, { fastPath: false }));
    assert.equal(decoderWork(pickle, true), decoderWork(pickle, false), 'the same work counted');
  });
});
