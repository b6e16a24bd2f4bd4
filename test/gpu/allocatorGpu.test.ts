/**
 * The allocator replay against a real GPU (npm run test:gpu): record a program under PyTorch's default
 * allocator settings, predict from that one recording what it reserves under expandable_segments:True,
 * under a max_split_size_mb chosen from the trace, and under a per-process memory fraction (whether it runs
 * out of memory), then run the program for real under each and compare with torch.cuda.max_memory_reserved()
 * and whether it raised OutOfMemoryError. Python: VRAM_LENS_GPU_PYTHON (default python3). Without a CUDA GPU
 * every test skips and says why.
 *
 * The program allocates only through the caching allocator, on one stream, in sizes of whole MiB (so no
 * two blocks tie in size by accident and cudaMalloc's addresses cannot change a decision), and touches
 * nothing else on the GPU: what PyTorch reserves is what the replay models.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { settingsOf } from '../../src/engine/allocator/selfCheck';
import { applyAllocConf, describeSettings } from '../../src/engine/allocator/settings';
import type { WhatIfBasis, WhatIfResult } from '../../src/engine/allocator/whatIf';
import { chooseMaxSplit, whatIf, whatIfBasis } from '../../src/engine/allocator/whatIf';
import { snapshotFromBytes } from '../../src/engine/decode/load';

const python = process.env.VRAM_LENS_GPU_PYTHON ?? 'python3';
const probe = spawnSync(python, ['-c', 'import torch; print(torch.__version__, torch.cuda.device_count() if torch.cuda.is_available() else 0)'], { encoding: 'utf8' });
const [torchVersion, gpuCount] = (probe.stdout ?? '').trim().split(' ');
const skip =
  probe.status !== 0
    ? `no PyTorch for ${python} (set VRAM_LENS_GPU_PYTHON): skipping the allocator GPU tests`
    : Number(gpuCount) === 0
      ? `PyTorch ${torchVersion} sees no GPU: skipping the allocator GPU tests`
      : false;
if (skip) console.log(`# test:gpu (allocator): ${skip}`);

const root = mkdtempSync(path.join(os.tmpdir(), 'vram-lens-alloc-gpu-'));
after(() => rmSync(root, { recursive: true, force: true }));

/**
 * The program. Fragmenting on purpose: a large block freed, then cut into three blocks whose middle one
 * is kept, then a request larger than the pieces; repeated with growing sizes, as a batch size that grows
 * from step to step does.
 */
const PROGRAM = `
import json, os, sys
import torch

mode, out = sys.argv[1], sys.argv[2]
fraction = float(os.environ.get('VRAM_LENS_FRACTION', '0'))
torch.cuda.init()
if fraction:
    torch.cuda.set_per_process_memory_fraction(fraction)
if mode == 'record':
    torch.cuda.memory._record_memory_history(max_entries=1000000)
MiB = 2 ** 20
dev = torch.device('cuda')

def work():
    kept = []
    for step in range(6):
        big = torch.empty((600 + 30 * step) * MiB, dtype=torch.uint8, device=dev)
        del big
        parts = [torch.empty((200 + 10 * step + k) * MiB, dtype=torch.uint8, device=dev) for k in range(3)]
        kept.append(parts[1])
        del parts
        x = torch.empty((300 + 20 * step) * MiB, dtype=torch.uint8, device=dev)
        small = [torch.empty((k + 1) * 4096, dtype=torch.uint8, device=dev) for k in range(50)]
        del x, small
    return kept

oom = False
try:
    kept = work()
except torch.cuda.OutOfMemoryError:
    oom = True
torch.cuda.synchronize()
result = {
    'maxReserved': torch.cuda.max_memory_reserved(),
    'oom': oom,
    'total': torch.cuda.get_device_properties(0).total_memory,
    'conf': os.environ.get('PYTORCH_CUDA_ALLOC_CONF', ''),
}
if mode == 'record':
    torch.cuda.memory._dump_snapshot(out)
print(json.dumps(result))
`;

interface Outcome {
  readonly maxReserved: number;
  readonly oom: boolean;
  readonly total: number;
}

function runProgram(mode: 'record' | 'run', env: Record<string, string>): Outcome & { snapshot?: string } {
  const program = path.join(root, 'program.py');
  writeFileSync(program, PROGRAM);
  const snapshot = path.join(root, `snapshot-${Object.values(env).join('-') || 'default'}.pickle`);
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!('PYTORCH_CUDA_ALLOC_CONF' in env)) delete childEnv.PYTORCH_CUDA_ALLOC_CONF;
  delete childEnv.PYTORCH_ALLOC_CONF;
  const r = spawnSync(python, [program, mode, snapshot], { encoding: 'utf8', env: childEnv, timeout: 300_000 });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  const outcome = JSON.parse(lines[lines.length - 1]) as Outcome;
  return mode === 'record' ? { ...outcome, snapshot } : outcome;
}

function describeRun(name: string, predicted: WhatIfResult, real: Outcome): string {
  return `${name}: predicted peak reserved ${predicted.peakReservedBytes} (OOM ${predicted.oom !== null}), real ${real.maxReserved} (OOM ${real.oom})`;
}

describe('allocator replay on a real GPU: record once, predict, run, compare', { skip }, () => {
  let basis: WhatIfBasis;
  let recorded: Outcome;

  it('records the program under the default settings; the self-check reproduces it', () => {
    const r = runProgram('record', {});
    recorded = r;
    const snap = snapshotFromBytes(new Uint8Array(readFileSync(r.snapshot!)));
    basis = whatIfBasis(snap, 0);
    const check = basis.check.check;
    assert.equal(check.firstDeparture, null, check.firstDeparture?.reason);
    assert.equal(check.atRecordedAddress, check.allocations);
    assert.equal(check.segmentEventsReproduced, check.segmentEvents);
    assert.equal(basis.check.settings, '', 'recorded with the defaults');
    assert.equal(basis.check.peakReservedBytes, r.maxReserved, 'the replay reserves at its peak what PyTorch reported');
  });

  for (const [name, conf] of [
    ['expandable_segments:True', 'expandable_segments:True'],
    ['max_split_size_mb chosen from the trace', undefined],
  ] as const) {
    it(`predicts the peak reserved memory under ${name}`, () => {
      const settings = conf ? applyAllocConf(settingsOf(basis.snapshot), conf) : chooseMaxSplit(basis, settingsOf(basis.snapshot));
      const predicted = whatIf(basis, { settings, totalMemory: recorded.total });
      const real = runProgram('run', { PYTORCH_CUDA_ALLOC_CONF: describeSettings(settings) });
      const text = describeRun(name, predicted, real);
      console.log(`# ${text}`);
      assert.equal(real.oom, false, text);
      assert.equal(predicted.oom, null, text);
      assert.equal(predicted.peakReservedBytes, real.maxReserved, text);
    });
  }

  it('predicts whether it runs out of memory under a memory fraction, and what it reserved by then', () => {
    // A fraction of the GPU 20% below the recorded peak: with the default settings the replay says whether the
    // allocator's releases and retries get the program through.
    const fraction = Math.floor(((0.8 * recorded.maxReserved) / recorded.total) * 1e6) / 1e6;
    const predicted = whatIf(basis, { settings: settingsOf(basis.snapshot), capacity: recorded.total, memoryFraction: fraction, totalMemory: recorded.total });
    const real = runProgram('run', { VRAM_LENS_FRACTION: String(fraction) });
    const text = describeRun(`fraction ${fraction}`, predicted, real);
    console.log(`# ${text}`);
    assert.equal(real.oom, predicted.oom !== null, text);
    assert.equal(predicted.peakReservedBytes, real.maxReserved, text);
  });
});
