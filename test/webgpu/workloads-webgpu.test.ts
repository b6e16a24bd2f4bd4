/**
 * The built-in workloads on onnxruntime's WebGPU execution provider (run by `npm run test:webgpu`,
 * which points Vulkan at a software driver when the machine has no GPU; see scripts/setup-webgpu.sh).
 * Tiny sizes: a software rasteriser is slow. WebGPU reports no arena statistics, so the figures are
 * reconstructed, and must equal the reconstruction of the same graph run on the CPU without measurement.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { encodeModel } from '../../src/engine/onnx/encode';
import type { ProviderChoice } from '../../src/runtime/ort/providers';
import type { Feed, SessionSettings } from '../../src/runtime/ort/session';
import { DEFAULT_SESSION_SETTINGS, runSession } from '../../src/runtime/ort/session';
import { executeJob } from '../../src/runtime/ort/workloadJob';
import type { SizeId, WorkloadId } from '../../src/engine/workloads/catalog';
import { buildWorkload, workloadInputs } from '../../src/engine/workloads/catalog';
import { repoRoot } from '../helpers/corpus';

const samples = path.join(repoRoot, 'media', 'samples');

async function job(workload: WorkloadId, variant: string, provider: ProviderChoice, settings: SessionSettings = DEFAULT_SESSION_SETTINGS, size: SizeId = 'tiny') {
  const samplePath = path.join(samples, workload === 'similarity' ? 'similarity.py' : 'train_step.py');
  const sampleText = readFileSync(samplePath, 'utf8');
  return (await executeJob({ kind: 'builtin', workload, variant, size, samplePath, sampleText, provider, settings })).summary;
}

describe('workloads on the WebGPU execution provider', { timeout: 300_000 }, () => {
  for (const variant of ['eager', 'inplace']) {
    it(`similarity ${variant} computes what the CPU computes`, async () => {
      const graph = buildWorkload('similarity', variant, 'tiny');
      const feeds = new Map<string, Feed>([...workloadInputs('similarity', graph)].map(([name, data]) => [name, { type: 'float32', dims: graph.shapes.get(name)!, data }]));
      const outputs = async (provider: ProviderChoice) => {
        const r = await runSession({ model: encodeModel(graph.model), feeds, provider, settings: DEFAULT_SESSION_SETTINGS, profile: false, keepOutputs: true });
        assert.equal(r.provider, provider);
        return r.outputs.get('similarity')!.data as Float32Array;
      };
      const gpu = await outputs('webgpu');
      const cpu = await outputs('cpu');
      let maxDiff = 0;
      let maxRef = 0;
      cpu.forEach((v, i) => {
        maxDiff = Math.max(maxDiff, Math.abs(v - gpu[i]));
        maxRef = Math.max(maxRef, Math.abs(v));
      });
      assert.ok(maxDiff / maxRef < 1e-5, `relative difference ${maxDiff / maxRef}`);
    });
  }

  it('labels its figures reconstructed, equal to the reconstruction of a CPU run without measurements', async () => {
    for (const [workload, variant] of [
      ['similarity', 'eager'],
      ['train-step', 'checkpointed'],
    ] as const) {
      const gpu = await job(workload, variant, 'webgpu');
      // Without the arena the CPU run measures nothing either: both are the graph's reconstruction.
      const cpu = await job(workload, variant, 'cpu', { ...DEFAULT_SESSION_SETTINGS, memoryArena: false });
      assert.equal(cpu.figures, 'reconstructed');
      assert.equal(gpu.provider, 'webgpu');
      assert.equal(gpu.figures, 'reconstructed');
      assert.equal(gpu.measuredPeakBytes, undefined);
      assert.ok(gpu.nodes.every((n) => n.origin === 'reconstructed'));
      assert.equal(gpu.reconstructedPeakBytes, cpu.reconstructedPeakBytes, `${workload} ${variant}`);
    }
  });

  it('the in-place similarity and the checkpointed step peak below their baselines', async () => {
    assert.ok((await job('similarity', 'inplace', 'webgpu')).snapshotPeakBytes < (await job('similarity', 'eager', 'webgpu')).snapshotPeakBytes);
    assert.ok((await job('train-step', 'checkpointed', 'webgpu')).snapshotPeakBytes < (await job('train-step', 'plain', 'webgpu')).snapshotPeakBytes);
  });
});
