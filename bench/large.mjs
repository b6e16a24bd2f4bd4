// `npm run bench:large`: gigabyte snapshots (issue 23), generated for the run and deleted after it.
//
//   node bench/large.mjs [--sizes 2000,4500] [--keep] [--skip-cli] [--skip-timeline]
//
// For each size (MB = 10^6 bytes): checks the free disk space first (`df`; the file plus 1 GB must
// fit), generates the file with bench/make-snapshot.py (streamed above 1000 MB: the generator never
// holds the file's objects), then
// - the CLI: `node bin/vram-lens.js analyze FILE --json > /dev/null` under GNU time (wall, CPU, peak RSS);
// - the extension's path: the analysis worker loads the file by its path and answers the timeline's
//   overview and a user's zoom and pan steps (bench/timeline.mjs --file: wall and CPU per step, both axes);
// and deletes the file unless --keep. CPython's pickle.load is not run on these: at 2.5 GB it needs
// 15.5 GiB (issue 23), more than this machine can spare. Results: bench/.data/large-results.json.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { MB, corpusDir, dataDir, pythonExecutable, repoRoot } from './common.mjs';

const TIME = '/usr/bin/time';
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const sizes = option('sizes', '2000,4500').split(',').map(Number);
const keep = args.includes('--keep');
const source = path.join(corpusDir(), option('source', 'nothanmin-cs336.pickle'));

function freeBytes(dir) {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

/** Runs argv under GNU time: { wallS, cpuS, peakRssBytes }. */
function measure(argv) {
  const stats = path.join(dataDir, 'time.out');
  rmSync(stats, { force: true });
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(TIME, ['-f', '%M %U %S', '-o', stats, '--', ...argv], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallS = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`${argv.join(' ')} exited with ${code}\n${stderr.slice(-2000)}`));
      const [kib, user, system] = readFileSync(stats, 'utf8').trim().split('\n').pop().split(' ').map(Number);
      resolve({ wallS, cpuS: user + system, peakRssBytes: kib * 1024 });
    });
  });
}

async function main() {
  if (!existsSync(path.join(repoRoot, 'dist', 'cli.js'))) throw new Error('dist/ missing: run `npm run build` and `npm run compile-tests` (npm run bench:large does)');
  const python = pythonExecutable();
  const results = { date: new Date().toISOString(), cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version, loadAverageAtStart: os.loadavg(), files: [] };
  process.stdout.write(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} cores\n`);
  for (const size of sizes) {
    const file = path.join(dataDir, `${path.basename(source, '.pickle')}-${size}MB.pickle`);
    const need = size * MB * 1.1 + 1e9;
    if (!existsSync(file) && freeBytes(repoRoot) < need) {
      process.stdout.write(`${size} MB: skipped, ${(freeBytes(repoRoot) / 1e9).toFixed(1)} GB free and ${(need / 1e9).toFixed(1)} GB needed (df -h ${repoRoot})\n`);
      continue;
    }
    let started = performance.now();
    const generated = execFileSync(python, [path.join(repoRoot, 'bench', 'make-snapshot.py'), '--source', source, '--sizes', String(size), '--out', dataDir], { encoding: 'utf8' });
    const meta = JSON.parse(generated.trim().split('\n').pop());
    process.stdout.write(`${path.basename(file)}: ${(meta.bytes / MB).toFixed(0)} MB, ${meta.events} events (${meta.reps} repetitions), ${meta.cached ? 'cached' : `generated in ${((performance.now() - started) / 1000).toFixed(0)} s`}\n`);
    const entry = { file: path.basename(file), bytes: meta.bytes, events: meta.events };
    try {
      if (!args.includes('--skip-cli')) {
        const cli = await measure([process.execPath, path.join(repoRoot, 'bin', 'vram-lens.js'), 'analyze', file, '--json']);
        entry.cli = cli;
        process.stdout.write(`  CLI analyze --json: ${cli.wallS.toFixed(1)} s wall, ${cli.cpuS.toFixed(1)} s CPU, peak RSS ${(cli.peakRssBytes / MB).toFixed(0)} MB (${(cli.peakRssBytes / meta.bytes).toFixed(2)}x the file)\n`);
      }
      if (!args.includes('--skip-timeline')) {
        started = performance.now();
        const out = spawnSync(process.execPath, [path.join(repoRoot, 'bench', 'timeline.mjs'), '--sizes', '0', '--file', file], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 24 });
        if (out.status !== 0) throw new Error(`bench/timeline.mjs failed\n${out.stderr.slice(-3000)}`);
        process.stdout.write(out.stdout.split('\n').filter((l) => l.includes('worker') || l.trim().startsWith('event') || l.trim().startsWith('time')).map((l) => `  ${l.trim()}\n`).join(''));
        const timeline = JSON.parse(readFileSync(path.join(dataDir, 'timeline-results.json'), 'utf8'));
        entry.worker = timeline.files[0];
      }
    } finally {
      if (!keep) {
        rmSync(file, { force: true });
        rmSync(`${file}.meta.json`, { force: true });
      }
    }
    results.files.push(entry);
  }
  results.loadAverageAtEnd = os.loadavg();
  writeFileSync(path.join(dataDir, 'large-results.json'), JSON.stringify(results, null, 1) + '\n');
  process.stdout.write(`results: bench/.data/large-results.json${keep ? '' : ' (the files were deleted)'}\n`);
}

main().catch((e) => {
  process.stderr.write(`bench:large: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
