/**
 * Where replaying the caching allocator does not apply, the self-check says so in plain words instead of
 * reporting a failed check: the sample snapshots (written by VRAM Lens from onnxruntime runs on the CPU,
 * with a `vram_lens` key) and a trace with allocations but no segment at all. A PyTorch recording keeps
 * its check. What ran the sample is read from the snapshot too, so the status bar names it (`CPU`, not
 * `cuda:0`).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { selfCheck } from '../../../../src/engine/allocator/selfCheck';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { SnapshotSession } from '../../../../src/engine/session/session';
import { deviceShortName } from '../../../../src/extension/editor/statusText';
import { selfCheckLines } from '../../../../webview/shared/selfCheckText';
import { MiB, TraceBuilder, user } from '../../../helpers/traceBuilder';
import { RecordedTrace } from '../../../helpers/recordedTrace';

const root = path.resolve(__dirname, '..', '..', '..', '..', '..');
const sample = (file: string) => snapshotFromBytes(new Uint8Array(readFileSync(path.join(root, 'media', 'samples', file))));

describe('allocator replay that does not apply', () => {
  for (const file of ['similarity-eager.pickle', 'train-step.pickle']) {
    it(`${file}: written by VRAM Lens on the CPU, so the summary says replay does not apply, not a failed check`, () => {
      const snap = sample(file);
      assert.deepEqual(snap.producer, { tool: 'vram-lens', provider: 'cpu' });
      const c = selfCheck(snap, 0);
      // Without the guard the replay departs at once (the workload's one big segment is not what the allocator would make).
      assert.notEqual(c.check.firstDeparture, null, 'the replay itself does depart');
      assert.match(c.notReplayable ?? '', /VRAM Lens wrote this snapshot from a run of its own on the CPU, not PyTorch's caching allocator, so there is no allocator to replay/);
      const words = selfCheckLines(c);
      assert.equal(words.ok, true, 'not shown as a warning');
      assert.deepEqual(words.lines, [c.notReplayable]);
      assert.ok(!words.lines.some((l) => /departs|reproduced/.test(l)), 'no failed-check figures');
    });

    it(`${file}: the status bar names the CPU it ran on, as the snapshot says`, () => {
      const info = new SnapshotSession(sample(file), 0, {}).info();
      assert.equal(info.producer?.provider, 'cpu');
      assert.equal(deviceShortName(0, info.producer?.provider), 'CPU');
    });
  }

  it('a trace with allocations and no segment at all (none held, none made) is not replayable', () => {
    const b = new TraceBuilder();
    b.alloc(4 * MiB, [user('a.py', 1)]);
    b.alloc(2 * MiB, [user('a.py', 2)]);
    const c = selfCheck(b.snapshot([]), 0);
    assert.match(c.notReplayable ?? '', /records allocations but no memory segment/);
    assert.equal(selfCheckLines(c).ok, true);
  });

  it('a PyTorch recording keeps its check (no producer, segments recorded)', () => {
    const S = 0x7f00_0000_0000;
    const t = new RecordedTrace().segmentAlloc(S, 20 * MiB, [user('a.py', 1)]).alloc(S, 3 * MiB, [user('a.py', 1)]);
    const snap = t.snapshot([{ address: S, type: 'large', blocks: [[3 * MiB, 'active_allocated'], [17 * MiB, 'inactive']] }]);
    assert.equal(snap.producer, undefined);
    const c = selfCheck(snap, 0);
    assert.equal(c.notReplayable, undefined);
    assert.match(selfCheckLines(c).lines[0], /^The trace replayed with the recorded settings/);
    // Segments held before recording, with no segment event in the trace: still a caching allocator's trace.
    const b = new TraceBuilder();
    b.alloc(4 * MiB, [user('a.py', 1)]);
    assert.equal(selfCheck(b.snapshot(), 0).notReplayable, undefined);
  });
});
