import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { corpusDir } from '../../../helpers/corpus';
import { decodePickle } from '../../../../src/engine/pickle/decoder';
import { PickleError, type PickleErrorCode } from '../../../../src/engine/pickle/errors';
import { seededRandom as random } from '../../../../src/engine/workloads/catalog';

/** Real snapshots; the fuzzing falls back to Python-made pickles where the folder is absent. */
const CORPUS_DIR = corpusDir;
const CORPUS_FILES = existsSync(CORPUS_DIR) ? readdirSync(CORPUS_DIR).filter((name) => name.endsWith('.pickle')).sort() : [];

const ERROR_CODES: readonly PickleErrorCode[] = ['truncated', 'bad-opcode', 'forbidden', 'corrupt', 'unsupported-protocol', 'unsupported', 'too-large'];

function bytes(...parts: (string | number[] | Uint8Array)[]): Uint8Array {
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))));
}

function python(script: string, ...args: string[]): string {
  return execFileSync('python3', ['-c', script, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
}

/** The PickleError that decoding `data` throws; fails when it decodes or throws anything else. */
function decodeError(data: Uint8Array): PickleError {
  try {
    decodePickle(data);
  } catch (error) {
    assert.ok(error instanceof PickleError, `expected a PickleError, got ${String(error)}`);
    return error;
  }
  assert.fail('the pickle decoded');
}

/** Decodes `data`, requiring success or a well-formed PickleError. */
function decodeOrReject(data: Uint8Array, label: string): void {
  try {
    decodePickle(data);
  } catch (error) {
    if (!(error instanceof PickleError)) {
      assert.fail(`${label}: ${error instanceof Error ? error.stack : String(error)}`);
    }
    assert.ok(ERROR_CODES.includes(error.code), `${label}: unknown code ${error.code}`);
    assert.ok(Number.isInteger(error.offset) && error.offset >= 0 && error.offset <= data.length, `${label}: offset ${error.offset}`);
  }
}

describe('pickles that would run code are refused', () => {
  const marker = path.join(tmpdir(), `vram-lens-pickle-marker-${process.pid}-${Date.now()}`);
  const script = `
import collections, json, os, pickle, sys
class System:
    def __reduce__(self): return (os.system, ('touch ' + sys.argv[1],))
class Eval:
    def __reduce__(self): return (eval, ('1 + 1',))
print(json.dumps({
    'system protocol 0': pickle.dumps(System(), 0).hex(),
    'system protocol 2': pickle.dumps(System(), 2).hex(),
    'system protocol 4': pickle.dumps(System(), 4).hex(),
    'deque protocol 2': pickle.dumps(collections.deque([1]), 2).hex(),
    'deque protocol 5': pickle.dumps(collections.deque([1]), 5).hex(),
    'eval protocol 4': pickle.dumps(Eval(), 4).hex(),
    'system name': os.system.__module__ + '.system',
}))
`;
  const made = JSON.parse(python(script, marker)) as Record<string, string>;

  for (const protocol of [0, 2, 4]) {
    test(`os.system, protocol ${protocol}${protocol === 4 ? ' (STACK_GLOBAL)' : ' (GLOBAL)'}`, () => {
      rmSync(marker, { force: true });
      const error = decodeError(Buffer.from(made[`system protocol ${protocol}`], 'hex'));
      assert.equal(error.code, 'forbidden');
      assert.ok(error.message.startsWith(`not a memory snapshot: the pickle constructs ${made['system name']}`), error.message);
      assert.equal(existsSync(marker), false, 'the payload never ran');
    });
  }

  for (const [name, expected] of [
    ['deque protocol 2', 'collections.deque'],
    ['deque protocol 5', 'collections.deque'],
    ['eval protocol 4', 'builtins.eval'],
  ]) {
    test(name, () => {
      const error = decodeError(Buffer.from(made[name], 'hex'));
      assert.equal(error.code, 'forbidden');
      assert.ok(error.message.startsWith(`not a memory snapshot: the pickle constructs ${expected} (at byte `), error.message);
    });
  }

  const handMade: [string, Uint8Array, string, number][] = [
    ['INST', bytes('(iposix\nsystem\n.'), 'constructs posix.system', 1],
    ['GLOBAL', bytes([0x80, 2], 'ccollections\ndeque\n)R.'), 'constructs collections.deque', 2],
    ['STACK_GLOBAL of non-strings', bytes([0x80, 4], 'NN\x93.'), 'imports a global (STACK_GLOBAL)', 4],
    ['REDUCE', bytes([0x80, 2], 'N)R.'), 'calls an object (REDUCE)', 4],
    ['BUILD', bytes([0x80, 2], '}}b.'), 'sets the state of an object (BUILD)', 4],
    ['OBJ', bytes('(No.'), 'constructs an object (OBJ)', 2],
    ['NEWOBJ', bytes([0x80, 2], 'N)\x81.'), 'constructs an object (NEWOBJ)', 4],
    ['NEWOBJ_EX', bytes([0x80, 4], 'N)}\x92.'), 'constructs an object (NEWOBJ_EX)', 5],
    ['EXT1', bytes([0x80, 2, 0x82, 1], '.'), 'copyreg extension registry', 2],
    ['EXT2', bytes([0x80, 2, 0x83, 1, 0], '.'), 'copyreg extension registry', 2],
    ['EXT4', bytes([0x80, 2, 0x84, 1, 0, 0, 0], '.'), 'copyreg extension registry', 2],
    ['PERSID', bytes('Pid\n.'), 'persistent object', 0],
    ['BINPERSID', bytes([0x80, 2], 'NQ.'), 'persistent object', 3],
  ];
  for (const [name, data, phrase, offset] of handMade) {
    test(name, () => {
      const error = decodeError(data);
      assert.equal(error.code, 'forbidden');
      assert.equal(error.offset, offset);
      assert.ok(error.message.startsWith('not a memory snapshot: the pickle '), error.message);
      assert.ok(error.message.includes(phrase), error.message);
    });
  }
});

describe('declared lengths are checked before allocating', () => {
  const huge8 = [0, 0, 0, 0, 1, 0, 0, 0]; // 4 GiB
  const cases: [string, Uint8Array][] = [
    ['BINBYTES8', bytes([0x80, 4, 0x8e], huge8, 'abc.')],
    ['BINUNICODE8', bytes([0x80, 4, 0x8d], huge8, 'abc.')],
    ['BYTEARRAY8', bytes([0x80, 5, 0x96], huge8, 'abc.')],
    ['BINUNICODE8 near 2^64', bytes([0x80, 4, 0x8d], [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], 'abc.')],
    ['FRAME', bytes([0x80, 4, 0x95], huge8, 'N.')],
    ['BINBYTES', bytes([0x80, 3], 'B', [0xff, 0xff, 0xff, 0xff], 'abc.')],
    ['BINUNICODE', bytes('X', [0xff, 0xff, 0xff, 0xff], 'abc.')],
    ['BINSTRING', bytes('T', [0xff, 0xff, 0xff, 0x7f], 'abc.')],
  ];
  for (const [name, data] of cases) {
    test(name, () => {
      const started = performance.now();
      const error = decodeError(data);
      assert.equal(error.code, 'truncated');
      assert.ok(performance.now() - started < 1000);
    });
  }

  test('memo keys far beyond the input need no dense storage', () => {
    const data = bytes([0x80, 2], 'N', 'r', [0xff, 0xff, 0xff, 0xfe], 'j', [0xff, 0xff, 0xff, 0xfe], '\x86.');
    assert.deepStrictEqual(decodePickle(data), [null, null]);
  });
});

/** A damaged copy of `seed`: overwritten, flipped, inserted or deleted bytes, a cut, a length bomb or noise. */
function mutate(seed: Uint8Array, next: () => number): Uint8Array {
  const below = (n: number) => Math.floor(next() * n);
  const data = Uint8Array.from(seed);
  switch (below(7)) {
    case 0:
      for (let i = 1 + below(4); i > 0; i--) data[below(data.length)] = below(256);
      return data;
    case 1:
      for (let i = 1 + below(4); i > 0; i--) data[below(data.length)] ^= 1 << below(8);
      return data;
    case 2:
      return data.subarray(0, below(data.length));
    case 3: {
      const at = below(data.length + 1);
      const inserted = Uint8Array.from({ length: 1 + below(8) }, () => below(256));
      return bytes(data.subarray(0, at), inserted, data.subarray(at));
    }
    case 4: {
      const at = below(data.length);
      return bytes(data.subarray(0, at), data.subarray(at + 1 + below(16)));
    }
    case 5: {
      // Large values where lengths, memo keys or counts may sit.
      const at = below(Math.max(1, data.length - 8));
      data.fill(next() < 0.5 ? 0xff : 0x7f, at, at + 1 + below(8));
      return data;
    }
    default: {
      const noise = Uint8Array.from({ length: below(64) }, () => below(256));
      return next() < 0.5 ? noise : bytes([0x80, 2 + below(4)], noise);
    }
  }
}

describe('fuzzing: damaged input decodes or throws PickleError', () => {
  const seeds: [string, Uint8Array][] = CORPUS_FILES.map((name) => [name, readFileSync(path.join(CORPUS_DIR, name))] as [string, Uint8Array])
    .filter(([, data]) => data.length <= 120_000);
  const generated = JSON.parse(
    python(`
import json, pickle
value = {'segments': [{'address': 2**47 + i, 'blocks': [{'size': 512, 'state': 'active_allocated'}] * 3, 'frames': [{'name': 'f', 'filename': 'a.py', 'line': i}]} for i in range(20)],
         'device_traces': [[{'action': 'alloc', 'addr': 2**64 - i, 'size': 1.5, 'tags': {1, 2}, 'raw': b'xy', 'pair': (i, 'x')} for i in range(20)]]}
print(json.dumps([pickle.dumps(value, p).hex() for p in range(6)]))
`),
  ) as string[];
  generated.forEach((hex, protocol) => seeds.push([`generated protocol ${protocol}`, Buffer.from(hex, 'hex')]));

  for (const [name, seed] of seeds) {
    test(name, () => {
      const next = random(0x5eed ^ seed.length);
      const mutations = seed.length > 50_000 ? 600 : 1500;
      for (let i = 0; i < mutations; i++) decodeOrReject(mutate(seed, next), `${name} mutation ${i}`);
    });
  }

  test('random buffers', () => {
    const next = random(42);
    for (let i = 0; i < 5000; i++) {
      const data = Uint8Array.from({ length: Math.floor(next() * 200) }, () => Math.floor(next() * 256));
      decodeOrReject(data, `buffer ${i}`);
    }
  });

  test('every truncation of a snapshot is reported as truncated', () => {
    const smallest = seeds.reduce((best, entry) => (entry[1].length > 2_000 && (best === null || entry[1].length < best[1].length) ? entry : best), null as [string, Uint8Array] | null);
    assert.ok(smallest !== null);
    const [, seed] = smallest;
    assert.equal(seed[seed.length - 1], 0x2e, 'ends with STOP');
    for (let length = 0; length < seed.length; length++) {
      const error = decodeError(seed.subarray(0, length));
      assert.equal(error.code, 'truncated', `cut at ${length}: ${error.message}`);
      assert.ok(error.offset <= length);
    }
  });
});
