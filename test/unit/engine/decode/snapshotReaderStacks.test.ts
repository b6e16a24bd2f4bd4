/**
 * The snapshot reader without the trace's stacks (`ReadOptions.stacks` false, for the what-if): every
 * corpus file, in odd-sized chunks (so frames lists are cut everywhere, also inside the run of frame
 * dicts it steps over), gives the snapshot read with stacks, less the stacks: every trace event's stack
 * is STACK_NOT_READ, everything else (columns, segments and their blocks' frames, settings) is the same,
 * and what is refused is refused with the same message.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { RestartWithoutFastPath } from '../../../../src/engine/decode/load';
import { encodePickle, type PlainValue } from '../../../../src/engine/pickle/encoder';
import type { Snapshot } from '../../../../src/engine/snapshot/model';
import { STACK_NOT_READ } from '../../../../src/engine/snapshot/model';
import { readInChunks } from '../../../helpers/chunkedRead';
import { corpusFiles, corpusMissing } from '../../../helpers/corpus';

function read(pickle: Uint8Array, chunk: number, fastPath: boolean, stacks: boolean): Snapshot {
  return readInChunks(pickle, chunk, { fastPath, stacks });
}

function readChunked(pickle: Uint8Array, chunk: number, stacks: boolean): Snapshot {
  try {
    return read(pickle, chunk, true, stacks);
  } catch (e) {
    if (!(e instanceof RestartWithoutFastPath)) throw e;
    return read(pickle, chunk, false, stacks);
  }
}

/** `s` with its frame and stack tables left out and each segment's and block's stack as the frames it names. */
function framesByValue(s: Snapshot): Snapshot {
  const framesOf = (stack: number) => (stack < 0 ? stack : s.stacks[stack].map((f) => s.frames[f]));
  return {
    ...s,
    frames: undefined,
    stacks: undefined,
    segments: s.segments.map((g) => ({ ...g, stack: framesOf(g.stack), blocks: g.blocks.map((b) => ({ ...b, stack: framesOf(b.stack) })) })),
  } as unknown as Snapshot;
}

/**
 * What a snapshot read without stacks must equal: the trace stacks unread, the frame and stack tables
 * left out (they hold only what the segments name), each block's stack as the frames it names.
 */
function lessStacks(s: Snapshot): unknown {
  return {
    ...framesByValue(s),
    stacksNotRead: s.traces.length > 0 ? true : undefined,
    traces: s.traces.map((t) => ({ ...t, stack: new Int32Array(t.length).fill(STACK_NOT_READ) })),
  };
}

/** A snapshot read without stacks, in the same shape (its own block stacks as frames). */
function unread(s: Snapshot): unknown {
  return { ...framesByValue(s), stacksNotRead: s.stacksNotRead };
}

function outcome(run: () => unknown): unknown {
  try {
    return run();
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
}

describe('SnapshotReader without stacks', { skip: corpusMissing }, () => {
  for (const file of corpusFiles()) {
    const name = file.split('/').pop()!;
    it(`${name}: in chunks of 1,009, 65,537 and 1 MiB + 7 bytes, the snapshot with stacks less its stacks`, () => {
      const pickle = readFileSync(file);
      const expected = lessStacks(read(pickle, pickle.length, false, true));
      for (const chunk of [1009, 65_537, (1 << 20) + 7]) assert.deepStrictEqual(unread(readChunked(pickle, chunk, false)), expected, `chunks of ${chunk}`);
    });
  }

  it('a small corpus file in chunks of every size from 1 to 300 bytes', () => {
    const file = corpusFiles().find((f) => f.endsWith('magma27-cs336-user-metadata.pickle')) ?? corpusFiles()[0];
    const pickle = readFileSync(file);
    const expected = lessStacks(read(pickle, pickle.length, false, true));
    for (let chunk = 1; chunk <= 300; chunk += chunk < 40 ? 1 : 13) assert.deepStrictEqual(unread(readChunked(pickle, chunk, false)), expected, `chunks of ${chunk}`);
  });
});

describe('without stacks, frames are still checked', () => {
  const frames = [
    { filename: '/w/train.py', line: 3, name: 'step' },
    { filename: '/w/model.py', line: 9, name: 'forward' },
  ];
  const entry = (i: number, f: PlainValue = frames): { [key: string]: PlainValue } => ({ action: i % 2 === 0 ? 'alloc' : 'free_completed', addr: 4096 * (i >> 1), size: 512, stream: 0, time_us: 1000 + i, frames: f });
  const bad = { filename: 'f', line: 'x', name: 'g' };
  const cases: [string, PlainValue][] = [
    ['frames lists that share frame dicts, one list shared by a block', (() => {
      const shared = [...frames];
      return { device_traces: [Array.from({ length: 30 }, (_, i) => entry(i, i % 3 === 0 ? shared : [...frames, frames[i % 2]]))], segments: [{ device: 0, address: 0, total_size: 4096, blocks: [{ size: 512, state: 'active_allocated', frames: shared }] }] };
    })()],
    ['a list holding something other than a frame dict', { device_traces: [[entry(0), entry(1, [frames[0], 'not a frame', frames[1]])]] }],
    ['a frame whose line is text, first in a list', { device_traces: [[entry(0, [bad]), entry(1)]] }],
    ['a frame whose line is text, read back from the memo after good frames', { device_traces: [[entry(0, [...frames]), entry(1, [frames[0], frames[1], bad]), entry(2, [bad, frames[0]])]] }],
    ['a frame whose line is text, memoized under another key and read back by the trace', { other: [bad], device_traces: [[entry(0), entry(1, [frames[0], bad])]] }],
    ['a frame whose line is text, memoized in the segments and read back by the trace', { segments: [{ device: 0, address: 0, total_size: 4096, blocks: [{ size: 512, state: 'inactive', frames: [bad] }] }], device_traces: [[entry(0), entry(1, [frames[0], bad])]] }],
  ];
  for (const [name, value] of cases) {
    it(`${name}: the same snapshot less its stacks (or the same error), in chunks of every size from 1 to 64 and whole`, () => {
      const pickle = encodePickle(value);
      const withStacks = outcome(() => read(pickle, pickle.length, false, true));
      const expected = typeof withStacks === 'string' ? withStacks : lessStacks(withStacks as Snapshot);
      assert.deepStrictEqual(outcome(() => unread(readChunked(pickle, pickle.length, false))), expected, 'whole');
      for (let chunk = 1; chunk <= 64; chunk++) assert.deepStrictEqual(outcome(() => unread(readChunked(pickle, chunk, false))), expected, `chunks of ${chunk}`);
    });
  }
});
