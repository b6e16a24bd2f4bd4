/**
 * The decoder fed in chunks: every hand-checked pickle at every chunk size from 1 byte to its whole
 * length (so every opcode, and every argument of every opcode, is cut by a chunk's end somewhere),
 * checked against decoding the whole buffer at once, and an all-opcodes pickle checked against CPython.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { decodePickle, PickleDecoder, type PyValue } from '../../../../src/engine/pickle/decoder';
import { PickleError } from '../../../../src/engine/pickle/errors';
import { feedInChunks } from '../../../helpers/chunkedRead';
import { bytes, ERROR_CASES, FIXTURES, hex } from '../../../helpers/pickleFixtures';

/** Feeds `data` in chunks of `size` bytes (each in a fresh buffer that is then overwritten, as a reader reuses one). */
function decodeInChunks(data: Uint8Array, size: number): PyValue {
  return feedInChunks(new PickleDecoder(), data, size);
}

function outcome(run: () => PyValue): { value: PyValue } | { code: string; offset: number; message: string } {
  try {
    return { value: run() };
  } catch (e) {
    assert.ok(e instanceof PickleError, `expected a PickleError, got ${String(e)}`);
    return { code: e.code, offset: e.offset, message: e.message };
  }
}

/** Every accepted opcode with an argument of each width, plus memo traffic across chunk ends; CPython reads it. */
function allOpcodes(): Uint8Array {
  const u32 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff];
  const u64 = (n: number) => [...u32(n), 0, 0, 0, 0];
  const long = 'y'.repeat(300);
  return bytes(
    [0x80, 4],
    ']', [0x94], // EMPTY_LIST MEMOIZE
    '(',
    'N', [0x88, 0x89], // None True False
    'K', [7], 'M', [0x34, 0x12], 'J', u32(0xfffffffe), // BININT1 BININT2 BININT (-2)
    [0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1], // LONG1 2^64
    [0x8b, ...u32(3), 0xff, 0xff, 0x7f], // LONG4
    'I42\n', 'I01\n', 'L-7L\n', 'F2.5\n', 'G', [0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18], // INT, bool, LONG, FLOAT, BINFLOAT
    [0x8c, 3], 'abc', [0x94], // SHORT_BINUNICODE MEMOIZE
    'X', u32(long.length), long, 'q', [9], // BINUNICODE BINPUT 9
    [0x8d, ...u64(5)], 'caf\xc3\xa9', // BINUNICODE8 (UTF-8)
    'h', [9], 'j', u32(1), 'g9\n', // BINGET LONG_BINGET GET
    'Vuni\\u00e9\n', "S'str\\n'\n", // UNICODE STRING
    'U', [2], 'hi', 'T', u32(3), 'abc', // SHORT_BINSTRING BINSTRING
    'C', [2], [1, 2], 'B', u32(3), [3, 4, 5], [0x8e, ...u64(2)], [6, 7], [0x96, ...u64(1)], [8], // bytes
    'p100\n', 'r', u32(200), // PUT LONG_BINPUT
    [0x8f, 0x94], '(', 'K', [1], 'K', [2], [0x90], // EMPTY_SET MEMOIZE MARK ... ADDITEMS
    '(', 'K', [3], [0x91], // FROZENSET
    '(', 'K', [1], 'K', [2], 'l', '(', 'K', [1], 't', ')', // LIST TUPLE EMPTY_TUPLE
    'K', [1], [0x85], 'K', [1], 'K', [2], [0x86], 'K', [1], 'K', [2], 'K', [3], [0x87], // TUPLE1-3
    '(', [0x8c, 1], 'k', 'K', [1], 'd', // DICT
    '}', [0x8c, 1], 'a', 'K', [1], 's', '(', [0x8c, 1], 'b', 'K', [2], [0x8c, 1], 'c', 'K', [3], 'u', // SETITEM SETITEMS
    'K', [5], '2', '0', '(', 'K', [9], '1', '(', '0', // DUP POP POP_MARK POP-of-a-MARK
    'e', // APPENDS
    ']', 'K', [1], 'a', 'a', // EMPTY_LIST APPEND APPEND
    '.',
  );
}

describe('PickleDecoder in chunks', () => {
  for (const [name, text] of Object.entries(FIXTURES)) {
    test(`${name}: every chunk size gives the whole-buffer value`, () => {
      const data = hex(text);
      const whole = decodePickle(data);
      for (let size = 1; size <= data.length; size++) assert.deepStrictEqual(decodeInChunks(data, size), whole, `chunks of ${size}`);
    });
  }

  for (const [name, data, code, offset] of ERROR_CASES) {
    test(`${name}: every chunk size gives the same error at the same byte`, () => {
      const whole = outcome(() => decodePickle(data));
      assert.deepStrictEqual(whole, outcome(() => decodePickle(data)));
      assert.ok('code' in whole && whole.code === code && whole.offset === offset, JSON.stringify(whole));
      for (let size = 1; size <= data.length; size++) assert.deepStrictEqual(outcome(() => decodeInChunks(data, size)), whole, `chunks of ${size}`);
    });
  }

  test('every opcode, cut at every byte: the value CPython loads', () => {
    const data = allOpcodes();
    const canonical = (v: PyValue): unknown =>
      v instanceof Set ? { set: [...v].map(canonical).sort() } : v instanceof Uint8Array ? { bytes: [...v] } : Array.isArray(v) ? v.map(canonical) : typeof v === 'bigint' ? { big: String(v) } : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canonical(x)])) : v;
    const python = execFileSync(
      'python3',
      [
        '-c',
        `import json, pickle, sys
def c(v):
    if isinstance(v, (set, frozenset)): return {'set': sorted(c(x) for x in v)}
    if isinstance(v, (bytes, bytearray)): return {'bytes': list(v)}
    if isinstance(v, (list, tuple)): return [c(x) for x in v]
    if isinstance(v, dict): return {k: c(x) for k, x in v.items()}
    if isinstance(v, bool) or v is None or isinstance(v, (str, float)): return v
    if isinstance(v, int): return v if abs(v) <= 2**53 - 1 else {'big': str(v)}
    raise TypeError(type(v))
print(json.dumps(c(pickle.loads(bytes.fromhex(sys.argv[1])))))`,
        Buffer.from(data).toString('hex'),
      ],
      { encoding: 'utf8' },
    );
    const expected = JSON.parse(python) as unknown;
    assert.deepStrictEqual(canonical(decodePickle(data)), expected);
    for (let size = 1; size <= data.length; size++) assert.deepStrictEqual(canonical(decodeInChunks(data, size)), expected, `chunks of ${size}`);
  });

  test('a string of 3 MB fed a byte at a time, and in 1000-byte chunks, stitches without rereading', () => {
    const text = 'z'.repeat(3_000_000);
    const data = bytes([0x80, 4, 0x8d, ...new Uint8Array(new BigUint64Array([BigInt(text.length)]).buffer)], text, '.');
    const started = performance.now();
    assert.equal(decodeInChunks(data, 1000), text);
    assert.equal(decodeInChunks(data, 1), text);
    assert.ok(performance.now() - started < 10_000, 'feeding bytes one at a time stays linear');
  });

  test('bytes after STOP are not needed: the decoder stops asking for more', () => {
    const decoder = new PickleDecoder();
    decoder.feed(bytes('K', [1], '.'));
    assert.equal(decoder.wantsMore, false);
    decoder.feed(bytes('garbage\xff'));
    assert.equal(decoder.finish(), 1);
  });
});
