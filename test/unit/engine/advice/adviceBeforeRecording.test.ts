/**
 * The before-recording rule: fires when memory allocated before recording began is a large share of
 * the peak (the peak's `beforeRecording` bucket, by construction here), stays silent otherwise.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { advise } from '../../../../src/engine/advice/advise';
import { MIN_BYTES, beforeRecording } from '../../../../src/engine/advice/rules/beforeRecording';
import { GiB, MiB, TraceBuilder, user } from '../../../helpers/traceBuilder';

/** A trace whose program allocates `traced` bytes, beside weights of `weights` bytes made before recording. */
function analysis(weights: number, traced: number) {
  const t = new TraceBuilder();
  const addr = t.alloc(traced, [user('train.py', 12, 'step')]);
  const weightsAt = 0x10_0000_0000;
  const block = (address: number, size: number) => ({ address, size, requested_size: size, state: 'active_allocated', frames: [] });
  const segment = (address: number, blocks: ReturnType<typeof block>[]) => ({
    device: 0,
    address,
    total_size: blocks.reduce((s, b) => s + b.size, 0),
    stream: 0,
    segment_type: 'large',
    is_expandable: false,
    frames: [],
    blocks,
  });
  return t.analysis([segment(weightsAt, [block(weightsAt, weights)]), segment(addr, [block(addr, traced)])]);
}

describe('rule: before-recording', () => {
  it('says how much of the peak predates recording and suggests recording earlier or Profile VRAM', () => {
    const findings = advise(analysis(3 * GiB, 1 * GiB), { rules: [beforeRecording] });
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f.rule, 'before-recording');
    assert.deepEqual(f.evidence, { beforeRecordingBytes: 3 * GiB, peakBytes: 4 * GiB, beforeRecordingPercent: 75 });
    assert.match(f.title, /^75% of the peak was allocated before recording began$/);
    assert.match(f.message, /3\.0 GiB of the 4\.0 GiB peak/);
    assert.match(f.message, /start\w* recording before the model is built, or use Profile VRAM/);
  });

  it('is one of the advisor rules', () => {
    const all = advise(analysis(3 * GiB, 1 * GiB));
    assert.ok(all.some((f) => f.rule === 'before-recording'));
  });

  it('stays silent when memory from before recording is a small share of the peak', () => {
    assert.deepEqual(advise(analysis(100 * MiB, 1 * GiB), { rules: [beforeRecording] }), []);
  });

  it('stays silent for small snapshots, whatever the share', () => {
    assert.deepEqual(advise(analysis(MIN_BYTES - 1, MIN_BYTES / 4), { rules: [beforeRecording] }), []);
  });

  it('stays silent when everything was recorded', () => {
    assert.deepEqual(advise(analysis(0, 1 * GiB), { rules: [beforeRecording] }), []);
  });
});
