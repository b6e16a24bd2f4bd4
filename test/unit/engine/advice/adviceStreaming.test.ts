/**
 * The advisor on a long trace: every rule's memory must grow with the live blocks, the lines and
 * the stacks, never with the number of events (a 34 M-event trace once crashed the in-place rule
 * with "Map maximum size exceeded"). Here Map and Set are capped far below the event count while
 * the rules run over a training step repeated to a million events.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { advise } from '../../../../src/engine/advice/advise';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { repeatTrace } from '../../../helpers/repeatTrace';
import type { TestFrame } from '../../../helpers/traceBuilder';
import { CALL_IMPL, MiB, TraceBuilder, native, torch, user, userPath } from '../../../helpers/traceBuilder';

const CAP = 5_000;

/** Runs `work` with Map and Set refusing to hold more than `cap` entries. */
function withCappedCollections<T>(cap: number, work: () => T): T {
  const { Map: RealMap, Set: RealSet } = globalThis;
  class CappedMap<K, V> extends RealMap<K, V> {
    override set(key: K, value: V): this {
      if (this.size >= cap && !this.has(key)) throw new RangeError(`Map over ${cap} entries`);
      return super.set(key, value);
    }
  }
  class CappedSet<V> extends RealSet<V> {
    override add(value: V): this {
      if (this.size >= cap && !this.has(value)) throw new RangeError(`Set over ${cap} entries`);
      return super.add(value);
    }
  }
  globalThis.Map = CappedMap;
  globalThis.Set = CappedSet;
  try {
    return work();
  } finally {
    globalThis.Map = RealMap;
    globalThis.Set = RealSet;
  }
}

const BACKWARD: TestFrame[] = [native('torch::autograd::Engine::evaluate_function()'), torch('_tensor.py', 626, 'backward'), user('train.py', 12, 'train')];

/** One training step: a forward keeping activations, a backward freeing them, `p = p - lr * g`. */
function step() {
  const b = new TraceBuilder();
  const p = b.alloc(64 * MiB, [user('model.py', 5, '__init__'), user('train.py', 3)]);
  const g = b.alloc(64 * MiB, [...BACKWARD]);
  const acts: number[] = [];
  for (let l = 0; l < 4; l++) acts.push(b.alloc(32 * MiB, [native('at::mm'), user('model.py', 20, 'forward'), CALL_IMPL, user('train.py', 10, 'train')]));
  for (const a of acts) b.free(a, BACKWARD);
  const at = [native('at::mul'), user('train.py', 14, 'train')];
  const t1 = b.alloc(64 * MiB, at);
  const next = b.alloc(64 * MiB, at);
  b.free(t1, [user('train.py', 14, 'train')]);
  b.free(p, [user('train.py', 14, 'train')]);
  b.free(next, [user('train.py', 15, 'train')]);
  b.free(g, [user('train.py', 15, 'train')]);
  return b.snapshot();
}

const SOURCES: Record<string, string> = {
  [userPath('train.py')]: ['import torch', '', 'model = Model()', '', '', '', '', '', 'def train():', '    out = model(x)', '', '    loss.backward()', '', '    p = p - lr * g', '    del out'].join('\n'),
};

describe('advice on a long trace', () => {
  it('the cap does refuse an event-sized collection (the test can fail)', () => {
    assert.throws(() => withCappedCollections(CAP, () => new Map(Array.from({ length: CAP + 1 }, (_, i) => [i, i]))), /Map over/);
    assert.throws(() => withCappedCollections(CAP, () => new Set(Array.from({ length: CAP + 1 }, (_, i) => i))), /Set over/);
  });

  it('every rule runs over a million events with Map and Set capped at 5,000 entries, and counts every step', () => {
    const one = step();
    const big = repeatTrace(one, 1_000_000);
    const events = big.traces[0].length;
    assert.ok(events >= 1_000_000 - one.traces[0].length, `${events} events`);
    const copies = events / one.traces[0].length;
    const analysis = analyzeSnapshot(big);
    const findings = withCappedCollections(CAP, () => advise(analysis, { fileText: (file) => SOURCES[file] }));
    const inPlace = findings.find((f) => f.rule === 'in-place-arithmetic');
    assert.ok(inPlace, 'the in-place rule found train.py:14');
    assert.equal(inPlace.line, 14);
    // Per step: p * lr ... one temporary freed within the line, and the new p replacing the old one.
    assert.equal(inPlace.evidence.temporaryCount, copies);
    assert.equal(inPlace.evidence.replacedCount, copies);
  });
});
