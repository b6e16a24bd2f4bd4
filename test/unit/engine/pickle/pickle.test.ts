import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { corpusDir, corpusMissing } from '../../../helpers/corpus';
import { decodePickle, isPyDict, PROGRESS_INTERVAL_BYTES, PY_NON_STRING_KEYS, type PyDict, type PyValue } from '../../../../src/engine/pickle/decoder';
import { PickleError, type PickleErrorCode } from '../../../../src/engine/pickle/errors';
import { bytes, ERROR_CASES, FIXTURES, hex } from '../../../helpers/pickleFixtures';

/** Real snapshots; tests that need them are skipped where the folder is absent. */
const CORPUS_DIR = corpusDir;
const CORPUS_FILES = existsSync(CORPUS_DIR) ? readdirSync(CORPUS_DIR).filter((name) => name.endsWith('.pickle')).sort() : [];

function fixture(name: keyof typeof FIXTURES): PyValue {
  return decodePickle(hex(FIXTURES[name]));
}

function asList(value: PyValue | undefined): PyValue[] {
  assert.ok(Array.isArray(value), `expected an array, got ${typeof value}`);
  return value;
}

function asDict(value: PyValue | undefined): PyDict {
  assert.ok(isPyDict(value), `expected a dict, got ${typeof value}`);
  return value;
}

function scalarText(value: PyValue | undefined): string {
  assert.ok(typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint', `expected a scalar, got ${typeof value}`);
  return String(value);
}

function expectPickleError(data: Uint8Array, code: PickleErrorCode, offset?: number): PickleError {
  try {
    decodePickle(data);
  } catch (error) {
    assert.ok(error instanceof PickleError, `expected a PickleError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (offset !== undefined) assert.equal(error.offset, offset, error.message);
    assert.match(error.message, new RegExp(`at byte ${error.offset}\\)$`));
    return error;
  }
  assert.fail(`expected PickleError ${code}`);
}

const SCALARS: PyValue[] = [
  null, true, false, 0, 1, -1, 255, 256, 65535, 65536, -(2 ** 31), 2 ** 31 - 1, 2 ** 31,
  Number.MAX_SAFE_INTEGER, 2n ** 53n, -Number.MAX_SAFE_INTEGER, -(2n ** 53n), 2n ** 63n - 1n, -(2n ** 63n),
  18446744073709551615n, -(2n ** 70n), 1.5, -0, 1e300, 'ascii', '', 'caf\u00e9 \u20ac \u{1F600}', 'x'.repeat(60),
];

const CONTAINERS: PyValue = {
  list: [1, 2, 3],
  tuple0: [],
  tuple1: [1],
  tuple2: [1, 2],
  tuple3: [1, 2, 3],
  tuple4: [1, 2, 3, 4],
  dict: { a: 1, b: [null] },
  empty: {},
};

const STRINGS = ['a\\b\nc', 'caf\u00e9', '\u20ac\u{1F600}', '\\u0041', '\ud800', '\ufeffbom'];

describe('decodePickle values', () => {
  for (const protocol of [0, 1, 2, 3, 4, 5]) {
    test(`scalars, protocol ${protocol}`, () => {
      assert.deepStrictEqual(fixture(`scalarsP${protocol}` as keyof typeof FIXTURES), SCALARS);
    });
    test(`lists, tuples and dicts, protocol ${protocol}`, () => {
      assert.deepStrictEqual(fixture(`containersP${protocol}` as keyof typeof FIXTURES), CONTAINERS);
    });
  }

  test('ints beyond 2^53 are bigints, safe ones numbers', () => {
    const values = asList(fixture('scalarsP4'));
    assert.equal(values[13], Number.MAX_SAFE_INTEGER);
    assert.equal(values[14], 2n ** 53n);
    assert.equal(values[19], 18446744073709551615n);
    assert.equal(values[20], -(2n ** 70n));
    assert.deepStrictEqual(fixture('long4'), [2n ** 2100n, -(2n ** 2100n)]);
    assert.deepStrictEqual(fixture('textInts'), [true, false, 42, -7, 123, -18446744073709551615n, 5]);
    assert.ok(Object.is(decodePickle(bytes('I-0\n.')), 0), 'Python ints have no negative zero');
  });

  test('LONG1 boundaries', () => {
    const long1 = (body: number[]) => decodePickle(bytes([0x80, 2, 0x8a, body.length], body, '.'));
    assert.equal(long1([]), 0);
    assert.equal(long1([0xff]), -1);
    assert.equal(long1([0xff, 0xff, 0xff, 0xff, 0xff, 0x1f]), 2 ** 45 - 1);
    assert.equal(long1([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f]), Number.MAX_SAFE_INTEGER);
    assert.equal(long1([0, 0, 0, 0, 0, 0, 0x20]), 2n ** 53n);
    assert.equal(long1([1, 0, 0, 0, 0, 0, 0xe0]), -Number.MAX_SAFE_INTEGER);
    assert.equal(long1([0, 0, 0, 0, 0, 0, 0xe0]), -(2n ** 53n));
    assert.equal(long1([0, 0, 0, 0, 0, 0, 0, 0x80]), -(2n ** 63n));
    assert.equal(long1([5, 0, 0, 0, 0, 0, 0, 0, 0]), 5);
  });

  test('floats, binary and text', () => {
    const expected = [Infinity, -Infinity, NaN, -0, 0.1, 1e-300];
    assert.deepStrictEqual(fixture('floatsP0'), expected);
    assert.deepStrictEqual(fixture('floatsP1'), expected);
  });

  test('strings: UTF-8, raw-unicode-escape, surrogates, BOM, Latin-1 Python 2 strings', () => {
    assert.deepStrictEqual(fixture('stringsP0'), STRINGS);
    assert.deepStrictEqual(fixture('stringsP4'), [...STRINGS, 'y'.repeat(300)]);
    assert.deepStrictEqual(fixture('string'), ['abc', "it's\nAA\\q", '\u00e9\u00ff', 'xyz']);
    assert.deepStrictEqual(fixture('unicode8'), ['ab\u00e9', Uint8Array.from([1, 2])]);
  });

  test('bytes and bytearray are copied Uint8Arrays', () => {
    const big = new Uint8Array(300);
    for (let i = 1; i < 300; i += 2) big[i] = 0xff;
    assert.deepStrictEqual(fixture('bytes'), [new Uint8Array(0), Uint8Array.from([0x61, 0x62]), big]);
    const data = hex(FIXTURES.bytearray);
    const value = decodePickle(data);
    assert.deepStrictEqual(value, Uint8Array.from([0x78, 0x79, 0x7a]));
    assert.ok(value instanceof Uint8Array && value.buffer !== data.buffer);
    // A Buffer input still yields plain Uint8Arrays.
    const fromBuffer = decodePickle(Buffer.from(data));
    assert.equal(Object.getPrototypeOf(fromBuffer), Uint8Array.prototype);
  });

  test('sets and frozensets are Sets', () => {
    assert.deepStrictEqual(fixture('sets'), { set: new Set([1, 2, 3]), frozen: new Set(['a']), empty: new Set() });
  });

  for (const protocol of [0, 2, 4]) {
    test(`memoized objects stay shared, protocol ${protocol}`, () => {
      const value = asList(fixture(`sharedP${protocol}` as keyof typeof FIXTURES));
      assert.deepStrictEqual(value, [{ x: 1 }, { x: 1 }, [{ x: 1 }], [1], [1]]);
      assert.equal(value[0], value[1]);
      assert.equal(asList(value[2])[0], value[0]);
      assert.equal(value[3], value[4]);
    });
  }

  test('explicit and implicit memo keys', () => {
    const pair = asList(fixture('longMemo'));
    assert.equal(pair[0], pair[1]);
    assert.deepStrictEqual(fixture('mixedMemo'), [10, 11, 12]);
    // PUT 1 then MEMOIZE twice: len(memo) stays 1, so both MEMOIZEs overwrite key 1.
    assert.equal(fixture('mixedMemoOverwrite'), 12);
  });

  test('DUP, POP (also of a MARK) and POP_MARK', () => {
    assert.deepStrictEqual(fixture('dupPop'), [1, 3]);
  });

  test('a __proto__ key is an own property and pollutes nothing', () => {
    const dict = asDict(fixture('protoKey'));
    assert.equal(Object.getPrototypeOf(dict), Object.prototype);
    assert.deepStrictEqual(Object.keys(dict), ['__proto__', 'a']);
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(dict, '__proto__')?.value, { polluted: true });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((dict as Record<string, unknown>).polluted, undefined);
  });

  test('non-string dict keys go to the PY_NON_STRING_KEYS map', () => {
    const dict = asDict(fixture('nonStringKeys'));
    assert.deepStrictEqual(Object.keys(dict).sort(), ['1', 'x']);
    assert.equal(dict.x, 'str');
    assert.equal(dict['1'], 'str one');
    const others = dict[PY_NON_STRING_KEYS];
    assert.ok(others instanceof Map);
    assert.equal(others.size, 5);
    assert.equal(others.get(1), 'int');
    assert.equal(others.get(null), 'none');
    assert.equal(others.get(2n ** 70n), 'big');
    assert.equal(others.get(1.5), 'float');
    const tupleKey = [...others.keys()].find((key) => Array.isArray(key));
    assert.deepStrictEqual(tupleKey, [1, 2]);
    assert.equal(others.get(tupleKey ?? null), 'tuple');
    // pickle.dumps({10: 's', 'k': 1}, 0): DICT-less protocol 0 form with SETITEM
    const textDict = asDict(decodePickle(hex('286470300a4931300a56730a70310a73566b0a70320a49310a732e')));
    assert.deepStrictEqual(Object.entries(textDict), [['k', 1]]);
    assert.equal(textDict[PY_NON_STRING_KEYS]?.get(10), 's');
  });

  test('deep nesting needs no recursion', () => {
    const depth = 100_000;
    const viaAppend = decodePickle(bytes([0x80, 2], ']'.repeat(depth), 'a'.repeat(depth - 1), '.'));
    const viaMark = decodePickle(bytes([0x80, 2], '('.repeat(depth), 'l'.repeat(depth), '.'));
    for (const root of [viaAppend, viaMark]) {
      let level = 1;
      let node = asList(root);
      while (node.length > 0) {
        node = asList(node[0]);
        level++;
      }
      assert.equal(level, depth);
    }
  });

  test('bytes after STOP are ignored', () => {
    assert.equal(decodePickle(bytes('K', [1], '.garbage\xff')), 1);
  });

  test('onProgress reports from long inputs', () => {
    const item = bytes('C', [255], new Uint8Array(255).fill(7));
    const batch = bytes('(', Buffer.concat(Array.from({ length: 1000 }, () => item)), 'e');
    const batches = Math.ceil(PROGRESS_INTERVAL_BYTES / batch.length) + 1;
    const data = bytes([0x80, 4], ']', Buffer.concat(Array.from({ length: batches }, () => batch)), '.');
    const calls: [number, number][] = [];
    const value = asList(decodePickle(data, { onProgress: (done, total) => calls.push([done, total]) }));
    assert.equal(value.length, batches * 1000);
    assert.ok(calls.length >= 1);
    for (const [done, total] of calls) {
      assert.equal(total, data.length);
      assert.ok(done >= PROGRESS_INTERVAL_BYTES && done <= total);
    }
  });
});

describe('decodePickle errors', () => {
  const cases = ERROR_CASES;
  for (const [name, data, code, offset] of cases) {
    test(name, () => {
      expectPickleError(data, code, offset);
    });
  }
});

/** Python that turns values into JSON comparable with {@link canonical}; reads nothing but its argument. */
const PY_CANONICAL = `
import json, math, pickle, random, sys
def hashed(v):
    # JavaScript Maps and Sets store -0 as 0, as Python dicts and sets treat them as equal.
    return 0.0 if isinstance(v, float) and v == 0 else v
def canon(v):
    if v is None or isinstance(v, (bool, str)): return v
    if isinstance(v, int): return v if abs(v) <= 2**53 - 1 else {'big': str(v)}
    if isinstance(v, float): return v if math.isfinite(v) else {'f': repr(v)}
    if isinstance(v, (bytes, bytearray)): return {'bytes': v.hex()}
    if isinstance(v, (list, tuple)): return [canon(x) for x in v]
    if isinstance(v, (set, frozenset)): return {'set': [canon(hashed(x)) for x in v]}
    if isinstance(v, dict):
        return {'dict': [[k, canon(x)] for k, x in v.items() if isinstance(k, str)],
                'other': [[canon(hashed(k)), canon(x)] for k, x in v.items() if not isinstance(k, str)]}
    raise TypeError(type(v))
`;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Our decoded value in the JSON form PY_CANONICAL gives Python values. */
function canonical(value: PyValue): Json {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return { big: value.toString() };
  if (typeof value === 'number') return Number.isFinite(value) ? value : { f: Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf' };
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value).toString('hex') };
  if (Array.isArray(value)) return value.map(canonical);
  if (value instanceof Set) return { set: [...value].map(canonical) };
  const others = value[PY_NON_STRING_KEYS];
  return {
    dict: Object.keys(value).map((key) => [key, canonical(value[key])]),
    other: others === undefined ? [] : [...others].map(([key, item]) => [canonical(key), canonical(item)]),
  };
}

/** Sorts the unordered parts (set members, dict entries) so that equal values compare equal. */
function normalized(json: Json): Json {
  if (Array.isArray(json)) return json.map(normalized);
  if (json === null || typeof json !== 'object') return json;
  const out: { [key: string]: Json } = {};
  for (const [key, item] of Object.entries(json)) {
    const inner = normalized(item);
    out[key] = (key === 'set' || key === 'dict' || key === 'other') && Array.isArray(inner) ? sortByJson(inner) : inner;
  }
  return out;
}

function sortByJson(items: Json[]): Json[] {
  return items.map((item) => [JSON.stringify(item), item] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, item]) => item);
}

function python(script: string, ...args: string[]): string {
  return execFileSync('python3', ['-c', script, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
}

describe('decodePickle against CPython', () => {
  test('random plain data, protocols 0 to 5', () => {
    const script = `${PY_CANONICAL}
rng = random.Random(20240601)
def scalar(p):
    kinds = ['none', 'bool', 'int', 'big', 'float', 'str', 'ustr'] + (['bytes'] if p >= 3 else [])
    k = rng.choice(kinds)
    if k == 'none': return None
    if k == 'bool': return rng.random() < 0.5
    if k == 'int': return rng.randint(-2**40, 2**40) >> rng.randint(0, 40)
    if k == 'big': return rng.choice([1, -1]) * rng.randint(2**52, 2**200)
    if k == 'float': return rng.choice([rng.uniform(-1e6, 1e6), float('inf'), -0.0, 1e-310, 2.0**60])
    if k == 'str': return ''.join(rng.choice('abc \\\\\\n"\\'xyz') for _ in range(rng.randint(0, 70)))
    if k == 'ustr': return ''.join(chr(rng.choice([0xe9, 0x20ac, 0x1F600, 0xd800, 0xfeff, 0x5c, 0x75])) for _ in range(rng.randint(0, 20)))
    return bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 300)))
def value(p, depth, shared):
    r = rng.random()
    if depth > 4 or r < 0.45: return scalar(p)
    if r < 0.55 and shared: return rng.choice(shared)
    n = rng.randint(0, 6)
    if r < 0.7: v = [value(p, depth + 1, shared) for _ in range(n)]
    elif r < 0.8: v = tuple(value(p, depth + 1, shared) for _ in range(n))
    elif r < 0.9 or p < 4:
        v = {}
        for _ in range(n):
            key = rng.choice([scalar(p), 'k%d' % rng.randint(0, 9), (rng.randint(0, 3), 'x')])
            v[key] = value(p, depth + 1, shared)
    else: v = (set if rng.random() < 0.5 else frozenset)(scalar(p) for _ in range(n))
    shared.append(v)
    return v
out = []
for i in range(120):
    p = i % 6
    v = value(p, 0, [])
    out.append([pickle.dumps(v, p).hex(), canon(v)])
print(json.dumps(out))
`;
    const samples = JSON.parse(python(script)) as [string, Json][];
    assert.equal(samples.length, 120);
    for (const [pickled, expected] of samples) {
      assert.deepStrictEqual(normalized(canonical(decodePickle(hex(pickled)))), normalized(expected), pickled.slice(0, 200));
    }
  });
});

describe('memory snapshot corpus', { skip: corpusMissing }, () => {
  interface Facts {
    type: string;
    keys: string[] | null;
    segments: number;
    segmentBytes: string;
    blocks: number;
    traceCounts: number[];
    firstTraceKeys: string[] | null;
    firstTrace: { action: string; addr: string; size: string } | null;
    frameRefs: number;
    uniqueFrames: number;
  }
  const factsScript = `
import json, os, pickle, sys
folder = sys.argv[1]
out = {}
for name in sorted(os.listdir(folder)):
    if not name.endswith('.pickle'): continue
    with open(os.path.join(folder, name), 'rb') as f: v = pickle.load(f)
    segments = v['segments'] if isinstance(v, dict) else v
    traces = v.get('device_traces', []) if isinstance(v, dict) else []
    entries = [e for t in traces for e in t]
    frames = [fr for e in entries for fr in e.get('frames', [])]
    first = entries[0] if entries else None
    out[name] = {
        'type': type(v).__name__, 'keys': list(v) if isinstance(v, dict) else None,
        'segments': len(segments), 'segmentBytes': str(sum(s['total_size'] for s in segments)),
        'blocks': sum(len(s.get('blocks', [])) for s in segments), 'traceCounts': [len(t) for t in traces],
        'firstTraceKeys': list(first) if first else None,
        'firstTrace': {k: str(first[k]) for k in ('action', 'addr', 'size')} if first else None,
        'frameRefs': len(frames), 'uniqueFrames': len({id(fr) for fr in frames}),
    }
print(json.dumps(out))
`;
  const facts = CORPUS_FILES.length === 0 ? {} : (JSON.parse(python(factsScript, CORPUS_DIR)) as Record<string, Facts>);

  for (const name of CORPUS_FILES) {
    test(name, () => {
      const expected = facts[name];
      const value = decodePickle(readFileSync(path.join(CORPUS_DIR, name)));
      const root = isPyDict(value) ? value : null;
      assert.equal(root === null ? 'list' : 'dict', expected.type);
      assert.deepStrictEqual(root === null ? null : Object.keys(root), expected.keys);
      const segments = asList(root === null ? value : root.segments).map(asDict);
      assert.equal(segments.length, expected.segments);
      const segmentBytes = segments.reduce((sum, segment) => sum + BigInt(segment.total_size as number | bigint), 0n);
      assert.equal(segmentBytes.toString(), expected.segmentBytes);
      assert.equal(segments.reduce((sum, segment) => sum + (segment.blocks === undefined ? 0 : asList(segment.blocks).length), 0), expected.blocks);
      const traces = root === null || root.device_traces === undefined ? [] : asList(root.device_traces).map(asList);
      assert.deepStrictEqual(traces.map((trace) => trace.length), expected.traceCounts);
      const entries = traces.flat().map(asDict);
      const first = entries.length > 0 ? entries[0] : null;
      assert.deepStrictEqual(first === null ? null : Object.keys(first), expected.firstTraceKeys);
      const firstTrace = first === null ? null : { action: scalarText(first.action), addr: scalarText(first.addr), size: scalarText(first.size) };
      assert.deepStrictEqual(firstTrace, expected.firstTrace);
      const frames = entries.flatMap((entry) => (entry.frames === undefined ? [] : asList(entry.frames)));
      assert.equal(frames.length, expected.frameRefs);
      assert.equal(new Set(frames).size, expected.uniqueFrames, 'frames shared through the memo stay shared');
    });
  }

  test('small snapshots decode to exactly what CPython loads', () => {
    const small = CORPUS_FILES.filter((name) => readFileSync(path.join(CORPUS_DIR, name)).length < 100_000);
    const script = `${PY_CANONICAL}
folder = sys.argv[1]
out = {}
for name in sys.argv[2:]:
    with open(folder + '/' + name, 'rb') as f: out[name] = canon(pickle.load(f))
print(json.dumps(out))
`;
    const expected = JSON.parse(python(script, CORPUS_DIR, ...small)) as Record<string, Json>;
    for (const name of small) {
      const actual = canonical(decodePickle(readFileSync(path.join(CORPUS_DIR, name))));
      // Compared as JSON text: deepStrictEqual is slow on structures this size.
      assert.equal(JSON.stringify(normalized(actual)), JSON.stringify(normalized(expected[name])), name);
    }
  });
});
