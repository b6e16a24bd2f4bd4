// Instrumentation overhead of the built-in workloads: the same onnxruntime session options with and
// without the profiler, runs interleaved, medians compared; then what the snapshot costs to build
// afterwards (profile parsing, memory reconstruction, pickle). Needs `npm run compile-tests` first.
//
//   node bench/workloads.mjs [--size small|medium|large] [--runs N] [--ep cpu|webgpu|cuda]
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const out = (p) => path.join(root, 'out', 'src', ...p.split('/'));
const { DEFAULT_SESSION_SETTINGS, loadOrt, sessionOptions } = require(out('core/ort/session.js'));
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { executeJob, finishJob } = require(out('core/ort/workloadJob.js'));
const { encodeModel } = require(out('core/onnx/encode.js'));
const { WORKLOADS, buildWorkload, workloadInputs } = require(out('core/workloads/catalog.js'));

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const size = arg('size', 'medium');
const runs = Number(arg('runs', '7'));
const provider = arg('ep', 'cpu');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// The fastest of N runs is the one least disturbed by the rest of the machine: the overhead is judged on it.
const best = (xs) => Math.min(...xs);

console.log(`workload overhead, size ${size}, ${runs} runs each, ${provider}, node ${process.version}`);
console.log('Per run: the fastest of the runs (least disturbed by other processes) and the median, wall clock.');
console.log('workload                     plain best  profiled best  overhead   plain median  profiled median  overhead  snapshot ms');
const rows = [];
for (const info of WORKLOADS) {
  for (const variant of info.variants) {
    const graph = buildWorkload(info.id, variant.id, size);
    const model = encodeModel(graph.model);
    const feeds = new Map([...workloadInputs(info.id, graph)].map(([name, data]) => [name, { type: 'float32', dims: graph.shapes.get(name), data }]));
    const wall = { plain: [], profiled: [] };
    // Two sessions with the workloads' options, one with the profiler on; after a warm-up run each
    // (arena growth, caches), their runs alternate so that noise from the machine hits both alike.
    const ort = loadOrt();
    const dir = mkdtempSync(path.join(tmpdir(), 'vram-lens-bench-'));
    const sessions = {
      plain: await ort.InferenceSession.create(model, sessionOptions(provider, DEFAULT_SESSION_SETTINGS, undefined)),
      profiled: await ort.InferenceSession.create(model, sessionOptions(provider, DEFAULT_SESSION_SETTINGS, path.join(dir, 'profile'))),
    };
    const tensors = Object.fromEntries([...feeds].map(([name, f]) => [name, new ort.Tensor(f.type, f.data, f.dims)]));
    for (const s of Object.values(sessions)) await s.run(tensors);
    for (let i = 0; i < runs; i++) {
      for (const kind of ['plain', 'profiled']) {
        const wallBefore = performance.now();
        await sessions[kind].run(tensors);
        wall[kind].push(performance.now() - wallBefore);
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
      plainBestMs: best(wall.plain),
      profiledBestMs: best(wall.profiled),
      plainMedianMs: median(wall.plain),
      profiledMedianMs: median(wall.profiled),
      snapshotMs: build,
    };
    row.overheadPercent = (100 * (row.profiledBestMs - row.plainBestMs)) / row.plainBestMs;
    row.medianOverheadPercent = (100 * (row.profiledMedianMs - row.plainMedianMs)) / row.plainMedianMs;
    rows.push(row);
    const f = (x) => x.toFixed(1);
    console.log(
      `${row.workload.padEnd(27)} ${f(row.plainBestMs).padStart(11)} ${f(row.profiledBestMs).padStart(14)} ${`${f(row.overheadPercent)}%`.padStart(9)} ${f(row.plainMedianMs).padStart(14)} ${f(row.profiledMedianMs).padStart(16)} ${`${f(row.medianOverheadPercent)}%`.padStart(9)} ${f(row.snapshotMs).padStart(12)}`,
    );
  }
}
const worst = Math.max(...rows.map((r) => r.overheadPercent));
console.log(`worst overhead ${worst.toFixed(1)}% of the fastest run (budget 10%)`);
if (process.argv.includes('--json')) console.log(JSON.stringify(rows));
process.exitCode = worst <= 10 ? 0 : 1;
