/**
 * The runtime's one way in for snapshot bytes (`openSnapshot`, issues 23 and 31): a snapshot file read in
 * chunks of any size, gzip'd or not, and the same bytes in memory, give the snapshot of the whole file
 * decoded at once; what the file is not is said before decoding, with its code; a gzip bomb stops at its
 * ratio, on disk or in memory; progress and cancellation between chunks; a snapshot built in memory is
 * read as it is, to what its pickle decodes to.
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
import type { OpenOptions } from '../../../../src/runtime/input/snapshotFile';
import { LoadCancelledError, MAX_GZIP_RATIO, openSnapshot } from '../../../../src/runtime/input/snapshotFile';
import { corpusFiles, corpusMissing } from '../../../helpers/corpus';

const tmp = mkdtempSync(path.join(tmpdir(), 'vram-lens-file-'));
const loadSnapshotFile = (file: string, options?: OpenOptions) => openSnapshot({ kind: 'file', path: file }, options);
/** A rejection that is a SnapshotFileError with this code and words like these. */
const refused = (code: string, words: RegExp) => (e: unknown) => e instanceof SnapshotFileError && e.code === code && words.test(e.message);
const file = (name: string, bytes: Uint8Array): string => {
  const p = path.join(tmp, name);
  writeFileSync(p, bytes);
  return p;
};

describe('openSnapshot', { skip: corpusMissing }, () => {
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

  it('gzip is streamed through zlib: the same snapshot, whatever the chunk size, from a file or from memory', async () => {
    const zipped = gzipSync(pickle);
    const gz = file('snap.pickle.gz', zipped);
    for (const chunkBytes of [997, 65_536]) {
      const loaded = await loadSnapshotFile(gz, { chunkBytes });
      assert.deepStrictEqual(loaded.snapshot, expected);
      assert.equal(loaded.pickleBytes, pickle.length);
      const inMemory = await openSnapshot({ kind: 'bytes', bytes: zipped }, { chunkBytes });
      assert.deepStrictEqual(inMemory.snapshot, expected);
      assert.equal(inMemory.fileBytes, zipped.length);
    }
  });

  it('bytes in memory give the snapshot of the file', async () => {
    const loaded = await openSnapshot({ kind: 'bytes', bytes: pickle }, { chunkBytes: 4093 });
    assert.deepStrictEqual(loaded.snapshot, expected);
    assert.equal(loaded.fileBytes, pickle.length);
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

  it('a pickle the fast path gives back (shared trace entries) is read again without it, from the file or the bytes, plain or gzip\'d', async () => {
    const entry = { action: 'alloc', addr: 0, size: 512, stream: 0, time_us: 1, frames: [] };
    const trace = Array.from({ length: 3000 }, (_, i) => ({ ...entry, addr: 512 * i }));
    const bytes = encodePickle({ segments: [], device_traces: [trace, trace.slice(0, 1500)] });
    const read = [
      await loadSnapshotFile(file('shared.pickle', bytes), { chunkBytes: 4096 }),
      await loadSnapshotFile(file('shared.pickle.gz', gzipSync(bytes)), { chunkBytes: 4096 }),
      await openSnapshot({ kind: 'bytes', bytes }, { chunkBytes: 4096 }),
      await openSnapshot({ kind: 'bytes', bytes: gzipSync(bytes) }, { chunkBytes: 4096 }),
    ];
    for (const loaded of read) {
      assert.deepStrictEqual(loaded.snapshot, snapshotFromBytes(bytes));
      assert.deepEqual(loaded.snapshot.traces.map((t) => t.length), [3000, 1500]);
    }
  });
});

describe('a snapshot built in memory', () => {
  it('is read as the plain values its pickle holds, to what the pickle decodes to', async () => {
    // Shared frames lists (an alloc and its free share one, as PyTorch writes them), an OOM, a measured line.
    const frames = [
      { filename: '/work/train.py', line: 12, name: 'step' },
      { filename: '/work/model.py', line: 40, name: 'forward' },
    ];
    const trace = Array.from({ length: 200 }, (_, i) => ({
      action: ['alloc', 'free_requested', 'free_completed', 'oom'][i % 4],
      addr: 512 * (i >> 2),
      size: 512 * (1 + (i % 3)),
      stream: 0,
      time_us: 1000 + i,
      frames: i % 2 === 0 ? frames : frames.slice(1),
      ...(i % 4 === 3 ? { device_free: 4096 } : {}),
    }));
    const value = {
      segments: [{ device: 0, address: 0, total_size: 1 << 21, stream: 0, segment_type: 'large', blocks: [{ address: 0, size: 512, state: 'active_allocated', frames }] }],
      device_traces: [trace],
      vram_lens: { producer: 'vram-lens', summary: { provider: 'cpu' }, device_memory: { source: 'nvml', time_us: [1000, 1100], bytes: [10, 20] } },
    };
    const opened = await openSnapshot({ kind: 'value', value });
    assert.deepStrictEqual(opened.snapshot, snapshotFromBytes(encodePickle(value)));
    assert.equal(opened.snapshot.traces[0].length, 200);
  });
});

describe('what a file is not', () => {
  it('an empty gzip, a gzip of a gzip and a damaged gzip say so, with their codes, from a file or from memory', async () => {
    const valid = encodePickle({ segments: [] });
    const cases: [string, Uint8Array, string, RegExp][] = [
      ['empty.gz', gzipSync(new Uint8Array(0)), 'empty', /the gzip file holds nothing/],
      ['twice.gz', gzipSync(gzipSync(valid)), 'compressed', /holds another gzip file/],
      ['damaged.gz', gzipSync(valid).subarray(0, 20), 'gzip-damaged', /cannot be decompressed/],
    ];
    for (const [name, bytes, code, words] of cases) {
      await assert.rejects(loadSnapshotFile(file(name, bytes)), refused(code, words), name);
      await assert.rejects(openSnapshot({ kind: 'bytes', bytes }), refused(code, words), `${name} in memory`);
    }
  });

  it('a missing file, a directory and an empty file say so, with their codes', async () => {
    await assert.rejects(loadSnapshotFile(path.join(tmp, 'missing.pickle')), refused('unreadable', /missing\.pickle: no such file/));
    await assert.rejects(loadSnapshotFile(tmp), refused('unreadable', /is a directory/));
    await assert.rejects(loadSnapshotFile(file('empty.pickle', new Uint8Array(0))), refused('empty', /empty\.pickle: the file is empty/));
    await assert.rejects(openSnapshot({ kind: 'bytes', bytes: new Uint8Array(0) }), refused('empty', /^the file is empty/));
  });

  it(`a gzip that expands more than ${MAX_GZIP_RATIO} times is a bomb, refused while it inflates`, async () => {
    // A string that claims a terabyte, then 100 MB of zeros: zlib packs them about a thousand times.
    const plain = new Uint8Array(100e6);
    plain.set([0x80, 4, 0x8d, 0, 0, 0, 0, 0, 1, 0, 0]);
    const bomb = gzipSync(plain, { level: 9 });
    assert.ok(bomb.length * MAX_GZIP_RATIO < plain.length, `${bomb.length} bytes of gzip`);
    const started = performance.now();
    await assert.rejects(loadSnapshotFile(file('bomb.gz', bomb)), refused('gzip-too-large', /expands more than 200 times/));
    // The same limit for bytes in memory (a file of another file system): one limit, in one place.
    await assert.rejects(openSnapshot({ kind: 'bytes', bytes: bomb }), refused('gzip-too-large', /expands more than 200 times/));
    assert.ok(performance.now() - started < 20_000);
  });

  it('a load cancelled carries its code', async () => {
    const abort = new AbortController();
    abort.abort();
    await assert.rejects(openSnapshot({ kind: 'bytes', bytes: encodePickle({ segments: [] }) }, { signal: abort.signal }), (e: unknown) => e instanceof LoadCancelledError && e.code === 'cancelled');
  });
});
