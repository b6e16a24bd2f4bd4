/** The worker methods that compare and advise: `totals` and `advice`, as the extension calls them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MethodContext } from '../../../../src/runtime/worker/methods';
import { dispatch } from '../../../../src/runtime/worker/methods';
import { SnapshotSession } from '../../../../src/engine/session/session';
import { GiB, MiB, TraceBuilder, user } from '../../../helpers/traceBuilder';

function sessionWithOom(): MethodContext {
  const b = new TraceBuilder();
  const a = b.alloc(1 * GiB, [user('train.py', 5)]);
  b.alloc(2 * GiB, [user('train.py', 6)]);
  b.free(a, [user('train.py', 7)]);
  b.oom(4 * GiB, 10 * MiB, [user('train.py', 8)]);
  return { session: new SnapshotSession(b.snapshot(), 0, {}), progress: () => undefined };
}

describe('worker methods for compare and advice', () => {
  it('totals: the active curve, max-downsampled, survives structured cloning', () => {
    const ctx = sessionWithOom();
    const series = dispatch('totals', { device: 0, axis: 'event', points: 3 }, ctx);
    const copy = structuredClone(series);
    assert.equal(copy.extent, 6, 'five events plus the initial state');
    assert.deepEqual(copy.active, [1 * GiB, 3 * GiB, 2 * GiB]);
  });

  it('advice: the OOM finding for the device, and an error for a device that is not there', () => {
    const ctx = sessionWithOom();
    const findings = structuredClone(dispatch('advice', { device: 0 }, ctx));
    assert.deepEqual(
      findings.map((f) => [f.rule, f.line]),
      [['out-of-memory', 8]],
    );
    assert.throws(() => dispatch('advice', { device: 3 }, ctx), /no device 3/);
  });
});
