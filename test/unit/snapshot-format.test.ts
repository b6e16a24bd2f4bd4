/** Files that decode but are not snapshots get a clear message naming what was found. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SnapshotFormatError } from '../../src/core/snapshot/errors';
import { snapshotFromPickle } from '../../src/core/snapshot/fromPickle';

describe('not a snapshot', () => {
  const cases: [string, unknown, RegExp][] = [
    ['a string', 'hello', /holds a string/],
    ['a dict of words', { apple: 1, pear: 2 }, /no 'segments' or 'device_traces' \(keys: apple, pear\)/],
    ['segments that are not a list', { segments: 5 }, /'segments' is a number, expected a list/],
    ['a trace entry that is not a dict', { segments: [], device_traces: [[1]] }, /device 0 trace entry 0 is a number/],
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
