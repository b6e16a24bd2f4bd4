/** A snapshot worker computes the advisor's findings once per filter, for the Problems panel and the timeline alike. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { advise } from '../../../../src/engine/advice/advise';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { SnapshotSession } from '../../../../src/engine/session/session';
import { corpusDir, corpusMissing } from '../../../helpers/corpus';

describe('session advice', { skip: corpusMissing }, () => {
  const file = path.join(corpusDir, 'silmont2000-cs336-small.pickle');
  const open = () => new SnapshotSession(snapshotFromBytes(readFileSync(file)), 0, {});

  it('answers repeated questions from one computation, equal to the advisor run directly', () => {
    const session = open();
    const first = session.advice(0);
    assert.equal(session.advice(0), first, 'the same findings object, not a second run');
    assert.deepEqual(first, advise(session.analysis, { device: 0 }));
  });

  it('runs again after the user-frame filter changes', () => {
    const session = open();
    const before = session.advice();
    session.setFilter({ includeLibraryFrames: true });
    const after = session.advice();
    assert.notEqual(after, before);
    assert.deepEqual(after, advise(session.analysis, {}));
  });

  it('rejects a device the snapshot does not have', () => {
    assert.throws(() => open().advice(7), /no device 7/);
  });
});
