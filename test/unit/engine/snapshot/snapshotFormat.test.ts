/** Files that decode but are not snapshots get a clear message naming what was found. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SnapshotFormatError } from '../../../../src/engine/snapshot/errors';
import { snapshotFromPickle } from '../../../../src/engine/snapshot/fromPickle';

describe('not a snapshot', () => {
  const cases: [string, unknown, RegExp][] = [
    ['a string', 'hello', /holds a string/],
    ['a dict of words', { apple: 1, pear: 2 }, /no 'segments' or 'device_traces' \(keys: apple, pear\)/],
    ['segments that are not a list', { segments: 5 }, /'segments' is 5, expected a list/],
    ['a trace entry that is not a dict', { segments: [], device_traces: [[1]] }, /device 0 trace entry 0 is 1, expected a dict/],
    ['an address that is text', { segments: [{ address: 'x', total_size: 1, blocks: [] }] }, /segment 0 address is a string/],
  ];
  for (const [name, value, message] of cases) {
    it(name, () => {
      assert.throws(
        () => snapshotFromPickle(value),
        (e: unknown) => e instanceof SnapshotFormatError && message.test(e.message) && e.message.startsWith('not a memory snapshot: '),
      );
    });
  }
});

/** Issue 16 item 6: values are the integers the format defines; the message says what was found and where. */
describe('values are validated as the integers the format defines', () => {
  const segment = (fields: Record<string, unknown>, block: Record<string, unknown> = { size: 512, state: 'active_allocated' }): unknown => ({
    segments: [{ address: 4096, total_size: 1024, blocks: [block], ...fields }],
  });
  const trace = (entry: Record<string, unknown>): unknown => ({ segments: [], device_traces: [[{ action: 'alloc', addr: 0, size: 512, ...entry }]] });
  const frame = (line: unknown): unknown => segment({}, { size: 512, state: 'active_allocated', frames: [{ filename: 'train.py', line, name: 'f' }] });
  const cases: [string, unknown, string][] = [
    ['a NaN total_size', segment({ total_size: NaN }), 'segment 0 total_size is nan, expected a non-negative integer'],
    ['an infinite total_size', segment({ total_size: Infinity }), 'segment 0 total_size is inf, expected a non-negative integer'],
    ['a negative block size', segment({}, { size: -512 }), 'segment 0 block 0 size is -512, expected a non-negative integer'],
    ['a fractional block size', segment({}, { size: 1.5 }), 'segment 0 block 0 size is 1.5, expected a non-negative integer'],
    ['a boolean address', segment({ address: true }), 'segment 0 address is True, expected a non-negative integer'],
    ['a missing address', { segments: [{ total_size: 1024, blocks: [] }] }, 'segment 0 address is missing, expected a non-negative integer'],
    ['a negative device', segment({ device: -1 }), 'segment 0 device is -1, expected a device number from 0 to 1023'],
    ['a huge device', segment({ device: 2 ** 40 }), `segment 0 device is ${2 ** 40}, expected a device number from 0 to 1023`],
    ['a fractional device', segment({ device: 0.5 }), 'segment 0 device is 0.5, expected a device number from 0 to 1023'],
    ['a NaN trace size', trace({ size: NaN }), 'device 0 trace entry 0 size is nan, expected a non-negative integer'],
    ['a negative trace address', trace({ addr: -8 }), 'device 0 trace entry 0 addr is -8, expected a non-negative integer'],
    ['an infinite time', trace({ time_us: Infinity }), 'device 0 trace entry 0 time_us is inf, expected a non-negative integer'],
    ['a boolean size', trace({ size: false }), 'device 0 trace entry 0 size is False, expected a non-negative integer'],
    ['a fractional line', frame(3.7), "a frame in a string ('train.py') has line 3.7, expected a non-negative integer"],
    ['a negative line', frame(-3), "a frame in a string ('train.py') has line -3, expected a non-negative integer"],
    ['a boolean line', frame(true), "a frame in a string ('train.py') has line True, expected a non-negative integer"],
    ['a text line', frame('3'), "a frame in a string ('train.py') has line a string ('3'), expected a non-negative integer"],
  ];
  for (const [name, value, message] of cases) {
    it(`rejects ${name}`, () => {
      assert.throws(
        () => snapshotFromPickle(value),
        (e: unknown) => e instanceof SnapshotFormatError && e.message === `not a memory snapshot: ${message}`,
      );
    });
  }

  it('accepts what PyTorch writes: line 0, a line of 2^64-1, a missing line, zero sizes, device 3', () => {
    const snapshot = snapshotFromPickle({
      segments: [
        {
          device: 3,
          address: 0,
          total_size: 0,
          blocks: [{ size: 0, state: 'inactive', frames: [{ filename: 'a.py', line: 0, name: 'f' }, { filename: 'b.py', line: 2n ** 64n - 1n, name: 'g' }, { filename: 'c.py', name: 'h' }] }],
        },
      ],
    });
    assert.deepEqual(
      snapshot.frames.map((f) => f.line),
      [0, 2n ** 64n - 1n, 0],
    );
    assert.equal(snapshot.segments[0].device, 3);
  });
});
