/**
 * Issue 23: no file can amplify. The two files the issue describes, rebuilt by the fuzz suite's
 * generators (test/fuzz/amplification.ts), each read by the CLI in a child process: a clear error in
 * under 2 s (the CLI's own time, from the start of `main`, and its CPU time) and a peak resident set
 * under 300 MB. Before the work budget, the first ran a minute and died of a 4 GB heap; the second took
 * 7 s and 676 MB.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { snapshotLoadMessage } from '../../../../src/engine/decode/errors';
import { encodePickle } from '../../../../src/engine/pickle/encoder';
import { SnapshotWorker } from '../../../../src/runtime/worker/client';
import { WorkLimitError } from '../../../../src/engine/base/errors';
import { readWhole, withFastPath } from '../../../../src/engine/decode/load';
import { formatFileSize } from '../../../../src/engine/text/format';
import { readInChunks } from '../../../helpers/chunkedRead';
import { emptyListBomb, segmentBomb } from '../../../fuzz/amplification';
import { repoRoot } from '../../../helpers/corpus';

const cli = path.join(repoRoot, 'dist', 'cli.js');
const tmp = mkdtempSync(path.join(tmpdir(), 'vram-lens-amplification-'));

interface Run {
  readonly code: number;
  readonly stderr: string;
  /** From the start of `main` to its answer, in the child. */
  readonly ms: number;
  readonly cpuMs: number;
  readonly maxRssMB: number;
}

/** `vram-lens analyze FILE --json` in a child process that reports its own time and peak resident set. */
function analyzeInChild(file: string): Run {
  const probe = `
const started = performance.now();
const cpu = process.cpuUsage();
let stderr = '';
require(${JSON.stringify(cli)}).main(['analyze', process.argv[1], '--json'], { out: () => undefined, err: (t) => { stderr += t; } }).then((code) => {
  const used = process.cpuUsage(cpu);
  process.stdout.write(JSON.stringify({ code, stderr, ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, maxRssMB: (process.resourceUsage().maxRSS * 1024) / 1e6 }));
});`;
  const child = spawnSync(process.execPath, ['-e', probe, file], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as Run;
}

describe('files that share one object through the memo end fast, small, with a clear error', () => {
  it('the probe reads a small valid snapshot (so a failure below is the file, not the probe)', () => {
    const file = path.join(tmp, 'valid.pickle');
    writeFileSync(file, encodePickle({ segments: [{ device: 0, address: 0, total_size: 512, blocks: [{ size: 512, state: 'active_allocated' }] }] }));
    const run = analyzeInChild(file);
    assert.equal(run.code, 0, run.stderr);
  });

  it('one segment listed 200,000 times, each holding one block 2,000 times (1 MB, 400 million blocks)', () => {
    const bytes = segmentBomb();
    assert.ok(bytes.length > 0.9e6 && bytes.length < 1.1e6, `${bytes.length} bytes`);
    const file = path.join(tmp, 'segments.pickle');
    writeFileSync(file, bytes);
    const run = analyzeInChild(file);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /segments: 200,000 segments holding 400,000,000 blocks: more than a file of 1\.0 MB can describe/);
    assert.match(run.stderr, /this pickle repeats objects through its memo/);
    assert.ok(run.ms < 2000 && run.cpuMs < 2000, `${run.ms.toFixed(0)} ms, ${run.cpuMs.toFixed(0)} ms of CPU`);
    assert.ok(run.maxRssMB < 300, `peak ${run.maxRssMB.toFixed(0)} MB`);
  });

  it('300,000 references to one empty list as the device traces (1.5 MB)', () => {
    const bytes = emptyListBomb();
    assert.ok(bytes.length > 1.4e6 && bytes.length < 1.6e6, `${bytes.length} bytes`);
    const file = path.join(tmp, 'traces.pickle');
    writeFileSync(file, bytes);
    const run = analyzeInChild(file);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /'device_traces' holds 300,000 traces: a snapshot has one per CUDA device, numbered 0 to 1023/);
    assert.ok(run.ms < 2000 && run.cpuMs < 2000, `${run.ms.toFixed(0)} ms, ${run.cpuMs.toFixed(0)} ms of CPU`);
    assert.ok(run.maxRssMB < 300, `peak ${run.maxRssMB.toFixed(0)} MB`);
  });

  it('the budget, not only the device count, holds a trace shared by 1,000 devices', () => {
    // 1,000 references to one trace of 20,000 distinct entries: within the device count, over the budget.
    const trace = Array.from({ length: 20_000 }, (_, i) => ({ action: 'alloc', addr: 512 * i, size: 512, stream: 0, time_us: i }));
    const file = path.join(tmp, 'shared-trace.pickle');
    writeFileSync(file, encodePickle({ segments: [], device_traces: Array.from({ length: 1000 }, () => trace) }));
    const run = analyzeInChild(file);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /device_traces\[\d+\]: 20,000 trace entries: more than a file of/);
    assert.ok(run.maxRssMB < 300, `peak ${run.maxRssMB.toFixed(0)} MB`);
  });

  it('refused before the file is read to its end: the message names the bytes read and the whole file\'s size', () => {
    // 400,000 memo references to one entry (2 bytes each): 9 units of work each against 4 a byte. Read
    // whole, the file's budget is spent at once; read in chunks, its first 200 kB or so run over.
    const entry = { action: 'alloc', addr: 0, size: 512, stream: 0, time_us: 1 };
    const pickle = encodePickle({ segments: [], device_traces: [Array.from({ length: 400_000 }, () => entry)] });
    const message = (read: () => unknown): string => {
      try {
        read();
      } catch (e) {
        assert.ok(e instanceof WorkLimitError, String(e));
        return e.message;
      }
      return assert.fail('read');
    };
    const size = formatFileSize(pickle.length);
    assert.match(message(() => readWhole(pickle)), new RegExp(`^device_traces: [\\d,]+ trace entries: more than a file of ${size.replace('.', '\\.')} can describe`));
    const chunked = message(() => withFastPath((fastPath) => readInChunks(pickle, 65_536, { fastPath })));
    const first = /more than the first ([\d.]+ kB) of a file of ([\d.]+ kB) can describe/.exec(chunked);
    assert.ok(first, chunked);
    assert.equal(first[2], size);
    assert.ok(Number.parseFloat(first[1]) < Number.parseFloat(size) / 2, chunked);
  });

  it('one trace entry repeated 200,000 times is 200,000 events: a memo reference per event, within the budget and small', () => {
    // A reference costs the file 2 to 5 bytes and the reader one event: amplification stops there.
    const entry = { action: 'alloc', addr: 0, size: 512, stream: 0, time_us: 1 };
    const file = path.join(tmp, 'shared-entry.pickle');
    writeFileSync(file, encodePickle({ padding: Array.from({ length: 300 }, (_, i) => `p${i}`), segments: [], device_traces: [Array.from({ length: 200_000 }, () => entry)] }));
    const run = analyzeInChild(file);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.maxRssMB < 300, `peak ${run.maxRssMB.toFixed(0)} MB`);
  });

  it('in the editor: the analysis worker reads the file by its path and the user reads which structure exceeded what', async () => {
    const file = path.join(tmp, 'segments-for-the-worker.pickle');
    writeFileSync(file, segmentBomb());
    const worker = new SnapshotWorker(path.join(repoRoot, 'dist', 'analysisWorker.js'));
    try {
      const started = performance.now();
      const error = await worker.call('load', { source: { kind: 'file', path: file }, filter: {} }).then(
        () => assert.fail('a segment bomb loads?'),
        (e: unknown) => e,
      );
      assert.ok(performance.now() - started < 5000, 'the worker ends it fast too');
      // The message the editor shows (`userMessage` through snapshotLoadMessage): the engine's words, not a stack.
      const shown = snapshotLoadMessage('segments.pickle', error);
      assert.match(shown, /^segments\.pickle could not be read as a PyTorch memory snapshot: segments: 200,000 segments holding 400,000,000 blocks: more than a file of 1\.0 MB can describe/);
      assert.doesNotMatch(shown, /unexpected error|\n\s+at /);
    } finally {
      await worker.dispose();
    }
  });
});
