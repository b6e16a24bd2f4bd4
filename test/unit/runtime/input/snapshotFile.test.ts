/**
 * The runtime's file reader (issue 23): a snapshot file read in chunks of any size, gzip'd or not,
 * gives the snapshot of the whole file decoded at once; what the file is not is said before decoding;
 * a gzip bomb stops at its ratio; progress and cancellation between chunks.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { SnapshotFileError } from '../../../../src/engine/decode/errors';
import { encodePickle } from '../../../../src/engine/pickle/encoder';
import { LoadCancelledError, MAX_GZIP_RATIO, loadSnapshotFile } from '../../../../src/runtime/input/snapshotFile';
import { gunzipBounded } from '../../../../src/runtime/input/gunzip';
import { corpusFiles, corpusMissing } from '../../../helpers/corpus';

const tmp = mkdtempSync(path.join(tmpdir(), 'vram-lens-file-'));
const file = (name: string, bytes: Uint8Array): string => {
  const p = path.join(tmp, name);
  writeFileSync(p, bytes);
  return p;
};

describe('loadSnapshotFile', { skip: corpusMissing }, () => {
  const source = corpusFiles().find((f) => f.endsWith('nothanmin-cs336.pickle')) ?? corpusFiles()[0];
  const pickle = readFileSync(source);
  const expected = snapshotFromBytes(pickle);

  it('a corpus file in chunks of 4,093 bytes, 1 MiB + 3 and the default gives the snapshot of the whole file at once', async () => {
    for (const chunkBytes of [4093, (1 << 20) + 3, undefined]) {
      const loaded = await loadSnapshotFile(source, { chunkBytes });
      assert.deepStrictEqual(loaded.snapshot, expected, `chunks of ${chunkBytes ?? 'the default'}`);
      assert.equal(loaded.fileBytes, pickle.length);
      assert.equal(loaded.pickleBytes, pickle.length);
    }
  });

  it('gzip is streamed through zlib: the same snapshot, whatever the chunk size', async () => {
    const gz = file('snap.pickle.gz', gzipSync(pickle));
    for (const chunkBytes of [997, 65_536]) {
      const loaded = await loadSnapshotFile(gz, { chunkBytes });
      assert.deepStrictEqual(loaded.snapshot, expected);
      assert.equal(loaded.pickleBytes, pickle.length);
    }
  });

  it('progress after every chunk, up to the file size; an abort stops the load between chunks', async () => {
    const calls: [number, number][] = [];
    await loadSnapshotFile(source, { chunkBytes: 1 << 20, onProgress: (done, total) => calls.push([done, total]) });
    assert.equal(calls.length, Math.ceil(pickle.length / (1 << 20)));
    assert.deepEqual(calls.at(-1), [pickle.length, pickle.length]);
    const abort = new AbortController();
    await assert.rejects(
      loadSnapshotFile(source, { chunkBytes: 1 << 16, onProgress: (done) => done > 1 << 18 && abort.abort(), signal: abort.signal }),
      LoadCancelledError,
    );
  });

  it('a pickle the fast path gives back (shared trace entries) is read again without it, from the file', async () => {
    const entry = { action: 'alloc', addr: 0, size: 512, stream: 0, time_us: 1, frames: [] };
    const trace = Array.from({ length: 3000 }, (_, i) => ({ ...entry, addr: 512 * i }));
    const bytes = encodePickle({ segments: [], device_traces: [trace, trace.slice(0, 1500)] });
    const loaded = await loadSnapshotFile(file('shared.pickle', bytes), { chunkBytes: 4096 });
    assert.deepStrictEqual(loaded.snapshot, snapshotFromBytes(bytes));
    assert.deepEqual(loaded.snapshot.traces.map((t) => t.length), [3000, 1500]);
  });
});

describe('what a file is not', () => {
  it('an empty gzip, a gzip of a gzip and a damaged gzip say so', async () => {
    const valid = encodePickle({ segments: [] });
    await assert.rejects(loadSnapshotFile(file('empty.gz', gzipSync(new Uint8Array(0)))), (e: unknown) => e instanceof SnapshotFileError && /the gzip file holds nothing/.test(e.message));
    await assert.rejects(loadSnapshotFile(file('twice.gz', gzipSync(gzipSync(valid)))), (e: unknown) => e instanceof SnapshotFileError && /holds another gzip file/.test(e.message));
    await assert.rejects(loadSnapshotFile(file('damaged.gz', gzipSync(valid).subarray(0, 20))), (e: unknown) => e instanceof SnapshotFileError && /cannot be decompressed/.test(e.message));
  });

  it(`a gzip that expands more than ${MAX_GZIP_RATIO} times is a bomb, refused while it inflates`, async () => {
    // A string that claims a terabyte, then 100 MB of zeros: zlib packs them about a thousand times.
    const plain = new Uint8Array(100e6);
    plain.set([0x80, 4, 0x8d, 0, 0, 0, 0, 0, 1, 0, 0]);
    const bomb = gzipSync(plain, { level: 9 });
    assert.ok(bomb.length * MAX_GZIP_RATIO < plain.length, `${bomb.length} bytes of gzip`);
    const started = performance.now();
    await assert.rejects(loadSnapshotFile(file('bomb.gz', bomb)), (e: unknown) => e instanceof SnapshotFileError && /expands more than 200 times/.test(e.message));
    assert.ok(performance.now() - started < 10_000);
  });

  it('bytes in memory still decompress (an instrumented run, another file system)', () => {
    const valid = encodePickle({ segments: [] });
    assert.deepStrictEqual(snapshotFromBytes(gzipSync(valid), { gunzip: gunzipBounded }), snapshotFromBytes(valid));
  });
});
