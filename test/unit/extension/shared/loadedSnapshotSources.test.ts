/**
 * A loaded snapshot holds its source texts once and sends them to its worker once per revision:
 * the advisor's questions (the Problems panel's `advice`, the timeline's `timelineFindings`) refer to
 * the texts the worker holds, and only a file whose text changed crosses again. Counted at the
 * boundary, with the worker answering in this process.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SourceUpdate } from '../../../../src/protocol/worker';
import { LoadedSnapshot } from '../../../../src/extension/shared/loadedSnapshot';
import { InProcessWorker } from '../../../helpers/inProcessWorker';
import { INFER_PY, MODEL_PY, MODEL_SOURCE, inferPy, inferenceRun } from '../../../helpers/inferenceRun';

const RULE = 'inference-without-no-grad';

function loaded(): { snapshot: LoadedSnapshot; worker: InProcessWorker } {
  const worker = new InProcessWorker(inferenceRun());
  return { snapshot: new LoadedSnapshot('s1', 'infer', undefined, 'file', worker, worker.info()), worker };
}

const captured = (texts: Record<string, string>) => () => Promise.resolve(new Map(Object.entries(texts)));

/** What crossed to the worker in `setSources` requests: the files, and the characters of text. */
function sent(worker: InProcessWorker): { files: SourceUpdate[][]; chars: number } {
  const files = worker.paramsOf('setSources').map((p) => [...p.files]);
  return { files, chars: files.flat().reduce((n, f) => n + (f.text?.length ?? 0), 0) };
}

describe('LoadedSnapshot source texts', () => {
  it('sends the captured texts once, before the first question that reads them, and refers to them after', async () => {
    const { snapshot, worker } = loaded();
    await snapshot.sourceTexts(captured({ [INFER_PY]: inferPy(), [MODEL_PY]: MODEL_SOURCE }));
    assert.equal(worker.count('setSources'), 0, 'nothing crosses before a question needs the texts');
    const first = await snapshot.call('advice', {});
    for (let i = 0; i < 3; i++) await snapshot.call('advice', {});
    await snapshot.call('advice', { device: 0 });
    await snapshot.call('timelineFindings', { device: 0, axis: 'event' });
    assert.equal(worker.count('setSources'), 1);
    assert.equal(worker.count('advice'), 5);
    assert.equal(sent(worker).chars, inferPy().length + MODEL_SOURCE.length, 'each text crossed once');
    assert.deepEqual(worker.paramsOf('advice'), [{}, {}, {}, {}, { device: 0 }], 'advice calls carry no texts');
    assert.ok(first.some((f) => f.rule === RULE && f.message.includes('The source shows no torch.no_grad()')), 'the advisor read infer.py: its finding says what the source shows');
    assert.equal(snapshot.lineText()(INFER_PY, 10), 'out = model(batch)', 'the host reads lines from the same texts');
  });

  it('sends only a file whose text changed, at a new revision, and the worker works the findings out again', async () => {
    const { snapshot, worker } = loaded();
    await snapshot.sourceTexts(captured({ [INFER_PY]: inferPy(), [MODEL_PY]: MODEL_SOURCE }));
    assert.ok((await snapshot.call('advice', {})).some((f) => f.rule === RULE));
    await snapshot.updateSourceTexts(() => Promise.resolve(new Map([[INFER_PY, inferPy('torch.set_grad_enabled(False)')], [MODEL_PY, MODEL_SOURCE]])));
    const after = await snapshot.call('advice', {});
    assert.ok(!after.some((f) => f.rule === RULE), 'the new text turns gradients off');
    const { files } = sent(worker);
    assert.equal(files.length, 2);
    assert.deepEqual(files[1].map((f) => f.file), [INFER_PY], 'the unchanged model.py did not cross again');
    assert.ok(files[1][0].revision > files[0].find((f) => f.file === INFER_PY)!.revision);
    assert.equal(snapshot.lineText()(INFER_PY, 2), 'torch.set_grad_enabled(False)');
  });

  it('asks nothing more when an update changes no text, or after a re-attribution', async () => {
    const { snapshot, worker } = loaded();
    await snapshot.sourceTexts(captured({ [INFER_PY]: inferPy() }));
    await snapshot.call('advice', {});
    await snapshot.updateSourceTexts(captured({ [INFER_PY]: inferPy() }));
    await snapshot.refilter({ includeLibraryFrames: false });
    assert.equal(snapshot.revision, 1, 're-attributed');
    assert.ok((await snapshot.call('advice', {})).some((f) => f.rule === RULE), 'the worker kept the texts across the re-attribution');
    assert.equal(worker.count('setSources'), 1);
  });

  it('tells the worker to forget a file an update drops', async () => {
    const { snapshot, worker } = loaded();
    await snapshot.sourceTexts(captured({ [INFER_PY]: inferPy(), [MODEL_PY]: MODEL_SOURCE }));
    await snapshot.call('advice', {});
    await snapshot.updateSourceTexts(() => Promise.resolve(new Map([[INFER_PY, undefined]])));
    assert.ok(!(await snapshot.call('advice', {})).some((f) => f.rule === RULE));
    const { files, chars } = sent(worker);
    assert.deepEqual(files[1], [{ file: INFER_PY, revision: files[0].find((f) => f.file === INFER_PY)!.revision, text: null }]);
    assert.equal(chars, inferPy().length + MODEL_SOURCE.length, 'forgetting sends no text');
    assert.equal(snapshot.lineText()(INFER_PY, 10), undefined);
  });

  it('waits for a capture in flight, so the findings are worked out once, with the texts', async () => {
    const { snapshot, worker } = loaded();
    let release: () => void = () => undefined;
    const reading = new Promise<void>((resolve) => (release = resolve));
    const capture = snapshot.sourceTexts(async () => {
      await reading;
      return new Map([[INFER_PY, inferPy()]]);
    });
    const advice = snapshot.call('advice', {});
    release();
    await capture;
    assert.ok((await advice).some((f) => f.rule === RULE));
    assert.deepEqual(worker.asked, ['setSources', 'advice']);
  });

  it('without texts, asks the advice alone; closed, asks nothing', async () => {
    const { snapshot, worker } = loaded();
    assert.ok(!(await snapshot.call('advice', {})).some((f) => f.rule === RULE));
    assert.deepEqual(worker.asked, ['advice']);
    await snapshot.sourceTexts(captured({ [INFER_PY]: inferPy() }));
    await snapshot.dispose();
    await assert.rejects(snapshot.call('advice', {}), /closed/);
    assert.deepEqual(worker.asked, ['advice']);
    assert.equal(snapshot.held().sources, false);
  });
});
