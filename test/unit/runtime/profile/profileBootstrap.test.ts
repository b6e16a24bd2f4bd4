/**
 * The Python bootstrap, run for real by python3 through the runner, with the stand-in torch of
 * test/fixtures/fake-torch on PYTHONPATH: every way a program can end leaves the right outcome, exit
 * code and (where it ran) a snapshot the independent Python oracle can read.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { BOOTSTRAP_ENTRY, buildProfileCommand } from '../../../../src/runtime/profile/command';
import type { ProfileConfiguration } from '../../../../src/runtime/profile/configuration';
import { classifyOutcome } from '../../../../src/runtime/profile/outcome';
import type { ProfileRecord } from '../../../../src/protocol/profile';
import { ExitCode } from '../../../../src/guards/profile';
import type { RunResult } from '../../../../src/runtime/profile/runner';
import { ProfileRun, channelAddress } from '../../../../src/runtime/profile/runner';
import { referenceAnalysis, repoRoot } from '../../../helpers/corpus';

const bootstrap = path.join(repoRoot, ...BOOTSTRAP_ENTRY);
/** A file of the bootstrap's package (src/python/vram_lens/), or the one-file bootstrap it replaced. */
const OWN_FRAMES = /vram_lens[\\/]|vram_lens_bootstrap/;
const fakeTorch = path.join(repoRoot, 'test', 'fixtures', 'fake-torch');
const workload = path.join(repoRoot, 'test', 'fixtures', 'profile', 'workload.py');
const workloadLines = readFileSync(workload, 'utf8').split('\n');
/** 1-based line of the first line of the workload containing `text` (found independently of any snapshot). */
const lineOf = (text: string): number => workloadLines.findIndex((l) => l.includes(text)) + 1;
const MiB = 1 << 20;

const root = mkdtempSync(path.join(os.tmpdir(), 'vram-lens-bootstrap-'));
after(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

interface Finished extends RunResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly streamed: ProfileRecord[];
  readonly snapshot: string;
  readonly log: Record<string, unknown>[];
}

interface RunOptions {
  readonly args?: string[];
  readonly env?: Record<string, string | null>;
  readonly interpreter?: string[];
  readonly distributed?: boolean;
  readonly graceMs?: number;
  readonly cancelWhen?: (record: ProfileRecord) => boolean;
  readonly maxEntries?: number;
  readonly stacks?: 'python' | 'all';
  /** Pass --snapshot relative to the run's folder (the default is absolute). */
  readonly relativeSnapshot?: boolean;
}

async function profile(mode: string, options: RunOptions = {}): Promise<Finished> {
  const id = `t${process.pid}-${++counter}`;
  const dir = path.join(root, id);
  const snapshot = path.join(dir, 'snapshot.pickle');
  const log = path.join(root, `${id}.log`);
  const config: ProfileConfiguration = {
    name: 'workload',
    target: { kind: 'script', path: workload },
    args: [mode, ...(options.args ?? [])],
    env: { PYTHONPATH: fakeTorch, FAKE_TORCH_LOG: log, ...options.env },
    source: 'file',
  };
  const command = buildProfileCommand(
    config,
    root,
    { maxEntries: options.maxEntries ?? 1_000_000, stacks: options.stacks ?? 'python', sampleIntervalMs: 40 },
    { interpreter: options.interpreter ?? ['python3'], bootstrap, snapshot: options.relativeSnapshot ? path.relative(root, snapshot) : snapshot, channel: channelAddress(id), cancelFile: path.join(root, `${id}.cancel`) },
    { PATH: process.env.PATH, HOME: process.env.HOME },
  );
  let stdout = '';
  let stderr = '';
  const streamed: ProfileRecord[] = [];
  const run: ProfileRun = new ProfileRun(
    { ...command, distributed: options.distributed ?? false },
    channelAddress(id),
    path.join(root, `${id}.cancel`),
    { graceMs: options.graceMs ?? 5000, dumpGraceMs: 5000, drainMs: 1000 },
    {
      onStdout: (t) => (stdout += t),
      onStderr: (t) => (stderr += t),
      onRecord: (r) => {
        streamed.push(r);
        if (options.cancelWhen?.(r)) run.cancel();
      },
    },
  );
  const result = await run.done;
  const logLines = existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
  return { ...result, stdout, stderr, streamed, snapshot, log: logLines };
}

interface OracleLine {
  file: string;
  line: number;
  allocBytes: number;
  liveAtPeakBytes: number;
}
interface OracleDevice {
  peakBytes: number;
  finalActiveBytes: number;
  oomCount: number;
  liveBlocksAtEnd: number;
  lines: OracleLine[];
}

function oracle(file: string): OracleDevice {
  const report = referenceAnalysis([file]) as Record<string, { devices: OracleDevice[] }>;
  const devices = report[file].devices;
  assert.equal(devices.length, 1, 'one device in the snapshot');
  return devices[0];
}

const endOf = (r: Finished) => r.records.find((x) => x.type === 'end');
/** Running a snapshot's frames through Python's pickle: the file is whole. */
const buildLine = lineOf('return torch.empty(mib << 20)');

describe('profile bootstrap (python3 + stand-in torch)', () => {
  it('a normal run exits 0, keeps stdout clean, and writes a snapshot whose lines are the program\'s', async () => {
    const r = await profile('normal');
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(classifyOutcome(r).kind, 'completed');
    assert.match(r.stdout, /workload starting: normal/);
    assert.match(r.stdout, /workload done, holding 67108864 bytes/);
    assert.match(r.stderr, /a line on stderr/);
    assert.doesNotMatch(r.stdout + r.stderr, /"type"/, 'records never mix into the program output');
    assert.equal(r.log.filter((c) => c.call === '_record_memory_history').length, 1);
    const recording = r.log.find((c) => c.call === '_record_memory_history')!;
    assert.deepEqual([recording.enabled, recording.context, recording.stacks, recording.max_entries], ['all', 'all', 'python', 1_000_000]);
    const device = oracle(r.snapshot);
    assert.equal(device.peakBytes, (64 + 256) * MiB, 'weights and activations were live together');
    const build = device.lines.find((l) => l.file === workload && l.line === buildLine);
    assert.ok(build, `line ${buildLine} of the workload has figures`);
    assert.equal(build.allocBytes, (64 + 256) * MiB);
  });

  it('passes max entries and stack mode through', async () => {
    const r = await profile('normal', { maxEntries: 1234, stacks: 'all' });
    const recording = r.log.find((c) => c.call === '_record_memory_history')!;
    assert.equal(recording.max_entries, 1234);
    assert.equal(recording.stacks, 'all');
  });

  it('runs the program as __main__ with its argv, the chosen cwd, and its own folder as sys.path[0]', async () => {
    const out = path.join(root, 'report.json');
    const r = await profile('report', { args: [out, 'two words', '--flag=x'] });
    assert.equal(r.exitCode, 0, r.stderr);
    const seen = JSON.parse(readFileSync(out, 'utf8')) as { argv: string[]; cwd: string; path0: string; name: string };
    assert.deepEqual(seen.argv, [workload, 'report', out, 'two words', '--flag=x']);
    assert.equal(seen.name, '__main__');
    assert.equal(seen.cwd, root);
    assert.equal(seen.path0, path.dirname(workload));
  });

  it('an exception exits 1 with the program\'s traceback only, and still leaves a snapshot', async () => {
    const r = await profile('raise');
    assert.equal(r.exitCode, ExitCode.exception);
    const outcome = classifyOutcome(r);
    assert.equal(outcome.kind, 'exception');
    assert.equal(outcome.headline, 'raised ValueError: the workload failed on purpose');
    assert.match(r.stderr, /Traceback \(most recent call last\)/);
    assert.match(r.stderr, /workload\.py", line \d+, in main/);
    assert.match(r.stderr, /ValueError: the workload failed on purpose/);
    assert.doesNotMatch(r.stderr, OWN_FRAMES, 'no bootstrap frames in the traceback');
    assert.doesNotMatch(r.stderr, /runpy/, 'no runpy frames in the traceback');
    assert.equal(oracle(r.snapshot).peakBytes, (64 + 256) * MiB);
  });

  it('sys.exit(3) exits 3 and is reported as such', async () => {
    const r = await profile('exit3');
    assert.equal(r.exitCode, 3);
    assert.deepEqual([endOf(r)?.type === 'end' && endOf(r)], [{ ...endOf(r), outcome: 'exit', code: 3 }]);
    assert.equal(classifyOutcome(r).headline, 'exited with code 3');
    assert.ok(existsSync(r.snapshot));
  });

  it('an OOM is dumped at the failure, with the OOM and what was live then', async () => {
    const r = await profile('oom', { env: { FAKE_TORCH_CAPACITY: String(1024 * MiB) } });
    assert.equal(r.exitCode, ExitCode.oom);
    const outcome = classifyOutcome(r);
    assert.equal(outcome.kind, 'oom');
    assert.match(outcome.headline, /^ran out of GPU memory: CUDA out of memory\. Tried to allocate 4294967296 bytes/);
    assert.equal(r.log.filter((c) => c.call === '_snapshot').length, 1, 'dumped once, by the OOM observer');
    assert.deepEqual(
      r.records.filter((x) => x.type === 'dumped').map((x) => x.type === 'dumped' && x.reason),
      ['oom'],
    );
    const device = oracle(r.snapshot);
    assert.equal(device.oomCount, 1);
    assert.equal(device.finalActiveBytes, 64 * MiB, 'the weights were live at the OOM');
    assert.equal(device.liveBlocksAtEnd, 1);
  });

  it('Cancel (SIGINT) dumps first, then the program exits 130', async () => {
    const r = await profile('sleep', { cancelWhen: (x) => x.type === 'progress' && x.devices.length > 0 });
    assert.equal(r.exitCode, ExitCode.cancelled, r.stderr);
    assert.equal(classifyOutcome(r).kind, 'cancelled');
    assert.equal(r.killed, false);
    const device = oracle(r.snapshot);
    assert.equal(device.finalActiveBytes, (64 + 32) * MiB, 'weights and kept were live when cancelled');
    assert.doesNotMatch(r.stderr, /Traceback/);
  });

  it('Cancel reaches a process through the cancel file alone (torchrun ranks, Windows)', async () => {
    const r = await profile('sleep', { distributed: true, cancelWhen: (x) => x.type === 'progress' && x.devices.length > 0 });
    assert.equal(r.exitCode, ExitCode.cancelled, r.stderr);
    assert.equal(classifyOutcome(r).kind, 'cancelled');
    assert.ok(existsSync(r.snapshot));
  });

  it('a program that ignores Cancel is killed after the grace period, keeping the snapshot written at Cancel', async () => {
    const r = await profile('ignore-cancel', { graceMs: 300, cancelWhen: (x) => x.type === 'progress' && x.devices.length > 0 });
    assert.equal(r.signal, 'SIGKILL');
    assert.equal(r.killed, true);
    assert.equal(classifyOutcome(r).kind, 'killed');
    assert.equal(oracle(r.snapshot).finalActiveBytes, 64 * MiB);
  });

  it('streams progress with the sampler\'s allocated and peak bytes', async () => {
    const r = await profile('sleep', { cancelWhen: (x) => x.type === 'progress' && x.devices.length > 0 });
    const progress = r.streamed.filter((x) => x.type === 'progress' && x.devices.length > 0);
    assert.ok(progress.length >= 1);
    const first = progress[0].type === 'progress' ? progress[0].devices[0] : undefined;
    assert.deepEqual(first && [first.index, first.allocated, first.peakAllocated], [0, (64 + 32) * MiB, (64 + 256) * MiB]);
    const hello = r.records.find((x) => x.type === 'hello');
    assert.deepEqual(hello?.type === 'hello' && [hello.torch, hello.api, hello.snapshot], ['2.3.0+fake', '2.1', r.snapshot]);
  });

  // Recording starts lazily, so the program runs as it would without us: its own exit code and output,
  // plus one clear message (stderr and an `error` record) saying why nothing was recorded.
  const environmentCases: [string, RunOptions, number, string, RegExp, boolean][] = [
    ['missing torch', { interpreter: ['python3', '-E', '-S'] }, 1, 'no-torch', /PyTorch is not installed for /, false],
    ['torch that fails to import', { env: { FAKE_TORCH_MODE: 'import-error' } }, 1, 'torch-import-failed', /PyTorch failed to import: OSError: libcudart/, false],
    ['torch built without CUDA', { env: { FAKE_TORCH_MODE: 'no-cuda-build' } }, 0, 'no-cuda-build', /built without CUDA/, true],
    ['no GPU visible', { env: { FAKE_TORCH_MODE: 'no-gpu', CUDA_VISIBLE_DEVICES: '' } }, 1, 'no-gpu', /sees no GPU/, true],
    ['no recording API (PyTorch < 2.0)', { env: { FAKE_TORCH_MODE: 'no-recording-api' } }, 0, 'no-recording-api', /cannot record memory history.*runs without recording/, true],
    ['cudaMallocAsync', { env: { FAKE_TORCH_MODE: 'malloc-async' } }, 0, 'recording-unsupported', /cudaMallocAsync allocator .* cannot record/, true],
  ];
  for (const [name, options, code, problem, message, ran] of environmentCases) {
    it(`${name}: the program runs unrecorded (exit ${code}) with a clear message`, async () => {
      const r = await profile('normal', options);
      assert.equal(r.exitCode, code, r.stderr);
      const outcome = classifyOutcome(r);
      assert.equal(outcome.kind, 'environment');
      assert.equal(outcome.problem, problem);
      assert.match(outcome.headline, message);
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, OWN_FRAMES, 'no bootstrap frames');
      assert.doesNotMatch(r.stderr, /runpy|frozen importlib/, 'no runpy or importlib frames');
      assert.equal(/workload starting/.test(r.stdout), ran, 'the program ran as far as it would without us');
      assert.equal(existsSync(r.snapshot), false);
      const end = endOf(r);
      assert.deepEqual(end?.type === 'end' && [end.code, end.recorded], [code, false]);
    });
  }

  it('import order: settings the program makes before importing torch reach CUDA\'s initialisation', async () => {
    const r = await profile('settings', { env: { CUDA_VISIBLE_DEVICES: '0,1' } });
    assert.equal(r.exitCode, 0, r.stderr);
    const calls = r.log.map((c) => c.call);
    assert.deepEqual(calls.slice(0, 4), ['_lazy_call', 'cuda_init', '_record_memory_history', '_cuda_attach_out_of_memory_observer']);
    const init = r.log.find((c) => c.call === 'cuda_init')!;
    assert.deepEqual([init.cuda_visible_devices, init.alloc_conf], ['1', 'expandable_segments:True']);
    assert.ok(existsSync(r.snapshot));
  });

  it('module-level tensors are live in the end snapshot (the program\'s globals are kept until the dump)', async () => {
    const r = await profile('module-global');
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(oracle(r.snapshot).finalActiveBytes, 8 * MiB);
  });

  it('an OOM re-raised as another exception is an OOM, and its failure-time snapshot is kept', async () => {
    const r = await profile('oom-wrapped', { env: { FAKE_TORCH_CAPACITY: String(1024 * MiB) } });
    assert.equal(r.exitCode, ExitCode.oom, r.stderr);
    assert.equal(classifyOutcome(r).kind, 'oom');
    assert.deepEqual(r.records.filter((x) => x.type === 'dumped').map((x) => x.type === 'dumped' && x.reason), ['oom']);
    assert.match(r.stderr, /RuntimeError: training step failed/);
    const device = oracle(r.snapshot);
    assert.equal(device.oomCount, 1);
  });

  it('os._exit(4) writes the snapshot and reports exit 4, not "completed"', async () => {
    const r = await profile('os-exit');
    assert.equal(r.exitCode, 4, r.stderr);
    assert.equal(classifyOutcome(r).headline, 'exited with code 4');
    assert.equal(oracle(r.snapshot).finalActiveBytes, 64 * MiB, 'the weights were live at os._exit');
  });

  it('a raw os.fork() child that calls sys.exit neither dumps nor reports', async () => {
    const marker = path.join(root, `fork-${process.pid}.done`);
    const r = await profile('fork', { args: [marker] });
    assert.equal(r.exitCode, 0, r.stderr);
    for (let i = 0; i < 100 && !existsSync(marker); i++) await new Promise((f) => setTimeout(f, 50));
    assert.ok(existsSync(marker), 'the child finished');
    await new Promise((f) => setTimeout(f, 200));
    assert.equal(r.records.filter((x) => x.type === 'end').length, 1);
    assert.equal(r.log.filter((c) => c.call === '_snapshot').length, 1, 'only the parent dumped');
    assert.equal(oracle(r.snapshot).finalActiveBytes, 16 * MiB, 'the parent\'s end state (the child never allocated KEPT)');
  });

  it('a relative --snapshot path does not follow the program\'s chdir', async () => {
    const r = await profile('chdir', { args: [os.tmpdir()], relativeSnapshot: true });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.ok(existsSync(r.snapshot), r.snapshot);
  });

  it('PyTorch 2.0 gets the legacy recording call and a notice', async () => {
    const r = await profile('normal', { env: { FAKE_TORCH_MODE: 'legacy-api' }, maxEntries: 500 });
    assert.equal(r.exitCode, 0, r.stderr);
    const recording = r.log.find((c) => c.call === '_record_memory_history')!;
    assert.deepEqual([recording.enabled, recording.trace_alloc_max_entries, recording.trace_alloc_record_context], [true, 500, true]);
    assert.ok(r.records.some((x) => x.type === 'notice' && x.code === 'legacy-api'));
    assert.equal(oracle(r.snapshot).peakBytes, (64 + 256) * MiB);
  });

  it('an interpreter that does not exist fails to start, clearly', async () => {
    const r = await profile('normal', { interpreter: [path.join(root, 'no-such-python')] });
    const outcome = classifyOutcome(r);
    assert.equal(outcome.kind, 'failed-to-start');
    assert.match(outcome.headline, /no-such-python was not found/);
  });
});
