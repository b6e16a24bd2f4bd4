/**
 * No cliff (issue 30): the same events in every shape PyTorch's readers must take decode, through the
 * trace fast path, to exactly what the general machine gives, and to the model of the file as PyTorch
 * writes it (the addresses raised where the shape raised them). The fuzz suite mutates these shapes too
 * (`test/fuzz/inputs.ts`); `npm run bench` times them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SnapshotReader, readWhole } from '../../../../src/engine/decode/load';
import { decodePickle } from '../../../../src/engine/pickle/decoder';
import { encodePickle } from '../../../../src/engine/pickle/encoder';
import type { Snapshot } from '../../../../src/engine/snapshot/model';
import { corpusFiles, corpusMissing } from '../../../helpers/corpus';
import { HIGH_ADDRESS_SHIFT, SHAPES, shaped } from '../../../helpers/snapshotShapes';

/** The general machine alone (no fast path). */
function general(pickle: Uint8Array): Snapshot {
  const reader = new SnapshotReader({ expectedBytes: pickle.length, fastPath: false });
  reader.feed(pickle);
  return reader.finish();
}

/** `snapshot` with every address lowered by the shift (the high-addresses shape back to PyTorch's). */
function lowered(snapshot: Snapshot): Snapshot {
  const low = (a: number) => (a >= HIGH_ADDRESS_SHIFT ? a - HIGH_ADDRESS_SHIFT : a);
  return {
    ...snapshot,
    traces: snapshot.traces.map((t) => ({ ...t, addr: t.addr.map(low) })),
    segments: snapshot.segments.map((s) => ({ ...s, address: low(s.address), blocks: s.blocks.map((b) => ({ ...b, address: low(b.address) })) })),
  };
}

const FILES = ['wedsonlin-cs336-medium-512-training.pickle', 'kkaitlyn111-cs336-small-forward-uint64-line.pickle', 'constructor-sun-expandable-oom-4dev.pickle', 'cranberrii-ftcourse.pickle'];

describe('snapshot shapes', { skip: corpusMissing }, () => {
  for (const name of FILES) {
    const file = corpusFiles().find((f) => f.endsWith(name));
    it(`${name}: every shape decodes as the general machine does, to the model of PyTorch's shape`, { skip: file === undefined }, () => {
      const root = decodePickle(readFileSync(file!));
      const expected = readWhole(encodePickle(shaped(root, 'pytorch', 400)));
      assert.ok(expected.traces.some((t) => t.length > 0), 'the cut-down file has a trace');
      for (const shape of SHAPES) {
        const pickle = encodePickle(shaped(root, shape, 400));
        const fast = readWhole(pickle);
        assert.deepStrictEqual(fast, general(pickle), `${shape}: fast path = general machine`);
        assert.deepStrictEqual(shape === 'high-addresses' ? lowered(fast) : fast, expected, `${shape}: the events of PyTorch's shape`);
        if (shape === 'high-addresses') assert.ok(fast.traces.some((t) => t.addr.some((a) => a >= HIGH_ADDRESS_SHIFT)), 'addresses above 2^52 are kept exactly');
      }
    });
  }
});
