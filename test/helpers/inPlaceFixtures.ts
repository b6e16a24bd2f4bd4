/**
 * Two small programs and the traces they would record, for the in-place advice (unit and UI tests):
 *
 * - `nca.py`, the shape of the issue's 3D NCA inference run: `update` is called 41 times; its
 *   `dx = dx * stochastic` (line 9) replaces dx's block by one of the same size each time and
 *   `x = x+dx.transpose(1,4)` (line 10) makes a block freed when the caller clones it; the device's
 *   peak comes after the loop (`torch.cat`, line 17), when none of those blocks is live. Lines 9 and
 *   10 hold 0 B at the peak. `x` is `x_in.transpose(1, 4)`, a view of the caller's tensor, and `dx`
 *   comes from a module call: no in-place fix is safe there.
 * - `attn.py`: `s = s / math.sqrt(d)` (line 7) on `s = q @ k.transpose(-2, -1)`, a tensor the
 *   function made: the fix is safe. Three calls; the peak is reached while line 7's result and the
 *   old `s` are both live, so the in-place form lowers it.
 *
 * Each lists its source and the expected figures, derived by hand from the events below.
 */
import type { Snapshot } from '../../src/engine/snapshot/model';
import type { TestFrame } from './traceBuilder';
import { MiB, TraceBuilder, native, torch, user } from './traceBuilder';

export interface InPlaceFixture {
  /** The file as recorded (under /home/me/proj/) and as it would sit in a workspace. */
  readonly file: string;
  readonly source: string;
  readonly snapshot: () => Snapshot;
  readonly pickle: () => Uint8Array;
}

export const NCA_SOURCE = [
  'import torch',
  'torch.set_grad_enabled(False)',
  '',
  '',
  'def update(x_in, p0, fire_rate):',
  '    x = x_in.transpose(1, 4)',
  '    dx = p0(x)',
  '    stochastic = torch.rand(dx.shape, device=dx.device) > fire_rate',
  '    dx = dx * stochastic',
  '    x = x+dx.transpose(1,4)',
  '    return x.transpose(1, 4)',
  '',
  '',
  'def run(x, p0, steps):',
  '    for _ in range(steps):',
  '        x = update(x, p0, 0.5).clone()',
  '    out = torch.cat([x, x, x, x], 0)',
  '    return out',
  '',
].join('\n');

/** nca.py's figures: S per state tensor, 41 steps. */
export const NCA = {
  file: 'nca.py',
  steps: 41,
  size: 50 * MiB,
  /** `dx = dx * stochastic` and `x = x+dx.transpose(1,4)`. */
  dxLine: 9,
  xLine: 10,
  catLine: 17,
} as const;

function ncaTrace(): TraceBuilder {
  const S = NCA.size;
  const b = new TraceBuilder();
  const run = user(NCA.file, 16, 'run');
  const at = (line: number, op: string): TestFrame[] => [native(op), user(NCA.file, line, 'update'), run];
  // The caller's first x, made before the loop (line 16's clone stands for it).
  let x = b.alloc(S, [native('at::clone'), run]);
  for (let step = 0; step < NCA.steps; step++) {
    const d = b.alloc(S, [native('at::convolution'), torch('nn/modules/conv.py', 717, '_conv_forward'), user(NCA.file, 7, 'update'), run]);
    const m = b.alloc(S / 4, at(8, 'at::gt'));
    const n = b.alloc(S, at(NCA.dxLine, 'at::mul'));
    b.free(d, [user(NCA.file, NCA.dxLine, 'update'), run]);
    const r = b.alloc(S, at(NCA.xLine, 'at::add'));
    // Back in `run`: `.clone()` copies the result; then update's locals and the old x go.
    const c = b.alloc(S, [native('at::clone'), run]);
    for (const dead of [r, n, m, x]) b.free(dead, [run]);
    x = c;
  }
  b.alloc(4 * S, [native('at::cat'), user(NCA.file, NCA.catLine, 'run')]);
  return b;
}

export const ncaFixture: InPlaceFixture = {
  file: NCA.file,
  source: NCA_SOURCE,
  snapshot: () => ncaTrace().snapshot(),
  pickle: () => ncaTrace().pickle(),
};

export const ATTN_SOURCE = [
  'import math',
  'import torch',
  '',
  '',
  'def scores(q, k, d):',
  '    s = q @ k.transpose(-2, -1)',
  '    s = s / math.sqrt(d)',
  '    return s.amax(-1)',
  '',
  '',
  'def main(q, k, d):',
  '    outs = []',
  '    for _ in range(3):',
  '        outs.append(scores(q, k, d))',
  '    return outs',
  '',
].join('\n');

/** attn.py's figures: S per score matrix, S/64 per row maximum, 3 calls. */
export const ATTN = {
  file: 'attn.py',
  calls: 3,
  size: 64 * MiB,
  small: 1 * MiB,
  line: 7,
  /**
   * The peak: the third call's `s / math.sqrt(d)` result next to the old s, with two row maxima
   * kept: 2 S + 2 S/64. In place there is no second block: the highest point is the third call's
   * `amax` next to s, with three row maxima: S + 3 S/64.
   */
  peakBytes: 2 * 64 * MiB + 2 * MiB,
  peakAfterBytes: 64 * MiB + 3 * MiB,
} as const;

function attnTrace(): TraceBuilder {
  const S = ATTN.size;
  const b = new TraceBuilder();
  const caller = user(ATTN.file, 14, 'main');
  for (let call = 0; call < ATTN.calls; call++) {
    const a = b.alloc(S, [native('at::matmul'), user(ATTN.file, 6, 'scores'), caller]);
    const r = b.alloc(S, [native('at::div'), user(ATTN.file, ATTN.line, 'scores'), caller]);
    b.free(a, [user(ATTN.file, ATTN.line, 'scores'), caller]);
    b.alloc(ATTN.small, [native('at::amax'), user(ATTN.file, 8, 'scores'), caller]);
    b.free(r, [user(ATTN.file, 8, 'scores'), caller]);
  }
  return b;
}

export const attnFixture: InPlaceFixture = {
  file: ATTN.file,
  source: ATTN_SOURCE,
  snapshot: () => attnTrace().snapshot(),
  pickle: () => attnTrace().pickle(),
};

/**
 * The trace attn.py would record with line 7 written `s.div_(math.sqrt(d))`: no second score
 * block; the old one is written and freed where the result was. What the advisor says the peak
 * would become must be this trace's peak.
 */
export function attnInPlaceSnapshot(): Snapshot {
  const S = ATTN.size;
  const b = new TraceBuilder();
  const caller = user(ATTN.file, 14, 'main');
  for (let call = 0; call < ATTN.calls; call++) {
    const a = b.alloc(S, [native('at::matmul'), user(ATTN.file, 6, 'scores'), caller]);
    b.alloc(ATTN.small, [native('at::amax'), user(ATTN.file, 8, 'scores'), caller]);
    b.free(a, [user(ATTN.file, 8, 'scores'), caller]);
  }
  return b.snapshot();
}

/** The trace nca.py would record with line 9 written `dx.mul_(stochastic)` (were it safe): dx's block is written and freed where the product was. */
export function ncaInPlaceDxSnapshot(): Snapshot {
  const S = NCA.size;
  const b = new TraceBuilder();
  const run = user(NCA.file, 16, 'run');
  let x = b.alloc(S, [native('at::clone'), run]);
  for (let step = 0; step < NCA.steps; step++) {
    const d = b.alloc(S, [native('at::convolution'), torch('nn/modules/conv.py', 717, '_conv_forward'), user(NCA.file, 7, 'update'), run]);
    const m = b.alloc(S / 4, [native('at::gt'), user(NCA.file, 8, 'update'), run]);
    const r = b.alloc(S, [native('at::add'), user(NCA.file, NCA.xLine, 'update'), run]);
    const c = b.alloc(S, [native('at::clone'), run]);
    for (const dead of [r, d, m, x]) b.free(dead, [run]);
    x = c;
  }
  b.alloc(4 * S, [native('at::cat'), user(NCA.file, NCA.catLine, 'run')]);
  return b.snapshot();
}
