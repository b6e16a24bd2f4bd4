/** What the profiling notification and status bar say as the bootstrap's records arrive. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProfileRecord } from '../../../../src/protocol/profile';
import { RunProgress } from '../../../../src/extension/profile/runProgress';

const MiB = 1024 * 1024;
const hello: ProfileRecord = { type: 'hello', python: '3.11', torch: '2.4.0', cuda: '12.1', api: '2.1', devices: 1, snapshot: '/tmp/s.pickle' };
const sample = (t: number, allocated: number, peak: number): ProfileRecord => ({
  type: 'progress',
  t,
  devices: [{ index: 0, allocated, peakAllocated: peak, reserved: 2 * peak, peakReserved: 2 * peak }],
});

describe('RunProgress', () => {
  it('starts, runs with live memory, writes the snapshot and runs on', () => {
    const p = new RunProgress();
    assert.equal(p.text(), 'starting');
    assert.equal(p.statusText(), '$(pulse) VRAM Lens (starting)');
    assert.ok(p.apply(hello));
    assert.equal(p.torch, '2.4.0');
    assert.equal(p.text(), 'waiting for GPU memory · 0s');
    assert.ok(p.apply(sample(3.7, 64 * MiB, 96 * MiB)));
    assert.equal(p.text(), '64.0 MiB allocated, peak 96.0 MiB (reserved 192.0 MiB) · 3s');
    assert.equal(p.statusText(), '$(pulse) VRAM peak 96.0 MiB');
    assert.ok(p.apply({ type: 'dumping', reason: 'end', t: 4 }));
    assert.equal(p.text(), 'writing the snapshot');
    assert.equal(p.statusText(), '$(pulse) VRAM peak 96.0 MiB (writing the snapshot)');
    assert.ok(p.apply({ type: 'dumped', reason: 'end', path: '/tmp/s.pickle', bytes: 10, seconds: 1 }));
    assert.match(p.text(), /allocated/);
  });

  it('once cancelling, a finished dump leaves it cancelling; a notice changes nothing shown', () => {
    const p = new RunProgress();
    p.apply(hello);
    p.cancelling();
    assert.equal(p.text(), 'cancelling');
    assert.ok(p.apply({ type: 'dumping', reason: 'cancel', t: 1 }));
    assert.ok(p.apply({ type: 'dump-failed', reason: 'cancel', message: 'disk full' }));
    assert.equal(p.text(), 'cancelling');
    assert.equal(p.apply({ type: 'notice', code: 'x', message: 'hello' }), false);
  });
});
