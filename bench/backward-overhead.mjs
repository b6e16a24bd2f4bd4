// `npm run bench:profile`: what profiling costs a training step, on the real CPU-only PyTorch builds that
// scripts/setup-torch.sh installs (root: the chroots need mounts). test/torch/bench_backward.py (a residual MLP
// with Adam, 1 thread) runs plainly and through the bootstrap with backward lines on (single-threaded backward
// + module ranges, forced on CPU with VRAM_LENS_TEST_INSTRUMENT_CPU=1) and off (the import hook alone),
// interleaved round by round so a change in the machine's load hits every variant alike. Prints, per build, the
// median and best step time of each variant over all rounds and their ratios to the plain run: wall time, and
// the process's CPU time (what the work costs whatever else a shared machine runs; 1 thread, so comparable).
// On CPU no memory is recorded (no CUDA): what this measures is the bootstrap, the hooks and the ranges.
//
//   node bench/backward-overhead.mjs [--rounds N] [--steps N] [--targets trixie,sid]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cleanup, isReady, prepare, pythonCommand, repo, torchTargets, torchVersion } from '../scripts/torch-chroots.mjs';

function parseArgs(argv) {
  const options = { rounds: 5, steps: 10, targets: ['sid'] };
  for (let i = 0; i < argv.length; i++) {
    const value = () => argv[++i] ?? '';
    if (argv[i] === '--rounds') options.rounds = Number(value());
    else if (argv[i] === '--steps') options.steps = Number(value());
    else if (argv[i] === '--targets') options.targets = value().split(',');
    else throw new Error(`unknown argument ${argv[i]}\nusage: node bench/backward-overhead.mjs [--rounds N] [--steps N] [--targets trixie,sid]`);
  }
  if (!(options.rounds >= 1) || !(options.steps >= 1)) throw new Error('--rounds and --steps take counts >= 1');
  return options;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const options = parseArgs(process.argv.slice(2));
const script = path.join('test', 'torch', 'bench_backward.py');
const bootstrap = path.join('src', 'python', 'vram_lens', '__main__.py');
const work = mkdtempSync(path.join(os.tmpdir(), 'vram-lens-bench-'));
const variants = [
  { name: 'plain', args: (out) => [script, out, String(options.steps), '2'] },
  { name: 'backward lines on', args: (out) => [bootstrap, '--snapshot', path.join(work, 's.pickle'), '--backward-lines', 'on', '--script', script, '--', out, String(options.steps), '2'] },
  { name: 'backward lines off', args: (out) => [bootstrap, '--snapshot', path.join(work, 's.pickle'), '--backward-lines', 'off', '--script', script, '--', out, String(options.steps), '2'] },
];
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
  process.on(signal, () => {
    cleanup(); // the chroots' mounts are not left behind
    process.exit(code);
  });
}

const rows = [];
try {
  for (const t of torchTargets.filter((x) => options.targets.includes(x.name))) {
    if (!isReady(t)) throw new Error(`${t.name}: not set up (run scripts/setup-torch.sh)`);
    prepare(t);
    const version = torchVersion(t);
    const python = pythonCommand(t);
    const steps = variants.map(() => []);
    const cpuSteps = variants.map(() => []);
    for (let round = 0; round < options.rounds; round++) {
      variants.forEach((v, i) => {
        const out = path.join(work, `${t.name}-${i}-${round}.json`);
        const r = spawnSync(python[0], [...python.slice(1), ...v.args(out)], {
          cwd: repo,
          stdio: ['ignore', 'ignore', 'pipe'],
          env: { PATH: process.env.PATH, VRAM_LENS_TEST_INSTRUMENT_CPU: '1', OMP_NUM_THREADS: '1' },
        });
        if (r.status !== 0) throw new Error(`${t.name} ${v.name}: exit ${r.status}\n${r.stderr}`);
        const result = JSON.parse(readFileSync(out, 'utf8'));
        steps[i].push(...result.steps_ms);
        cpuSteps[i].push(...result.cpu_steps_ms);
      });
      process.stderr.write(`${t.name}: round ${round + 1}/${options.rounds}\n`);
    }
    for (const [clock, samples] of [['wall', steps], ['CPU', cpuSteps]]) {
      const plainMedian = median(samples[0]);
      const plainBest = Math.min(...samples[0]);
      variants.forEach((v, i) => {
        const m = median(samples[i]);
        const b = Math.min(...samples[i]);
        const vs = (x, base) => `${x >= base ? '+' : ''}${((x / base - 1) * 100).toFixed(1)}%`;
        rows.push([`${t.name} (PyTorch ${version})`, clock, v.name, m.toFixed(1), b.toFixed(1), vs(m, plainMedian), vs(b, plainBest)]);
      });
    }
  }
} finally {
  cleanup();
  rmSync(work, { recursive: true, force: true });
}
const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
console.log(`${options.rounds} rounds x ${options.steps} steps per variant, interleaved; load average now ${load} on ${os.cpus().length} cores\n`);
console.log('| PyTorch | time | variant | median step (ms) | best step (ms) | median vs plain | best vs plain |');
console.log('|---|---|---|---:|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
