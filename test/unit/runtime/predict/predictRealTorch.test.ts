/**
 * A prediction end to end with a real PyTorch: the bootstrap runs a program of ours on fake 'cuda' tensors,
 * the runner places its snapshot on the GPU (the caching allocator's replay) and writes it, and the file reads
 * back as PyTorch's format: the sizes are the program's shapes, every allocation replays at the file's own
 * address, a GPU too small ends the trace where the program would have died. With a host interpreter (the
 * wheels), `vram-lens predict` itself: the program's arguments, the JSON, the exit code.
 * Runs where `npm run test:torch` (scripts/test-torch.mjs) names a real PyTorch: VRAM_LENS_TORCH_PYTHON and,
 * for the chroots, VRAM_LENS_TORCH_ROOT (the script bind-mounts /tmp and this clone).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { FIGURE } from '../../../../src/engine/analysis/lineFigures';
import { readWhole } from '../../../../src/engine/decode/load';
import { AllocatorStudy } from '../../../../src/engine/session/allocatorStudy';
import { BOOTSTRAP_ENTRY } from '../../../../src/runtime/profile/command';
import { runPrediction } from '../../../../src/runtime/predict/predictRun';
import { repoRoot } from '../../../helpers/corpus';
import { predictRecording } from '../../../helpers/predictRecording';

const python = process.env.VRAM_LENS_TORCH_PYTHON;
const root = process.env.VRAM_LENS_TORCH_ROOT ?? '';
const cache = process.env.VRAM_LENS_TEST_NATIVE_CACHE;
const MiB = 2 ** 20;
const GiB = 2 ** 30;

const PROGRAM = `import sys
import torch
model = torch.nn.Linear(1024, 1024).cuda()  # model
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x = torch.randn(64, 1024, device="cuda")
for step in range(int(sys.argv[1])):
    loss = model(x).square().mean()  # forward
    loss.backward()
    opt.step()
    opt.zero_grad()
print("loss", loss.item())
sys.exit(int(sys.argv[2]))
`;
const MODEL_LINE = 3;

function torchAtLeast2(): boolean {
  const argv = root ? ['chroot', root, '/usr/bin/env', python!] : [python!];
  const version = execFileSync(argv[0], [...argv.slice(1), '-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' }).trim().split('\n').pop()!;
  return Number(version.split('.')[0]) >= 2;
}

function predictIn(dir: string, memoryBytes: number, args: string[]) {
  const script = path.join(dir, 'program.py');
  writeFileSync(script, PROGRAM);
  return runPrediction({
    configuration: { name: 'program.py', target: { kind: 'script', path: script }, args, env: {}, source: 'file' },
    cwd: dir,
    interpreter: root ? ['chroot', root, '/usr/bin/env', '-C', dir, python!] : [python!],
    bootstrap: path.join(repoRoot, ...BOOTSTRAP_ENTRY),
    snapshot: path.join(dir, 'predicted.pickle'),
    recording: predictRecording(memoryBytes),
    env: process.env,
  });
}

describe('a prediction end to end with a real PyTorch', { skip: python === undefined ? 'VRAM_LENS_TORCH_PYTHON is not set (npm run test:torch sets it)' : false }, () => {
  it('places the run on the GPU and writes the snapshot that GPU would record', async (t) => {
    if (!torchAtLeast2()) {
      t.skip('PyTorch older than 2.0 (the refusal is in test/torch/test_predict.py)');
      return;
    }
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vl-predict-'));
    try {
      const ran = await predictIn(dir, 80 * GiB, ['2', '0']);
      assert.equal(ran.outcome.kind, 'completed', `${ran.outcome.headline}`);
      assert.deepEqual(ran.failures, []);
      assert.equal(ran.files.length, 1);
      assert.equal(ran.files[0].placement.fits, true);
      const snapshot = readWhole(readFileSync(ran.files[0].path));
      assert.equal(snapshot.prediction?.placed, true);
      assert.equal(snapshot.prediction?.gpu.name, 'Test GPU');
      const analysis = analyzeSnapshot(snapshot);
      const device = analysis.devices[0];
      const model = device.lines.find((l) => l.file.endsWith('program.py') && l.line === MODEL_LINE);
      assert.ok(model, 'the model line has figures');
      assert.equal(model[FIGURE.allocated], 1024 * 1024 * 4 + 1024 * 4, 'the weight and the bias');
      const check = new AllocatorStudy(snapshot, 0).check().check;
      assert.equal(check.atRecordedAddress, check.allocations, 'every allocation replays at its address');
      assert.equal(check.segmentEventsReproduced, check.segmentEvents);
      assert.ok(device.peakReservedBytes >= device.peakBytes);
      assert.equal(snapshot.prediction?.placement?.peakReservedBytes, device.peakReservedBytes, 'one truth: the placement and the analysis agree');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on a GPU too small the trace ends where the program runs out of memory', async (t) => {
    if (!torchAtLeast2()) {
      t.skip('PyTorch older than 2.0');
      return;
    }
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vl-predict-'));
    try {
      const ran = await predictIn(dir, 4 * MiB, ['1', '0']); // the 4 MiB weight needs a 20 MiB segment
      assert.equal(ran.files.length, 1);
      const placement = ran.files[0].placement;
      assert.equal(placement.fits, false);
      assert.equal(placement.oom?.requestedBytes, 4 * MiB);
      assert.ok(placement.neededReservedBytes >= 20 * MiB);
      const snapshot = readWhole(readFileSync(ran.files[0].path));
      const oom = analyzeSnapshot(snapshot).devices[0].ooms[0];
      assert.ok(oom, 'an oom event');
      const frames = snapshot.stacks[oom.stack].map((f) => snapshot.frames[f]);
      assert.ok(
        frames.some((f) => f.filename.endsWith('program.py') && f.line === MODEL_LINE),
        'on the line that moved the model',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('vram-lens predict: the program\'s arguments, the GPU, the JSON and the program\'s exit code', (t) => {
    if (root !== '') {
      t.skip('the CLI takes a host interpreter (--python); the chroots are tested through the runner above');
      return;
    }
    if (!torchAtLeast2()) {
      t.skip('PyTorch older than 2.0');
      return;
    }
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vl-predict-cli-'));
    try {
      writeFileSync(path.join(dir, 'program.py'), PROGRAM);
      const env = { ...process.env, ...(cache ? { XDG_CACHE_HOME: path.join(cache, 'xdg') } : {}) };
      const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'vram-lens.js'), 'predict', '--gpu', 'a100-40gb', '--python', python!, '--json', 'program.py', '1', '3'], {
        cwd: dir,
        env,
        encoding: 'utf8',
      });
      assert.equal(r.status, 3, `the program's own exit code\n${r.stderr}`);
      const report = JSON.parse(r.stdout) as { file: string; predicted: { gpu: { name: string; memoryBytes: number }; placement: { fits: boolean } }; devices: { lines: { file: string; line: number }[] }[] };
      assert.equal(report.predicted.gpu.name, 'A100 40GB');
      assert.equal(report.predicted.gpu.memoryBytes, 40 * GiB);
      assert.equal(report.predicted.placement.fits, true);
      assert.equal(path.basename(report.file), 'program.predicted.pickle');
      assert.ok(report.devices[0].lines.some((l) => l.line === MODEL_LINE));
      assert.match(r.stderr, /loss 1\.0/, "the program's own output goes to stderr with --json");
      const usage = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'vram-lens.js'), 'predict', '--gpu', 'a200 9000gb', 'program.py'], { cwd: dir, encoding: 'utf8' });
      assert.equal(usage.status, 2);
      assert.match(usage.stderr, /not a GPU of the list/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('vram-lens predict --data cpu: what the program reads from its tensors is its own, and nothing is assumed', (t) => {
    if (root !== '' || !torchAtLeast2()) {
      t.skip(root !== '' ? 'the CLI takes a host interpreter (--python)' : 'PyTorch older than 2.0');
      return;
    }
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vl-predict-data-'));
    try {
      // 0 + 1 + ... + 5 = 15, five of the six are nonzero, and the loop runs while the largest is above 1: 5, 2.5, 1.25 (3 blocks).
      writeFileSync(path.join(dir, 'values.py'), [
        'import torch',
        'x = torch.arange(6, device="cuda", dtype=torch.float32)',
        'print("sum", x.sum().item(), "nonzero", x.nonzero().shape[0])',
        'blocks = []',
        'while x.max().item() > 1:',
        '    blocks.append(torch.empty(1024, device="cuda"))',
        '    x = x * 0.5',
        'print("blocks", len(blocks))',
        '',
      ].join('\n'));
      const env = { ...process.env, ...(cache ? { XDG_CACHE_HOME: path.join(cache, 'xdg') } : {}) };
      const cli = (data: string) => spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'vram-lens.js'), 'predict', '--data', data, '--python', python!, '--json', 'values.py'], { cwd: dir, env, encoding: 'utf8' });
      const real = cli('cpu');
      assert.equal(real.status, 0, real.stderr);
      assert.match(real.stderr, /sum 15\.0 nonzero 5\b/);
      assert.match(real.stderr, /blocks 3\b/);
      assert.match(real.stderr, /on its data computed on the CPU/);
      const report = JSON.parse(real.stdout) as { predicted: { data: string; assumptions: { kind: string }[] } };
      assert.equal(report.predicted.data, 'cpu');
      assert.deepEqual(report.predicted.assumptions.filter((a) => a.kind === 'value' || a.kind === 'size'), []);
      // Without data the same program reads 1.0 and selects every element, and says so.
      const fake = cli('fake');
      assert.equal(fake.status, 0, fake.stderr);
      assert.match(fake.stderr, /sum 1\.0 nonzero 6\b/);
      const assumed = (JSON.parse(fake.stdout) as { predicted: { assumptions: { kind: string }[] } }).predicted.assumptions;
      assert.ok(assumed.some((a) => a.kind === 'value') && assumed.some((a) => a.kind === 'size'), JSON.stringify(assumed));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
