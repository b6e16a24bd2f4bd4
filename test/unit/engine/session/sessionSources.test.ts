/**
 * A session holds the program's source texts for the advisor, each file at a revision: a text is
 * replaced, and the findings worked out again, only when its revision changes (texts are never compared).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { advise } from '../../../../src/engine/advice/advise';
import { SnapshotSession } from '../../../../src/engine/session/session';
import { INFER_PY, MODEL_PY, MODEL_SOURCE, inferPy, inferenceRun } from '../../../helpers/inferenceRun';

const RULE = 'inference-without-no-grad';

describe('session source texts', () => {
  const open = () => new SnapshotSession(inferenceRun(), 0, {});
  const speaks = (findings: readonly { rule: string }[]) => findings.some((f) => f.rule === RULE);

  it('gives the advisor the texts set, and the findings are the advisor run on them', () => {
    const session = open();
    assert.ok(!speaks(session.advice(0)), 'without infer.py the rule stays silent');
    assert.deepEqual(session.setSources([{ file: INFER_PY, revision: 1, text: inferPy() }]), { [INFER_PY]: 1 });
    const findings = session.advice(0);
    assert.ok(speaks(findings));
    assert.deepEqual(findings, advise(session.analysis, { device: 0, fileText: (f) => (f === INFER_PY ? inferPy() : undefined) }));
  });

  it('works the findings out again only when a revision changed', () => {
    const session = open();
    session.setSources([{ file: INFER_PY, revision: 1, text: inferPy() }]);
    const first = session.advice(0);
    session.setSources([{ file: INFER_PY, revision: 1, text: inferPy() }]);
    assert.equal(session.advice(0), first, 'same revision: the same findings object');
    session.setSources([{ file: INFER_PY, revision: 1, text: inferPy('torch.set_grad_enabled(False)') }]);
    assert.equal(session.advice(0), first, 'texts are told apart by revision: a new text at the same revision is not read');
    session.setSources([{ file: MODEL_PY, revision: 2, text: MODEL_SOURCE }]);
    const second = session.advice(0);
    assert.notEqual(second, first, 'a new file: worked out again');
    assert.deepEqual(second, first, 'to the same findings');
    assert.deepEqual(session.setSources([{ file: INFER_PY, revision: 3, text: inferPy('torch.set_grad_enabled(False)') }]), { [INFER_PY]: 3, [MODEL_PY]: 2 });
    assert.ok(!speaks(session.advice(0)), 'the new revision turns gradients off: the rule is silent');
  });

  it('forgets a file sent without text, and keeps the texts across a change of filter', () => {
    const session = open();
    session.setSources([{ file: INFER_PY, revision: 1, text: inferPy() }]);
    session.setFilter({ includeLibraryFrames: false });
    assert.ok(speaks(session.advice(0)), 'the texts outlive a re-attribution');
    const before = session.advice(0);
    assert.deepEqual(session.setSources([{ file: 'nothing.py', revision: 9, text: null }]), { [INFER_PY]: 1 });
    assert.equal(session.advice(0), before, 'forgetting a file it does not hold changes nothing');
    assert.deepEqual(session.setSources([{ file: INFER_PY, revision: 1, text: null }]), {});
    assert.ok(!speaks(session.advice(0)));
  });
});
