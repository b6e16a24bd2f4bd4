/**
 * The pickle encoder, judged by CPython's own `pickle` (an independent reader): every value comes
 * back equal, shared lists come back as one object, and no opcode that imports or calls is written.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { PlainValue } from '../../../../src/engine/pickle/encoder';
import { encodePickle } from '../../../../src/engine/pickle/encoder';

/** Loads the pickle in python3 and prints what the test asks about it as JSON. */
function python(bytes: Uint8Array, expression: string): unknown {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'vram-lens-pickle-')), 'value.pickle');
  writeFileSync(file, bytes);
  const script = [
    'import json, pickle, pickletools, sys',
    'data = open(sys.argv[1], "rb").read()',
    'ops = {op.name for op, _, _ in pickletools.genops(data)}',
    'v = pickle.loads(data)',
    `print(json.dumps(${expression}, default=repr))`,
  ].join('\n');
  return JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' }));
}

describe('pickle encoder', () => {
  it('writes every plain value so that Python reads it back equal', () => {
    const value: PlainValue = {
      small: [0, 1, 255, 256, 65535, 65536, -1, -129, 2 ** 31 - 1, -(2 ** 31)],
      large: [2 ** 31, -(2 ** 31) - 1, 2 ** 53 - 1, 140_737_488_355_328],
      floats: [0.5, -2.25, 1e-300, 1.7976931348623157e308],
      text: ['', 'ascii', 'ünïcödé', '😀', 'x'.repeat(300)],
      flags: [true, false, null],
      nested: { empty: {}, list: [], deep: [[[{ a: [1] }]]] },
    };
    assert.deepEqual(python(encodePickle(value), 'v'), value);
  });

  it('writes integers beyond 2^53 exactly (PyTorch writes 2^64-1 as a line number)', () => {
    const bytes = encodePickle([18446744073709551615n, -(2n ** 100n), 12n]);
    assert.deepEqual(python(bytes, '[str(x) for x in v]'), ['18446744073709551615', String(-(2n ** 100n)), '12']);
  });

  it('keeps a shared list shared (as PyTorch shares a frames list between entries)', () => {
    const frames = [{ filename: '/a.py', line: 3, name: 'f' }];
    const bytes = encodePickle({ trace: [{ frames }, { frames }], block: { frames } });
    assert.deepEqual(python(bytes, "[v['trace'][0]['frames'] is v['trace'][1]['frames'], v['trace'][0]['frames'] is v['block']['frames']]"), [true, true]);
  });

  it('holds more than a thousand items per list and dict (batched APPENDS / SETITEMS)', () => {
    const list = Array.from({ length: 2501 }, (_, i) => i);
    const dict = Object.fromEntries(list.map((i) => [`k${i}`, i]));
    assert.deepEqual(python(encodePickle({ list, dict }), "[len(v['list']), v['list'][-1], len(v['dict']), v['dict']['k2500']]"), [2501, 2500, 2501, 2500]);
  });

  it('uses protocol 4 and no opcode that imports, builds or calls', () => {
    const ops = python(encodePickle({ a: [1, 'x', 2.5, null] }), 'sorted(ops)') as string[];
    assert.ok(ops.includes('PROTO'));
    for (const forbidden of ['GLOBAL', 'STACK_GLOBAL', 'REDUCE', 'BUILD', 'INST', 'OBJ', 'NEWOBJ', 'NEWOBJ_EX']) assert.ok(!ops.includes(forbidden), forbidden);
    assert.equal(encodePickle(null)[1], 4);
  });
});
