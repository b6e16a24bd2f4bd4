/**
 * The next snapshot's worker, started and warmed before it is asked for (issue 30): real worker threads
 * (the tsc build of the analysis worker). A warmed worker keeps nothing of its warm-up and opens the next
 * snapshot to exactly what a fresh worker gives; a spare of other options is not used.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { SpareWorkers } from '../../../../src/runtime/worker/spareWorker';
import { warmUp } from '../../../../src/runtime/worker/methods';
import { SnapshotWorker } from '../../../../src/runtime/worker/client';
import { corpusFiles, corpusMissing, repoRoot } from '../../../helpers/corpus';

const workerScript = path.join(repoRoot, 'out', 'src', 'runtime', 'worker', 'analysisWorker.js');

describe('spare workers', { skip: corpusMissing }, () => {
  const [first, second] = ['wedsonlin-cs336-medium-512-training.pickle', 'nothanmin-cs336.pickle'].map((name) => corpusFiles().find((f) => f.endsWith(name))!);

  it('a spare warmed on one snapshot holds none, and opens the next as a fresh worker does', async () => {
    const spares = new SpareWorkers(workerScript);
    try {
      spares.prepare({}, { kind: 'file', path: first }, 4e6, {});
      await spares.warmed();
      const warm = spares.take({});
      // The warm-up dropped its snapshot: the worker has none loaded.
      await assert.rejects(warm.call('lines', { device: 0 }), /no snapshot is loaded/);
      const fresh = new SnapshotWorker(workerScript);
      try {
        const source = { kind: 'file', path: second } as const;
        const [a, b] = await Promise.all([warm.call('load', { source, filter: {} }), fresh.call('load', { source, filter: {} })]);
        assert.deepStrictEqual(a, b);
        assert.deepStrictEqual(await warm.call('lines', { device: 0 }), await fresh.call('lines', { device: 0 }));
      } finally {
        await Promise.all([warm.dispose(), fresh.dispose()]);
      }
    } finally {
      spares.dispose();
    }
  });

  it('a warm-up stopped by its signal (the worker\'s own load has come) reads nothing more', async () => {
    const stopped = new AbortController();
    stopped.abort();
    // It would fail on a file that is not there; stopped, it does not open it.
    assert.equal(await warmUp({ source: { kind: 'file', path: '/nonexistent/snapshot.pickle' }, filter: {} }, stopped.signal), null);
    await assert.rejects(warmUp({ source: { kind: 'file', path: '/nonexistent/snapshot.pickle' }, filter: {} }), /no such file/);
  });

  it('a spare started with other options (a memory limit changed since) is not used', async () => {
    const spares = new SpareWorkers(workerScript);
    try {
      spares.prepare({ maxHeapMb: 512 }, undefined, 0, {});
      const spare = spares.take({ maxHeapMb: 512 });
      spares.prepare({ maxHeapMb: 512 }, undefined, 0, {});
      const other = spares.take({ maxHeapMb: 1024 });
      assert.notEqual(other, spare);
      await Promise.all([spare.dispose(), other.dispose()]);
    } finally {
      spares.dispose();
    }
  });

  it('a spare nobody takes is ended after its idle time', async () => {
    const spares = new SpareWorkers(workerScript, 50);
    try {
      spares.prepare({}, undefined, 0, {});
      assert.ok(spares.hasSpare);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.ok(!spares.hasSpare, 'the spare was ended');
      // The next snapshot gets a new worker, which answers.
      const worker = spares.take({});
      await assert.rejects(worker.call('lines', { device: 0 }), /no snapshot is loaded/);
      await worker.dispose();
    } finally {
      spares.dispose();
    }
  });
});
