/**
 * GPU acceptance suite, Predict VRAM (npm run test:gpu): each program of test/gpu/programs/ is recorded for real
 * on the GPU (Profile VRAM: the runner and the bootstrap) and predicted for that same GPU (its name, memory and
 * compute capability as PyTorch reports them), and the two snapshots are compared: peak allocated, the top 5
 * lines at the peak with their bytes, alloc events and peak reserved. The table is printed and written to
 * test-results/predict-gpu.json for docs/predict.md. Python: VRAM_LENS_GPU_PYTHON (default python3); without a
 * CUDA GPU every test skips and says why.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import type { DeviceAnalysis } from '../../src/engine/analysis/analyze';
import { analyzeSnapshot } from '../../src/engine/analysis/analyze';
import { PROFILER_LIBRARY_PATHS } from '../../src/engine/analysis/frameFilter';
import { FIGURE } from '../../src/engine/analysis/lineFigures';
import { snapshotFromBytes } from '../../src/engine/decode/load';
import { BOOTSTRAP_ENTRY, buildProfileCommand } from '../../src/runtime/profile/command';
import type { ProfileConfiguration } from '../../src/runtime/profile/configuration';
import { ProfileRun, channelAddress } from '../../src/runtime/profile/runner';
import { runPrediction } from '../../src/runtime/predict/predictRun';
import { repoRoot } from '../helpers/corpus';

const python = process.env.VRAM_LENS_GPU_PYTHON ?? 'python3';
const probe = spawnSync(
  python,
  ['-c', 'import json, torch; p = torch.cuda.get_device_properties(0) if torch.cuda.is_available() else None; print(json.dumps(p and {"name": p.name, "memory": p.total_memory, "capability": "%d.%d" % (p.major, p.minor), "torch": torch.__version__}))'],
  { encoding: 'utf8' },
);
const gpu = probe.status === 0 ? (JSON.parse(probe.stdout.trim().split('\n').pop() ?? 'null') as { name: string; memory: number; capability: string; torch: string } | null) : null;
const skip = gpu === null ? `no CUDA GPU for ${python} (set VRAM_LENS_GPU_PYTHON): skipping the prediction-against-recording suite` : false;
if (gpu) console.log(`# test:gpu predict: ${gpu.name}, ${gpu.memory} bytes, compute capability ${gpu.capability}, PyTorch ${gpu.torch}`);

const programs = path.join(repoRoot, 'test', 'gpu', 'programs');
const bootstrap = path.join(repoRoot, ...BOOTSTRAP_ENTRY);
const root = mkdtempSync(path.join(os.tmpdir(), 'vram-lens-gpu-predict-'));
after(() => rmSync(root, { recursive: true, force: true }));
const results: Record<string, unknown>[] = [];
after(() => {
  if (results.length === 0) return;
  const out = path.join(repoRoot, 'test-results');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'predict-gpu.json'), JSON.stringify({ gpu, results }, null, 2));
  console.log('| program | peak recorded | peak predicted | ratio | top 5 same bytes | allocs recorded/predicted | reserved ratio |');
  for (const r of results) console.log(`| ${String(r.program)} | ${String(r.realPeak)} | ${String(r.predictedPeak)} | ${String(r.peakRatio)} | ${String(r.top5SameBytes)}/5 | ${String(r.realAllocs)}/${String(r.predictedAllocs)} | ${String(r.reservedRatio)} |`);
});

const configuration = (file: string): ProfileConfiguration => ({ name: path.basename(file), target: { kind: 'script', path: file }, args: [], env: {}, source: 'file' });

/** Profile VRAM on the GPU: the whole run's snapshot. */
async function record(program: string, cwd: string): Promise<string> {
  const snapshot = path.join(cwd, 'recorded.pickle');
  const id = `r${process.pid}-${path.basename(program, '.py')}`;
  const command = buildProfileCommand(configuration(program), cwd, { maxEntries: 1_000_000, stacks: 'python', sampleIntervalMs: 500 }, { interpreter: [python], bootstrap, snapshot, channel: channelAddress(id), cancelFile: path.join(cwd, 'cancel') }, process.env);
  const run = await new ProfileRun(command, channelAddress(id), path.join(cwd, 'cancel'), { graceMs: 20_000, dumpGraceMs: 60_000, drainMs: 2000 }, {}).done;
  assert.equal(run.exitCode, 0, `${program} recorded`);
  return snapshot;
}

function device(file: string): DeviceAnalysis {
  const analysis = analyzeSnapshot(snapshotFromBytes(readFileSync(file)), { extraLibraryPaths: [...PROFILER_LIBRARY_PATHS] });
  return analysis.devices[0];
}

function top5(d: DeviceAnalysis): string[] {
  return [...d.lines]
    .sort((a, b) => b[FIGURE.heldAtPeak] - a[FIGURE.heldAtPeak])
    .slice(0, 5)
    .filter((l) => l[FIGURE.heldAtPeak] > 0)
    .map((l) => `${path.basename(l.file)}:${l.line} ${l[FIGURE.heldAtPeak]}`);
}

const allocs = (d: DeviceAnalysis): number => d.lines.reduce((n, l) => n + l[FIGURE.allocations], 0);

const names = existsSync(programs) ? readdirSync(programs).filter((f) => f.endsWith('.py')).sort() : [];

describe('Predict VRAM against recordings on this GPU', { skip, timeout: 540_000 }, () => {
  for (const name of names) {
    it(`${name}: the prediction for this GPU against its recording`, async () => {
      const program = path.join(programs, name);
      const real = mkdtempSync(path.join(root, 'real-'));
      const predicted = mkdtempSync(path.join(root, 'predicted-'));
      const recorded = await record(program, real);
      const ran = await runPrediction({
        configuration: configuration(program),
        cwd: predicted,
        interpreter: [python],
        bootstrap,
        snapshot: path.join(predicted, 'predicted.pickle'),
        recording: { maxEntries: 1_000_000, stacks: 'python', sampleIntervalMs: 500, predict: { gpuName: gpu!.name, memoryBytes: gpu!.memory, capability: gpu!.capability } },
        env: process.env,
      });
      assert.equal(ran.outcome.kind, 'completed', ran.outcome.headline);
      // A program that dumps its own snapshot is compared on that file; the others on the whole run.
      const own = readdirSync(real).find((f) => f.endsWith('.pickle') && f !== 'recorded.pickle');
      const realFile = own ? path.join(real, own) : recorded;
      const predictedFile = own ? path.join(predicted, own) : ran.files[0].path;
      const r = device(realFile);
      const p = device(predictedFile);
      const realTop = top5(r);
      const predictedTop = top5(p);
      const row = {
        program: name,
        realPeak: r.peakBytes,
        predictedPeak: p.peakBytes,
        peakRatio: Number((p.peakBytes / r.peakBytes).toFixed(4)),
        top5SameBytes: predictedTop.filter((l) => realTop.includes(l)).length,
        realTop5: realTop,
        predictedTop5: predictedTop,
        realAllocs: allocs(r),
        predictedAllocs: allocs(p),
        realReserved: r.peakReservedBytes,
        predictedReserved: p.peakReservedBytes,
        reservedRatio: Number((p.peakReservedBytes / Math.max(1, r.peakReservedBytes)).toFixed(4)),
      };
      results.push(row);
      // cuDNN sizes its own RNN buffers: the LSTM is measured, not held to the bar.
      if (name !== 'lstm.py') {
        assert.ok(Math.abs(row.peakRatio - 1) <= 0.01, `peak allocated within 1%: ${JSON.stringify(row)}`);
        assert.ok(row.top5SameBytes >= 4, `the lines at the peak: ${JSON.stringify(row)}`);
      }
    });
  }
});
