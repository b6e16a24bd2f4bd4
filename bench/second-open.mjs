// A second snapshot opened in the editor, through the analysis worker the extension uses
// (dist/analysisWorker.js): from the load request to the annotations of its heaviest file, as the
// extension's snapshot store and annotator ask for them (`load`, `lines` of the device shown, then
// `buildFileAnnotations` on the host). Target (issue 30): under 100 ms once the worker is warm.
//
//   node bench/second-open.mjs [--first FILE] [--second FILE[,FILE]] [--runs N] [--json]
//
// Each run, alternately: a fresh worker (what every load got before: V8 compiles and warms the code
// on that snapshot), and the spare the store keeps once a snapshot has loaded (`SpareWorkers`: started
// and warmed on the first snapshot's file). Files default to two corpus snapshots of about 4 MB.
import { existsSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { corpusDir, loadCore, repoRoot } from './common.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
export const TARGET_SECOND_OPEN_MS = 100;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Opens `file` in `worker` and builds the annotations of its heaviest file: milliseconds, and what was shown. */
async function openAndAnnotate(core, worker, file) {
  const started = performance.now();
  const info = await worker.call('load', { source: { kind: 'file', path: file }, filter: {} });
  const device = [...info.devices].sort((a, b) => b.peakBytes - a.peakBytes)[0]?.device ?? 0;
  const lines = await worker.call('lines', { device });
  const byFile = new Map();
  for (const l of lines) byFile.set(l.file, [...(byFile.get(l.file) ?? []), l]);
  const heaviest = [...byFile.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  const peak = info.devices.find((d) => d.device === device)?.peakBytes ?? 0;
  const maxLine = heaviest.reduce((m, l) => Math.max(m, Number(l.line)), 0);
  const shown = core.buildFileAnnotations(heaviest, peak, maxLine + 1, core.DEFAULT_ANNOTATION_OPTIONS).lines.length;
  return { ms: performance.now() - started, lines: lines.length, shown };
}

export async function benchSecondOpen({ first, seconds, runs, log = () => undefined }) {
  const workerScript = path.join(repoRoot, 'dist', 'analysisWorker.js');
  if (!existsSync(workerScript)) throw new Error('dist/analysisWorker.js missing: run `npm run build`');
  const core = await loadCore();
  const results = [];
  for (const second of seconds) {
    const cold = [];
    const warm = [];
    let shown;
    for (let i = 0; i < runs; i++) {
      // A fresh worker, as every snapshot had before.
      const fresh = new core.SnapshotWorker(workerScript);
      const c = await openAndAnnotate(core, fresh, second);
      await fresh.dispose();
      // The spare: started and warmed on the first snapshot's file once that one loaded.
      const spares = new core.SpareWorkers(workerScript);
      spares.prepare({}, { kind: 'file', path: first }, statSync(first).size, {});
      await spares.warmed();
      const worker = spares.take({});
      const w = await openAndAnnotate(core, worker, second);
      await worker.dispose();
      spares.dispose();
      cold.push(c.ms);
      warm.push(w.ms);
      shown = w;
      log(`  run ${i + 1}/${runs}: fresh worker ${c.ms.toFixed(0)} ms, warm spare ${w.ms.toFixed(0)} ms\n`);
    }
    results.push({ first: path.basename(first), second: path.basename(second), bytes: statSync(second).size, runs, lines: shown.lines, annotated: shown.shown, freshMs: median(cold), warmMs: median(warm), freshAll: cold, warmAll: warm });
  }
  return results;
}

async function main() {
  const corpus = corpusDir();
  const first = option('first', path.join(corpus, 'wedsonlin-cs336-medium-512-training.pickle'));
  const seconds = option('second', [path.join(corpus, 'nothanmin-cs336.pickle'), path.join(corpus, 'kkaitlyn111-cs336-2.7b-forward.pickle')].join(',')).split(',');
  const runs = Number(option('runs', '7'));
  process.stdout.write(`second snapshot through the analysis worker; load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores\n`);
  const results = await benchSecondOpen({ first, seconds, runs, log: (t) => process.stdout.write(t) });
  if (args.includes('--json')) {
    process.stdout.write(`${JSON.stringify(results)}\n`);
    return;
  }
  for (const r of results) {
    process.stdout.write(
      `${r.second} (${(r.bytes / 1e6).toFixed(1)} MB, after ${r.first}): fresh worker ${r.freshMs.toFixed(0)} ms, warm spare ${r.warmMs.toFixed(0)} ms (target < ${TARGET_SECOND_OPEN_MS} ms), medians of ${r.runs}\n`,
    );
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  main().catch((e) => {
    process.stderr.write(`second-open: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
