/**
 * Profile VRAM on a notebook: the bootstrap (`--notebook`) runs the notebook's code cells top to bottom in an
 * IPython shell, through the same runner as a script (live memory records, Cancel, OOM, the end dump), with
 * the stand-in torch. The snapshot's allocations are 100% on the notebook's cells, each on the line the
 * cell's text says; a cell that raises ends the run as "Run All" does; without IPython it says so.
 * `npm run test:notebook` runs it with each kernel's Python (IPython 8.5, 8.35, 9.11).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { BOOTSTRAP_ENTRY, buildProfileCommand } from '../../src/runtime/profile/command';
import { fileConfiguration } from '../../src/runtime/profile/configuration';
import { classifyOutcome } from '../../src/runtime/profile/outcome';
import { runPrediction } from '../../src/runtime/predict/predictRun';
import type { ProfileRecord } from '../../src/protocol/profile';
import type { RunResult } from '../../src/runtime/profile/runner';
import { ProfileRun, channelAddress } from '../../src/runtime/profile/runner';
import { repoRoot } from '../helpers/corpus';
import { predictRecording } from '../helpers/predictRecording';
import type { TestCell } from './kernelHelpers';
import { cellRows, fakeTorch, kernelPython, kernelRoot, markerLine, notebookJson } from './kernelHelpers';
import { spawnSync } from 'node:child_process';

const MiB = 1024 * 1024;
const interpreter = kernelRoot ? ['chroot', kernelRoot, '/usr/bin/env', '-C', repoRoot, kernelPython] : [kernelPython];
const noIPython = spawnSync(interpreter[0], [...interpreter.slice(1), '-c', 'import IPython'], { encoding: 'utf8' }).status === 0
  ? undefined
  : `no IPython for ${kernelPython} (bash scripts/setup-notebook.sh installs it)`;

interface Finished extends RunResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly snapshot: string;
  /** Every record as it streamed (progress records included). */
  readonly streamed: readonly ProfileRecord[];
}

let counter = 0;
async function profileNotebook(cells: readonly TestCell[], options: { env?: Record<string, string>; cancelWhen?: (r: ProfileRecord) => boolean } = {}): Promise<Finished & { notebook: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vl-profile-nb-'));
  const id = `nb${process.pid}-${++counter}`;
  const notebook = path.join(dir, 'train.ipynb');
  writeFileSync(notebook, notebookJson(cells));
  const snapshot = path.join(dir, 'run', 'snapshot.pickle');
  mkdirSync(path.dirname(snapshot));
  const config = { ...fileConfiguration(notebook), env: { PYTHONPATH: fakeTorch, ...options.env } };
  assert.equal(config.target.kind, 'notebook', 'an .ipynb is profiled as a notebook');
  const command = buildProfileCommand(
    config,
    path.dirname(notebook),
    { maxEntries: 1_000_000, stacks: 'python', sampleIntervalMs: 40 },
    { interpreter, bootstrap: path.join(repoRoot, ...BOOTSTRAP_ENTRY), snapshot, channel: channelAddress(id), cancelFile: path.join(dir, 'cancel') },
    { PATH: process.env.PATH, HOME: process.env.HOME },
  );
  assert.ok(command.args.includes('--notebook'));
  let stdout = '';
  let stderr = '';
  const streamed: ProfileRecord[] = [];
  const run: ProfileRun = new ProfileRun(command, channelAddress(id), path.join(dir, 'cancel'), { graceMs: 5000, dumpGraceMs: 5000, drainMs: 1000 }, {
    onStdout: (t) => (stdout += t),
    onStderr: (t) => (stderr += t),
    onRecord: (r) => {
      streamed.push(r);
      if (options.cancelWhen?.(r)) run.cancel();
    },
  });
  const result = await run.done;
  return { ...result, stdout, stderr, snapshot, notebook, streamed };
}

const CELLS: TestCell[] = [
  { type: 'markdown', source: '# Profiled as a whole ✓' },
  { type: 'code', source: 'import torch\nimport time' },
  { type: 'code', source: 'def block(mib):\n    return torch.empty(mib * 1024 * 1024)  # alloc-block\n' },
  { type: 'code', source: '\n\n# größer\nweights = block(64)\nacts = torch.empty(32 * 1024 * 1024)  # alloc-acts\r\n' },
  { type: 'code', source: '%time grads = [torch.empty(16 * 1024 * 1024) for _ in range(2)]  # alloc-grads\nlen(grads)' },
];

describe('Profile VRAM on a notebook (the bootstrap, IPython, the stand-in torch)', { skip: noIPython }, () => {
  it('runs the code cells top to bottom and puts 100% of the allocations on their lines', async () => {
    const r = await profileNotebook(CELLS);
    assert.equal(r.exitCode, 0, r.stdout + r.stderr);
    assert.equal(classifyOutcome(r).kind, 'completed');
    assert.match(r.stdout, /CPU times/, 'a magic ran');
    const live = r.streamed.filter((x) => x.type === 'progress');
    assert.ok(live.length > 0, 'live memory records, as for a script');
    const rows = await cellRows(r.snapshot, r.notebook);
    const at = (marker: string) => markerLine(CELLS, marker);
    assert.deepEqual(
      rows.map((l) => [l.file, l.cell, l.line, l.allocBytes]).sort(),
      [
        [r.notebook, at('alloc-block').cell, at('alloc-block').line, 64 * MiB],
        [r.notebook, at('alloc-acts').cell, at('alloc-acts').line, 32 * MiB],
        [r.notebook, at('alloc-grads').cell, at('alloc-grads').line, 32 * MiB],
      ].sort(),
    );
  });

  it('ends with the exception of the first cell that raises, shown once, and a snapshot of what ran', async () => {
    const cells: TestCell[] = [...CELLS.slice(0, 4), { type: 'code', source: 'raise ValueError("a cell failed")' }, { type: 'code', source: 'never = torch.empty(1024)' }];
    const r = await profileNotebook(cells);
    const outcome = classifyOutcome(r);
    assert.equal(outcome.kind, 'exception');
    assert.equal(outcome.headline, 'raised ValueError: a cell failed');
    const output = r.stdout + r.stderr;
    assert.equal(output.match(/ValueError: a cell failed/g)?.length, 1, `the traceback once, as IPython shows it: ${output}`);
    assert.ok(!output.includes('\u001b['), 'no terminal colours in the Output channel');
    const rows = await cellRows(r.snapshot, r.notebook);
    assert.equal(rows.reduce((s, l) => s + l.allocBytes, 0), 96 * MiB, 'the cells before it, not the one after');
  });

  it('an out-of-memory cell ends the run as an OOM, dumped at the failure', async () => {
    const cells: TestCell[] = [...CELLS.slice(0, 3), { type: 'code', source: 'keep = block(64)\ntoo_big = block(2048)  # alloc-oom' }];
    const r = await profileNotebook(cells, { env: { FAKE_TORCH_CAPACITY: String(1024 * MiB) } });
    assert.equal(classifyOutcome(r).kind, 'oom');
    const rows = await cellRows(r.snapshot, r.notebook);
    assert.deepEqual(rows.map((l) => [l.cell, l.line, l.allocBytes]), [[markerLine(CELLS, 'alloc-block').cell, markerLine(CELLS, 'alloc-block').line, 64 * MiB]]);
  });

  it('Cancel ends a running cell and keeps what it recorded', async () => {
    const cells: TestCell[] = [...CELLS.slice(0, 3), { type: 'code', source: 'kept = block(8)\nwhile True:\n    time.sleep(0.05)' }];
    let cancelled = false;
    // Cancel once the live sample shows the cell's 8 MiB: the loop below it never ends by itself.
    const holding = (x: ProfileRecord) => x.type === 'progress' && x.devices.some((d) => d.allocated >= 8 * MiB);
    const r = await profileNotebook(cells, { cancelWhen: (x) => !cancelled && holding(x) && (cancelled = true) });
    assert.equal(classifyOutcome(r).kind, 'cancelled');
    const rows = await cellRows(r.snapshot, r.notebook);
    assert.equal(rows.reduce((s, l) => s + l.allocBytes, 0), 8 * MiB);
  });

  it('says plainly that it needs IPython where the interpreter has none', async () => {
    const stub = mkdtempSync(path.join(os.tmpdir(), 'vl-no-ipython-'));
    mkdirSync(path.join(stub, 'IPython'));
    writeFileSync(path.join(stub, 'IPython', '__init__.py'), 'raise ImportError("no IPython here")\n');
    const r = await profileNotebook(CELLS, { env: { PYTHONPATH: `${stub}${path.delimiter}${fakeTorch}` } });
    const outcome = classifyOutcome(r);
    assert.equal(outcome.kind, 'environment');
    assert.equal(outcome.kind === 'environment' && outcome.problem, 'no-ipython');
    assert.match(outcome.headline, /^Profile VRAM runs a notebook's cells in IPython \(so that magics work\), and .* has no IPython\.$/);
    assert.match(outcome.advice ?? '', /ipykernel/);
  });
});

/** The kernel's own PyTorch, when it can predict (2.0 or newer): trixie's 2.6 and sid's 2.14, not bookworm's 1.13. */
function predictingTorch(): string | undefined {
  if (noIPython) return noIPython;
  const r = spawnSync(interpreter[0], [...interpreter.slice(1), '-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
  const major = Number((r.stdout ?? '').trim().split('\n').pop()?.split('.')[0]);
  return r.status === 0 && major >= 2 ? undefined : `the kernel's PyTorch cannot predict (${(r.stdout || r.stderr || '').trim().split('\n').pop()}): 2.0 or newer`;
}

const PREDICTED_CELLS: TestCell[] = [
  { type: 'markdown', source: '# Predicted without a GPU' },
  { type: 'code', source: 'import torch\nx = torch.arange(8, device="cuda", dtype=torch.float32)  # alloc-x' },
  { type: 'code', source: 'n = int((x > 3.5).sum().item())  # alloc-count\nblocks = [torch.empty(1024, 1024, device="cuda") for _ in range(n)]  # alloc-blocks\nprint("n", n)' },
];

describe('Predict VRAM on a notebook (the kernel\'s real PyTorch, fake cuda tensors)', { skip: predictingTorch() ?? false }, () => {
  it('puts the predicted allocations on the cells; on the program\'s own data, with the sizes its data gives', async () => {
    // 4 of the 8 values are above 3.5: 4 blocks of 4 MiB on the program's data; fake data reads the count as 1.
    for (const [data, blocks] of [['fake', 1], ['cpu', 4]] as const) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'vl-predict-nb-'));
      const notebook = path.join(dir, 'predicted.ipynb');
      writeFileSync(notebook, notebookJson(PREDICTED_CELLS));
      let output = '';
      const ran = await runPrediction({
        configuration: fileConfiguration(notebook),
        cwd: dir,
        interpreter,
        bootstrap: path.join(repoRoot, ...BOOTSTRAP_ENTRY),
        snapshot: path.join(dir, 'predicted.pickle'),
        recording: predictRecording(80 * 1024 * MiB, data),
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
        listener: { onStdout: (t) => (output += t), onStderr: (t) => (output += t) },
      });
      assert.equal(ran.result.exitCode, 0, output);
      assert.match(output, new RegExp(`n ${blocks}\\b`), 'the count the program printed');
      assert.equal(ran.files.length, 1, `${data}: one predicted snapshot`);
      const at = (marker: string) => markerLine(PREDICTED_CELLS, marker);
      const rows = await cellRows(ran.files[0].path, notebook);
      assert.deepEqual(
        rows.map((l) => [l.file, l.cell, l.line, l.allocBytes]).sort(),
        [
          [notebook, at('alloc-x').cell, at('alloc-x').line, 8 * 4],
          [notebook, at('alloc-count').cell, at('alloc-count').line, 8 + 8], // the 8 booleans of x > 3.5, their int64 sum
          [notebook, at('alloc-blocks').cell, at('alloc-blocks').line, blocks * 4 * MiB],
        ].sort(),
        `${data}: the allocations on their cells`,
      );
    }
  });
});
