/**
 * A loaded snapshot owns every answer asked about it: each is asked of the worker once, a failed one
 * is asked again, a re-attribution drops them (and makes older comparisons stale), and closing the
 * snapshot leaves none of its state behind.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SourceReading } from '../../../../src/extension/shared/loadedSnapshot';
import { LINE_DETAIL_CACHE_SIZE, LoadedSnapshot } from '../../../../src/extension/shared/loadedSnapshot';
import { InProcessWorker } from '../../../helpers/inProcessWorker';
import { GiB, MiB, TraceBuilder, torch, user, userPath } from '../../../helpers/traceBuilder';

const NOTHING_HELD = { lineDevices: 0, lineDetails: 0, lineFunctions: false, sources: false, findings: false };

/** Two user lines and one torch-library line, each allocating once. */
function loaded(): { snapshot: LoadedSnapshot; worker: InProcessWorker } {
  const b = new TraceBuilder();
  b.alloc(1 * GiB, [user('train.py', 5, 'step')]);
  b.alloc(2 * MiB, [user('train.py', 6, 'step')]);
  b.alloc(3 * MiB, [torch('optim/adam.py', 90, 'step'), user('train.py', 7, 'step')]);
  const worker = new InProcessWorker(b.snapshot());
  return { snapshot: new LoadedSnapshot('s1', 'train', undefined, 'file', worker, worker.info()), worker };
}

async function fill(snapshot: LoadedSnapshot): Promise<void> {
  await snapshot.lines();
  await snapshot.lineDetail({ device: 0, file: userPath('train.py'), line: 5, maxSizes: 6, maxStacks: 3 });
  await snapshot.lineFunctions();
  const capture = () => snapshot.sourceTexts(() => Promise.resolve(new Map([[userPath('train.py'), 'a\nb']])));
  await capture();
  await snapshot.findings(capture);
}

describe('LoadedSnapshot', () => {
  it('asks the worker once per device, line and question, and shares the answer', async () => {
    const { snapshot, worker } = loaded();
    const [a, b] = await Promise.all([snapshot.lines(0), snapshot.call('lines', { device: 0 })]);
    assert.equal(a, b, 'the same answer object');
    assert.deepEqual(
      a.map((l) => [l.line, l.allocBytes]).sort((x, y) => Number(x[0]) - Number(y[0])),
      [
        [5, 1 * GiB],
        [6, 2 * MiB],
        [7, 3 * MiB],
      ],
    );
    const params = { device: 0, file: userPath('train.py'), line: 5, maxSizes: 6, maxStacks: 3 };
    const detail = await snapshot.lineDetail(params);
    assert.equal(await snapshot.call('lineDetail', { ...params }), detail);
    await snapshot.lineDetail({ ...params, maxStacks: 1 });
    await snapshot.lineFunctions();
    assert.deepEqual(await snapshot.call('lineFunctions', {}), await snapshot.lineFunctions());
    assert.deepEqual([worker.count('lines'), worker.count('lineDetail'), worker.count('lineFunctions')], [1, 2, 1]);
    assert.deepEqual(snapshot.held(), { lineDevices: 1, lineDetails: 2, lineFunctions: true, sources: false, findings: false });
  });

  it('asks for the advisor\'s findings once, with the sources it is given, for the Problems panel and the summary alike', async () => {
    const { snapshot, worker } = loaded();
    let read = 0;
    const sources = () =>
      snapshot.sourceTexts(() => {
        read++;
        return Promise.resolve(new Map([[userPath('train.py'), 'x = 1']]));
      });
    const [a, b] = await Promise.all([snapshot.findings(sources), snapshot.findings(sources)]);
    assert.equal(a, b, 'one answer');
    assert.equal(worker.count('advice'), 1);
    assert.equal(read, 1);
    assert.equal(snapshot.held().findings, true);
  });

  it('does not keep a failed answer: the next caller asks again', async () => {
    const { snapshot, worker } = loaded();
    await assert.rejects(snapshot.lines(7), /device 7/);
    assert.equal(snapshot.held().lineDevices, 0);
    await assert.rejects(snapshot.lines(7));
    assert.equal(worker.count('lines'), 2);
  });

  it('keeps at most LINE_DETAIL_CACHE_SIZE line details, dropping the oldest asked', async () => {
    const { snapshot, worker } = loaded();
    const ask = (stacks: number) => snapshot.lineDetail({ device: 0, file: userPath('train.py'), line: 6, maxStacks: stacks });
    for (let i = 0; i <= LINE_DETAIL_CACHE_SIZE; i++) await ask(i);
    assert.equal(snapshot.held().lineDetails, LINE_DETAIL_CACHE_SIZE);
    await ask(LINE_DETAIL_CACHE_SIZE);
    assert.equal(worker.count('lineDetail'), LINE_DETAIL_CACHE_SIZE + 1, 'the newest is still held');
    await ask(0);
    assert.equal(worker.count('lineDetail'), LINE_DETAIL_CACHE_SIZE + 2, 'the oldest was dropped');
  });

  it('captures the source texts once, with the first caller\'s reader', async () => {
    const { snapshot } = loaded();
    let reads = 0;
    const capture = (): Promise<SourceReading> => {
      reads++;
      return Promise.resolve(new Map([['f.py', `read ${reads}`]]));
    };
    const [a, b] = await Promise.all([snapshot.sourceTexts(capture), snapshot.sourceTexts(capture)]);
    assert.equal(a, b);
    assert.equal(reads, 1);
    assert.equal(a.get('f.py')?.text, 'read 1');
  });

  it('a re-attribution drops the answers of the old attribution, keeps the captured sources and bumps the revision', async () => {
    const { snapshot, worker } = loaded();
    await fill(snapshot);
    const before = await snapshot.lines();
    assert.equal(snapshot.revision, 0);
    await snapshot.refilter({ includeLibraryFrames: true });
    assert.equal(snapshot.revision, 1);
    assert.deepEqual(snapshot.held(), { ...NOTHING_HELD, sources: true });
    const after = await snapshot.lines();
    assert.equal(worker.count('lines'), 2, 'asked again after the re-attribution');
    // With library frames shown, the Adam line (torch) takes line 7's 3 MiB as its own.
    assert.ok(!before.some((l) => l.line === 90));
    assert.equal(after.find((l) => l.line === 90)?.allocBytes, 3 * MiB);
  });

  it('closing it ends the worker and leaves none of its state behind; later questions are refused', async () => {
    const { snapshot, worker } = loaded();
    await fill(snapshot);
    assert.deepEqual(snapshot.held(), { lineDevices: 1, lineDetails: 1, lineFunctions: true, sources: true, findings: true });
    await snapshot.dispose();
    assert.ok(worker.disposed && snapshot.isDisposed);
    assert.deepEqual(snapshot.held(), NOTHING_HELD);
    const asked = worker.asked.length;
    await assert.rejects(snapshot.lines(), /train was closed/);
    await assert.rejects(snapshot.lineDetail({ device: 0, file: userPath('train.py'), line: 5 }), /closed/);
    await assert.rejects(snapshot.lineFunctions(), /closed/);
    assert.equal((await snapshot.sourceTexts(() => Promise.resolve(new Map([['f.py', 'x']])))).size, 0, 'nothing captured after closing');
    assert.equal(worker.asked.length, asked, 'the closed worker was not asked');
    assert.deepEqual(snapshot.held(), NOTHING_HELD);
  });
});
