/**
 * A forward-only run whose activations stay live (infer.py:10 calls a 4-layer model twice): the
 * advisor's inference-without-no-grad rule speaks about it only when it can read infer.py, and stays
 * silent when that source turns gradients off. Tests of how source texts reach the advisor use it.
 */
import type { Snapshot } from '../../src/engine/snapshot/model';
import { CALL_IMPL, MiB, TraceBuilder, native, user, userPath } from './traceBuilder';

export const INFER_PY = userPath('infer.py');
export const MODEL_PY = userPath('model.py');

export function inferenceRun(): Snapshot {
  const b = new TraceBuilder();
  b.alloc(64 * MiB, [user('model.py', 5, '__init__'), user('infer.py', 3)]);
  const layer = [native('at::mm'), user('model.py', 20, 'forward'), CALL_IMPL, user('model.py', 40, 'forward'), CALL_IMPL, user('infer.py', 10)];
  for (let request = 0; request < 2; request++) {
    const acts: number[] = [];
    for (let l = 0; l < 4; l++) acts.push(b.alloc(32 * MiB, layer));
    const out = b.alloc(1 * MiB, [native('at::mm'), user('model.py', 42, 'forward'), CALL_IMPL, user('infer.py', 10)]);
    for (const a of acts) b.free(a, [user('infer.py', 11)]);
    b.free(out, [user('infer.py', 11)]);
  }
  return b.snapshot();
}

/** infer.py as the run had it (line 10 calls the model); `header` goes on line 2. */
export function inferPy(header = ''): string {
  return ['import torch', header, '', '', '', '', '', '', '', 'out = model(batch)', 'del out', ''].join('\n');
}

export const MODEL_SOURCE = ['import torch', 'class Model(torch.nn.Module):', '    pass', ''].join('\n');
