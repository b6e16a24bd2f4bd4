/**
 * The pure parts of Profile VRAM: configurations (settings and launch.json, `${...}` variables),
 * the argv (never a shell string), the record parser, outcome classification, live figures and the
 * run history's retention.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildProfileCommand, mergeEnv, rankSnapshotPath } from '../../../../src/runtime/profile/command';
import type { VariableValues } from '../../../../src/runtime/profile/configuration';
import {
  ConfigurationError,
  fileConfiguration,
  fromLaunchEntry,
  fromSettingsEntry,
  splitArguments,
  substituteVariables,
} from '../../../../src/runtime/profile/configuration';
import { addRun, newRunId, partitionByAge, readRuns } from '../../../../src/runtime/profile/history';
import type { RunRecord } from '../../../../src/runtime/profile/history';
import { lensLine } from '../../../../src/runtime/profile/lens';
import { LiveMemory, describeLive } from '../../../../src/runtime/profile/live';
import { classifyOutcome } from '../../../../src/runtime/profile/outcome';
import type { ProcessEnding } from '../../../../src/runtime/profile/outcome';
import type { ProfileRecord } from '../../../../src/protocol/profile';
import { LineSplitter } from '../../../../src/runtime/profile/lineSplitter';
import { parseRecord } from '../../../../src/guards/profile';

const values: VariableValues = {
  workspaceFolder: '/home/u/proj',
  workspaceFolderBasename: 'proj',
  file: '/home/u/proj/src/train.py',
  userHome: '/home/u',
  pathSeparator: '/',
  env: { DATA: '/data' },
  folders: { other: '/home/u/other' },
};

describe('profile configurations', () => {
  it('resolves the variables launch.json users write', () => {
    assert.equal(substituteVariables('${workspaceFolder}/x', values), '/home/u/proj/x');
    assert.equal(substituteVariables('${fileDirname}|${fileBasename}|${fileBasenameNoExtension}|${fileExtname}', values), '/home/u/proj/src|train.py|train|.py');
    assert.equal(substituteVariables('${env:DATA}/${env:UNSET}.', values), '/data/.');
    assert.equal(substituteVariables('${workspaceFolder:other}/a', values), '/home/u/other/a');
    assert.equal(substituteVariables('${relativeFile}', values), 'src/train.py');
  });

  it('refuses variables it cannot resolve instead of passing them on literally', () => {
    assert.throws(() => substituteVariables('${command:pickArgs}', values), ConfigurationError);
    assert.throws(() => substituteVariables('${input:size}', values), /\$\{input:size\}/);
  });

  it('splits an argument string as a shell would, without expanding anything', () => {
    assert.deepEqual(splitArguments(`--name 'two words' --x="a b" c\\ d $HOME;rm`), ['--name', 'two words', '--x=a b', 'c d', '$HOME;rm']);
    assert.deepEqual(splitArguments(`'' ""`), ['', '']);
    assert.throws(() => splitArguments(`--bad "open`), ConfigurationError);
  });

  it('reads a settings entry', () => {
    const c = fromSettingsEntry(
      { name: 'big', script: '${workspaceFolder}/train.py', args: ['--bs', 64], cwd: '${workspaceFolder}', env: { A: '1', B: null }, nprocPerNode: 2 },
      values,
    );
    assert.deepEqual(c, {
      name: 'big',
      target: { kind: 'script', path: '/home/u/proj/train.py' },
      args: ['--bs', '64'],
      cwd: '/home/u/proj',
      env: { A: '1', B: null },
      nprocPerNode: 2,
      python: undefined,
      source: 'settings',
    });
    assert.throws(() => fromSettingsEntry({ name: 'x', script: 'a.py', module: 'b' }, values), /exactly one of/);
    assert.throws(() => fromSettingsEntry({ script: 'a.py', nprocPerNode: 0 }, values), /nprocPerNode/);
  });

  it('reads Python launch configurations and skips the others', () => {
    const launch = fromLaunchEntry(
      { type: 'debugpy', request: 'launch', name: 'Train', module: 'pkg.train', args: '--lr 1e-3 --tag "a b"', env: { X: '${env:DATA}' }, python: '/venv/bin/python' },
      values,
    );
    assert.deepEqual(launch && [launch.target, launch.args, launch.env, launch.python, launch.source], [
      { kind: 'module', name: 'pkg.train' },
      ['--lr', '1e-3', '--tag', 'a b'],
      { X: '/data' },
      '/venv/bin/python',
      'launch.json',
    ]);
    assert.equal(fromLaunchEntry({ type: 'node', request: 'launch', program: 'a.js' }, values), undefined);
    assert.equal(fromLaunchEntry({ type: 'python', request: 'attach', program: 'a.py' }, values), undefined);
    assert.equal(fromLaunchEntry({ type: 'python', request: 'launch' }, values), undefined);
  });
});

describe('profile command line', () => {
  const paths = {
    interpreter: ['/venv/bin/python'],
    bootstrap: '/ext/src/python/vram_lens/__main__.py',
    snapshot: '/store/runs/r1/snapshot.pickle',
    channel: '/tmp/vram-lens-r1.sock',
    cancelFile: '/store/runs/r1/cancel',
  };
  const recording = { maxEntries: 1_000_000, stacks: 'python' as const, sampleIntervalMs: 250 };

  it('puts the bootstrap between the interpreter and the program, the program\'s arguments last and verbatim', () => {
    const config = { ...fileConfiguration('/p/my script.py'), args: ['--out', 'a b; rm -rf /', '$(x)'] };
    const c = buildProfileCommand(config, '/p', recording, paths, { PATH: '/bin' });
    assert.equal(c.command, '/venv/bin/python');
    assert.deepEqual(c.args, [
      '/ext/src/python/vram_lens/__main__.py',
      '--snapshot', '/store/runs/r1/snapshot.pickle',
      '--channel', '/tmp/vram-lens-r1.sock',
      '--cancel-file', '/store/runs/r1/cancel',
      '--max-entries', '1000000',
      '--stacks', 'python',
      '--interval', '0.25',
      '--script', '/p/my script.py',
      '--',
      '--out', 'a b; rm -rf /', '$(x)',
    ]);
    assert.equal(c.cwd, '/p');
    assert.equal(c.distributed, false);
  });

  it('passes --backward-lines off only when the setting turns backward lines off', () => {
    const config = fileConfiguration('/p/a.py');
    assert.ok(!buildProfileCommand(config, '/p', { ...recording, backwardLines: true }, paths, {}).args.includes('--backward-lines'));
    const off = buildProfileCommand(config, '/p', { ...recording, backwardLines: false }, paths, {}).args;
    assert.deepEqual(off.slice(off.indexOf('--backward-lines'), off.indexOf('--backward-lines') + 2), ['--backward-lines', 'off']);
    assert.ok(off.indexOf('--backward-lines') < off.indexOf('--script'));
  });

  it('predicts for a GPU, on fake tensors unless the program\'s data is asked for (--predict-data cpu)', () => {
    const config = fileConfiguration('/p/a.py');
    const predict = { gpuName: 'A100 80GB', memoryBytes: 80 * 2 ** 30, capability: '8.0' };
    const fake = buildProfileCommand(config, '/p', { ...recording, predict }, paths, {}).args;
    const at = fake.indexOf('--predict-memory');
    assert.deepEqual(fake.slice(at, at + 6), ['--predict-memory', String(80 * 2 ** 30), '--predict-gpu', 'A100 80GB', '--predict-capability', '8.0']);
    assert.ok(!fake.includes('--predict-data'), 'fake tensors are the bootstrap\'s default');
    const cpu = buildProfileCommand(config, '/p', { ...recording, predict: { ...predict, data: 'cpu' } }, paths, {}).args;
    assert.deepEqual(cpu.slice(cpu.indexOf('--predict-data'), cpu.indexOf('--predict-data') + 2), ['--predict-data', 'cpu']);
    assert.ok(cpu.indexOf('--predict-data') < cpu.indexOf('--script'));
  });

  it('runs several processes through torch.distributed.run, one snapshot per rank', () => {
    const config = { ...fileConfiguration('/p/ddp.py'), nprocPerNode: 4 };
    const c = buildProfileCommand(config, '/p', recording, { ...paths, interpreter: ['conda', 'run', '-n', 'gpu', 'python'] }, {});
    assert.equal(c.command, 'conda');
    assert.deepEqual(c.args.slice(0, 12), ['run', '-n', 'gpu', 'python', '-m', 'torch.distributed.run', '--standalone', '--nnodes', '1', '--nproc_per_node', '4', paths.bootstrap]);
    assert.ok(c.args.includes('--per-rank'));
    assert.equal(c.distributed, true);
    assert.equal(rankSnapshotPath('/store/runs/r1/snapshot.pickle', 3), '/store/runs/r1/snapshot.rank3.pickle');
  });

  it('runs a module with -m semantics through --module', () => {
    const c = buildProfileCommand({ ...fileConfiguration('/x.py'), target: { kind: 'module', name: 'pkg.main' } }, '/p', recording, paths, {});
    assert.deepEqual(c.args.slice(-3), ['--module', 'pkg.main', '--']);
  });

  it('merges the environment: the configuration wins, null removes, output is unbuffered', () => {
    assert.deepEqual(mergeEnv({ A: '1', B: '2', C: undefined }, { B: '3', A: null, D: '4' }), { B: '3', D: '4', PYTHONUNBUFFERED: '1' });
  });
});

describe('profile records', () => {
  it('parses the records the bootstrap writes and ignores anything else', () => {
    const progress = parseRecord('{"pid":7,"type":"progress","t":1.5,"devices":[{"index":0,"allocated":10,"peakAllocated":20,"reserved":30,"peakReserved":40}]}');
    assert.deepEqual(progress, { pid: 7, type: 'progress', t: 1.5, devices: [{ index: 0, allocated: 10, peakAllocated: 20, reserved: 30, peakReserved: 40 }] });
    assert.equal(parseRecord('{"type":"progress","t":1,"devices":[{"index":0}]}'), undefined);
    assert.equal(parseRecord('{"type":"end","outcome":"exploded","code":1}'), undefined);
    assert.equal(parseRecord('{"type":"toString"}'), undefined);
    assert.equal(parseRecord('not json'), undefined);
    assert.equal(parseRecord('[1,2]'), undefined);
    assert.equal(parseRecord('{"type":"end","outcome":"oom","code":91,"rank":"0"}'), undefined);
  });

  it('splits lines however the chunks fall, multi-byte characters included', () => {
    const s = new LineSplitter();
    const bytes = new TextEncoder().encode('{"a":"é"}\n{"b":1}\r\npartial');
    const out: string[] = [];
    for (let i = 0; i < bytes.length; i++) out.push(...s.push(bytes.subarray(i, i + 1)));
    assert.deepEqual(out, ['{"a":"é"}', '{"b":1}']);
    assert.deepEqual(s.push(new TextEncoder().encode(' end\n')), ['partial end']);
  });

  it('drops a runaway line instead of growing without bound', () => {
    const s = new LineSplitter(8);
    assert.deepEqual(s.push(new TextEncoder().encode('0123456789abc')), []);
    assert.deepEqual(s.push(new TextEncoder().encode('def\nok\n')), ['ok']);
  });
});

describe('profile outcomes', () => {
  const ending = (over: Partial<ProcessEnding>): ProcessEnding => ({ exitCode: 0, signal: null, records: [], cancelRequested: false, killed: false, ...over });
  const end = (outcome: string, code: number, rank?: number, extra: object = {}) =>
    ({ type: 'end', outcome, code, snapshot: 's', t: 1, ...(rank === undefined ? {} : { rank }), ...extra }) as ProfileRecord;

  it('trusts the end record', () => {
    assert.equal(classifyOutcome(ending({ records: [end('completed', 0)] })).headline, 'completed');
    assert.equal(classifyOutcome(ending({ exitCode: 3, records: [end('exit', 3)] })).headline, 'exited with code 3');
    assert.equal(
      classifyOutcome(ending({ exitCode: 1, records: [end('exception', 1, undefined, { exception: 'KeyError', message: "'w'\nmore" })] })).headline,
      "raised KeyError: 'w'",
    );
  });

  it('reports the most severe rank of a torchrun job', () => {
    const o = classifyOutcome(ending({ exitCode: 1, records: [end('completed', 0, 0), end('oom', 91, 1), end('exception', 1, 2)] }));
    assert.deepEqual([o.kind, o.rank], ['oom', 1]);
  });

  it('falls back to the exit status when no record came', () => {
    const kinds = (over: Partial<ProcessEnding>) => classifyOutcome(ending(over)).kind;
    assert.equal(kinds({ exitCode: 0 }), 'completed');
    assert.equal(kinds({ exitCode: 2 }), 'exit');
    assert.equal(kinds({ exitCode: 91 }), 'oom');
    assert.equal(kinds({ exitCode: 130 }), 'cancelled');
    assert.equal(kinds({ exitCode: 87 }), 'environment');
    assert.equal(kinds({ exitCode: 86 }), 'crashed');
    assert.equal(kinds({ exitCode: null, signal: 'SIGSEGV' }), 'crashed');
    assert.equal(kinds({ exitCode: null, signal: 'SIGINT', cancelRequested: true }), 'cancelled');
    assert.match(classifyOutcome(ending({ exitCode: null, signal: 'SIGKILL' })).advice ?? '', /OOM killer/);
  });

  it('an environment error record beats everything else', () => {
    const o = classifyOutcome(
      ending({ exitCode: 89, records: [{ type: 'error', code: 'no-gpu', message: 'PyTorch sees no GPU.', advice: 'Check nvidia-smi.' }] }),
    );
    assert.deepEqual([o.kind, o.problem, o.headline, o.advice], ['environment', 'no-gpu', 'PyTorch sees no GPU.', 'Check nvidia-smi.']);
  });

  it('a kill after Cancel says so', () => {
    assert.equal(classifyOutcome(ending({ exitCode: null, signal: 'SIGKILL', killed: true, cancelRequested: true })).kind, 'killed');
  });
});

describe('live memory', () => {
  it('keeps the latest sample per process and GPU and shows the highest', () => {
    const live = new LiveMemory();
    const sample = (rank: number, allocated: number, peak: number, t: number): ProfileRecord => ({
      type: 'progress',
      rank,
      t,
      devices: [{ index: 0, allocated, peakAllocated: peak, reserved: peak, peakReserved: peak * 2 }],
    });
    assert.equal(describeLive(live.summary), 'waiting for GPU memory · 0s');
    live.update(sample(0, 100, 200, 1));
    live.update(sample(1, 300, 400, 2.7));
    live.update(sample(0, 50, 250, 3.2));
    assert.deepEqual(live.summary, { elapsed: 3.2, allocated: 300, peakAllocated: 400, reserved: 400, peakReserved: 800, gpus: 2 });
    assert.equal(describeLive(live.summary), '300 B allocated, peak 400 B (reserved 800 B) (max of 2 GPUs) · 3s');
    assert.equal(live.update({ type: 'cancelling', t: 1 }), false);
  });

  it('the peak is the highest over the run: reset_peak_memory_stats() in the program does not lower it', () => {
    const live = new LiveMemory();
    const sample = (allocated: number, peak: number, t: number): ProfileRecord => ({
      type: 'progress',
      t,
      devices: [{ index: 0, allocated, peakAllocated: peak, reserved: peak, peakReserved: peak }],
    });
    live.update(sample(100, 900, 1));
    live.update(sample(100, 100, 2)); // after torch.cuda.reset_peak_memory_stats()
    assert.deepEqual([live.summary.allocated, live.summary.peakAllocated, live.summary.peakReserved], [100, 900, 900]);
    live.update(sample(1000, 1000, 3));
    assert.equal(live.summary.peakAllocated, 1000);
  });
});

describe('run history', () => {
  const DAY = 86_400_000;
  const run = (id: string, startedAt: number) =>
    ({ id, startedAt, endedAt: startedAt + 1, folder: `/runs/${id}`, snapshots: [], configuration: fileConfiguration('/a.py') }) as unknown as RunRecord;

  it('expires runs older than the retention, keeps all when it is 0', () => {
    const now = 100 * DAY;
    const runs = [run('new', now - DAY), run('edge', now - 7 * DAY + 1), run('old', now - 8 * DAY)];
    const { keep, expired } = partitionByAge(runs, now, 7);
    assert.deepEqual([keep.map((r) => r.id), expired.map((r) => r.id)], [['new', 'edge'], ['old']]);
    assert.equal(partitionByAge(runs, now, 0).expired.length, 0);
  });

  it('lists newest first and replaces a run by id', () => {
    const list = addRun(addRun(addRun([], run('a', 1)), run('b', 3)), run('a', 2));
    assert.deepEqual(list.map((r) => [r.id, r.startedAt]), [['b', 3], ['a', 2]]);
  });

  it('reads back only well-formed records', () => {
    assert.deepEqual(readRuns(undefined), []);
    assert.deepEqual(readRuns([run('a', 1), { id: 3 }, null]).map((r) => r.id), ['a']);
  });

  it('makes sortable ids', () => {
    assert.equal(newRunId(new Date(2025, 0, 2, 3, 4, 5), () => 0.5), '20250102-030405-8000');
  });
});

describe('profile code lens placement', () => {
  const script = 'import os\nimport torch\n\n\ndef main():\n    pass\n\n\nif __name__ == "__main__":\n    main()\n';
  it('sits on the main guard of files that import torch, or on the first line, or nowhere', () => {
    assert.equal(lensLine(script, 'mainGuard'), 8);
    assert.equal(lensLine(script.replace('"__main__"', "'__main__'"), 'mainGuard'), 8);
    assert.equal(lensLine(script, 'fileTop'), 0);
    assert.equal(lensLine(script, 'off'), undefined);
    assert.equal(lensLine(script.replace('import torch', 'import numpy'), 'mainGuard'), undefined, 'no torch, no lens');
    assert.equal(lensLine('from torch import nn\nx = 1\n', 'mainGuard'), undefined, 'no main guard');
    assert.equal(lensLine('import torch\n    if __name__ == "__main__":\n', 'mainGuard'), undefined, 'an indented guard is not the module one');
  });
});
