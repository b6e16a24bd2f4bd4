/** The allocator's worker queries as the extension calls them: answers survive structured cloning and stay bounded. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MiB } from '../../../../src/engine/allocator/sizes';
import type { MethodContext } from '../../../../src/runtime/worker/methods';
import { dispatch } from '../../../../src/runtime/worker/methods';
import { SnapshotSession } from '../../../../src/engine/session/session';
import { RecordedTrace } from '../../../helpers/recordedTrace';
import { user } from '../../../helpers/traceBuilder';

const S = 0x7f00_0000_0000;

/** A 100 MiB segment allocated whole, freed, then cut into forty 2 MiB blocks (20 MiB left free). */
function session(): MethodContext {
  const t = new RecordedTrace().segmentAlloc(S, 100 * MiB, [user('w.py', 1)]).alloc(S, 100 * MiB, [user('w.py', 1)]).free(S, 100 * MiB);
  const blocks: [number, 'active_allocated' | 'inactive'][] = [];
  for (let k = 0; k < 40; k++) {
    t.alloc(S + k * 2 * MiB, 2 * MiB, [user('w.py', 2)]);
    blocks.push([2 * MiB, 'active_allocated']);
  }
  blocks.push([20 * MiB, 'inactive']);
  const snap = t.snapshot([{ address: S, type: 'large', blocks }], {});
  return { session: new SnapshotSession(snap, 0, {}), progress: () => undefined };
}

describe('worker methods for the allocator', () => {
  it('allocatorCheck, allocatorSegmentMap, allocatorOoms, allocatorWhatIf, allocatorWhatIfTable', () => {
    const ctx = session();
    const check = structuredClone(dispatch('allocatorCheck', { device: 0 }, ctx));
    assert.deepEqual(check.check, { allocations: 41, atRecordedAddress: 41, segmentEvents: 1, segmentEventsReproduced: 1, firstDeparture: null });
    const map = structuredClone(dispatch('allocatorSegmentMap', { device: 0, event: 1e9, maxBlocks: 10 }, ctx));
    assert.equal(map.segments[0].blocks.length, 10);
    assert.equal(map.segments[0].blocksOmitted, 31, '40 allocated blocks and the free tail, 10 listed');
    assert.equal(map.lines.length, 1);
    assert.deepEqual(structuredClone(dispatch('allocatorOoms', { device: 0 }, ctx)), []);
    const w = structuredClone(dispatch('allocatorWhatIf', { device: 0, capacity: 50 * MiB }, ctx));
    assert.equal(w.oom?.event, 1, 'the first 100 MiB request does not fit in 50 MiB');
    const table = structuredClone(dispatch('allocatorWhatIfTable', { device: 0 }, ctx));
    assert.equal(table.rows.length, 3);
    assert.ok(table.rows[0].cells.every((c) => c.fits));
  });

  it('clamps what callers ask for and refuses bad settings and devices', () => {
    const ctx = session();
    const map = dispatch('allocatorSegmentMap', { device: 0, event: 1e9, maxBlocks: -4 }, ctx);
    assert.deepEqual([map.segments[0].blocks.length, map.segments[0].blocksOmitted], [0, 41]);
    assert.throws(() => dispatch('allocatorWhatIf', { device: 0, allocConf: 'bogus:1' }, ctx), { name: 'AllocConfError' });
    assert.throws(() => dispatch('allocatorCheck', { device: 2 }, ctx), /no device 2/);
  });
});
