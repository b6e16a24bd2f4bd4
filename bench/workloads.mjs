// Instrumentation overhead of the built-in workloads: the same onnxruntime session options with and
// without the profiler, runs interleaved, medians compared; then what the snapshot costs to build
// afterwards (profile parsing, memory reconstruction, pickle). Needs `npm run compile-tests` first.
//
// First, the seed's table: the similarity workload's three iterations (eager, cleanup, inplace), peak of
// the snapshot (inputs + intermediates, measured by the arena where it runs) and time per run, each as a
// ratio to eager; each variant runs in its own session with its own options, runs interleaved. Timed runs
// fetch only `similarity`, what the sample's functions return: the other graph outputs (eager's locals
// alive until return) are still computed and held to the end of the run, but not copied out to JavaScript,
// which PyTorch's return does not do either (`--fetch-all` copies every output, as the profiled run does).
//
//   node bench/workloads.mjs [--size small|medium|large] [--runs N] [--ep cpu|webgpu|cuda] [--table-only] [--fetch-all]
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import * as path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const out = (p) => path.join(root, 'out', 'src', ...p.split('/'));
const { DEFAULT_SESSION_SETTINGS, loadOrt, sessionOptions } = require(out('runtime/ort/session.js'));
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { effectiveSettings, executeJob, finishJob } = require(out('runtime/ort/workloadJob.js'));
const { encodeModel } = require(out('engine/onnx/encode.js'));
const { WORKLOADS, buildWorkload, workloadInputs } = require(out('engine/workloads/catalog.js'));

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const size = arg('size', 'medium');
const runs = Number(arg('runs', '7'));
const provider = arg('ep', 'cpu');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const best = (xs) => Math.min(...xs);

const mib = (b) => `${(b / 2 ** 20).toFixed(1)} MiB`;

/** The seed's table: peak and time of each similarity variant as a ratio to eager. */
async function seedTable() {
  const info = WORKLOADS.find((w) => w.id === 'similarity');
  const ort = loadOrt();
  const rows = [];
  for (const variant of info.variants) {
    const request = { kind: 'builtin', workload: info.id, variant: variant.id, size, samplePath: 'similarity.py', sampleText: '', provider, settings: DEFAULT_SESSION_SETTINGS };
    const { summary } = await executeJob(request);
    const graph = buildWorkload(info.id, variant.id, size);
    const feeds = Object.fromEntries(
      [...workloadInputs(info.id, graph)].map(([name, data]) => [name, new ort.Tensor('float32', data, graph.shapes.get(name))]),
    );
    const session = await ort.InferenceSession.create(encodeModel(graph.model), sessionOptions(provider, effectiveSettings(request), undefined));
    await session.run(feeds);
    rows.push({ variant: variant.id, summary, session, feeds, wall: [], cpu: [] });
  }
  const fetches = process.argv.includes('--fetch-all') ? undefined : ['similarity'];
  for (let i = 0; i < runs; i++) {
    for (const row of rows) {
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      await (fetches ? row.session.run(row.feeds, fetches) : row.session.run(row.feeds));
      row.wall.push(performance.now() - started);
      const used = process.cpuUsage(cpuBefore);
      row.cpu.push((used.user + used.system) / 1000);
    }
  }
  for (const row of rows) await row.session.release();
  const base = rows[0];
  console.log(`similarity, the seed's three iterations: size ${size}, ${provider}, ${runs} interleaved runs each (median, fetching ${fetches ? 'similarity only' : 'every output'}), node ${process.version}`);
  console.log('variant    peak (snapshot)   figures        ratio   wall/run ms  ratio   cpu/run ms  ratio');
  for (const row of rows) {
    const peak = row.summary.snapshotPeakBytes;
    console.log(
      `${row.variant.padEnd(10)} ${mib(peak).padStart(15)}   ${row.summary.figures.padEnd(13)} ${(peak / base.summary.snapshotPeakBytes).toFixed(2).padStart(6)} ${median(row.wall).toFixed(1).padStart(12)} ${(median(row.wall) / median(base.wall)).toFixed(2).padStart(6)} ${median(row.cpu).toFixed(1).padStart(12)} ${(median(row.cpu) / median(base.cpu)).toFixed(2).padStart(6)}`,
    );
  }
  const [eager, cleanup, inplace] = rows.map((r) => r.summary.snapshotPeakBytes);
  console.log(`seed's shape (inplace < 0.5 x eager, cleanup between): ${inplace < 0.5 * eager && cleanup < eager && cleanup > inplace ? 'holds' : 'does not hold'}\n`);
  return rows.map((r) => ({ variant: r.variant, peakBytes: r.summary.snapshotPeakBytes, figures: r.summary.figures, medianMs: median(r.wall), medianCpuMs: median(r.cpu) }));
}

const table = await seedTable();
if (process.argv.includes('--table-only')) {
  if (process.argv.includes('--json')) console.log(JSON.stringify(table));
  process.exit(0);
}

console.log(`workload overhead, size ${size}, ${runs} runs each, ${provider}, node ${process.version}`);
console.log('Per run, ms: wall clock (fastest of the runs, the least disturbed by other processes) and CPU time of this');
console.log('process (all onnxruntime threads; median), which other processes on a busy machine disturb far less.');
console.log('workload                   wall plain  profiled  overhead   cpu plain  profiled  overhead  snapshot ms');
const rows = [];
for (const info of WORKLOADS) {
  for (const variant of info.variants) {
    const graph = buildWorkload(info.id, variant.id, size);
    const settings = effectiveSettings({ kind: 'builtin', workload: info.id, variant: variant.id, settings: DEFAULT_SESSION_SETTINGS });
    const model = encodeModel(graph.model);
    const feeds = new Map([...workloadInputs(info.id, graph)].map(([name, data]) => [name, { type: 'float32', dims: graph.shapes.get(name), data }]));
    const wall = { plain: [], profiled: [] };
    const cpu = { plain: [], profiled: [] };
    // Two sessions with the workloads' options, one with the profiler on; after a warm-up run each
    // (arena growth, caches), their runs alternate so that noise from the machine hits both alike.
    const ort = loadOrt();
    const dir = mkdtempSync(path.join(tmpdir(), 'vram-lens-bench-'));
    const sessions = {
      plain: await ort.InferenceSession.create(model, sessionOptions(provider, settings, undefined)),
      profiled: await ort.InferenceSession.create(model, sessionOptions(provider, settings, path.join(dir, 'profile'))),
    };
    const tensors = Object.fromEntries([...feeds].map(([name, f]) => [name, new ort.Tensor(f.type, f.data, f.dims)]));
    for (const s of Object.values(sessions)) await s.run(tensors);
    for (let i = 0; i < runs; i++) {
      for (const kind of ['plain', 'profiled']) {
        const cpuBefore = process.cpuUsage();
        const wallBefore = performance.now();
        await sessions[kind].run(tensors);
        wall[kind].push(performance.now() - wallBefore);
        const used = process.cpuUsage(cpuBefore);
        cpu[kind].push((used.user + used.system) / 1000);
      }
    }
    sessions.profiled.endProfiling();
    for (const s of Object.values(sessions)) await s.release();
    rmSync(dir, { recursive: true, force: true });
    const samplePath = path.join(root, 'media', 'samples', info.sample);
    let sampleText = '';
    try {
      sampleText = readFileSync(samplePath, 'utf8');
    } catch {
      // Without the sample the lines fall back; the cost is the same.
    }
    const executed = await executeJob({ kind: 'builtin', workload: info.id, variant: variant.id, size, samplePath, sampleText, provider, settings: DEFAULT_SESSION_SETTINGS });
    const started = performance.now();
    finishJob(executed);
    const build = performance.now() - started;
    const row = {
      workload: `${info.id} ${variant.id}`,
      plainWallMs: best(wall.plain),
      profiledWallMs: best(wall.profiled),
      plainCpuMs: median(cpu.plain),
      profiledCpuMs: median(cpu.profiled),
      snapshotMs: build,
    };
    row.wallOverheadPercent = (100 * (row.profiledWallMs - row.plainWallMs)) / row.plainWallMs;
    row.cpuOverheadPercent = (100 * (row.profiledCpuMs - row.plainCpuMs)) / row.plainCpuMs;
    rows.push(row);
    const f = (x) => x.toFixed(1);
    console.log(
      `${row.workload.padEnd(25)} ${f(row.plainWallMs).padStart(11)} ${f(row.profiledWallMs).padStart(9)} ${`${f(row.wallOverheadPercent)}%`.padStart(9)} ${f(row.plainCpuMs).padStart(11)} ${f(row.profiledCpuMs).padStart(9)} ${`${f(row.cpuOverheadPercent)}%`.padStart(9)} ${f(row.snapshotMs).padStart(12)}`,
    );
  }
}
const worst = Math.max(...rows.map((r) => r.cpuOverheadPercent));
const worstWall = Math.max(...rows.map((r) => r.wallOverheadPercent));
console.log(`worst overhead: ${worst.toFixed(1)}% CPU time, ${worstWall.toFixed(1)}% wall clock (budget 10%)`);
if (process.argv.includes('--json')) console.log(JSON.stringify(rows));
process.exitCode = worst <= 10 ? 0 : 1;
