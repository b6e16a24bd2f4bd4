// Times the phases of `vram-lens analyze --json` inside one Node process: load (the file read in
// chunks and decoded, its trace entries streamed straight into the Snapshot model), analysis, report
// (JSON text), with the heap after each.
//
//   node --expose-gc bench/phases.mjs FILE [--json]
//
// With --expose-gc, the resident set is also measured after a full collection once the file is
// loaded: what the model itself keeps (array buffers are counted by their pages touched, not their length). --json prints one JSON object instead of a table.
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { loadCore } from './common.mjs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
if (file === undefined) {
  process.stderr.write('usage: node --expose-gc bench/phases.mjs FILE [--json]\n');
  process.exit(2);
}
const asJson = args.includes('--json');
const core = await loadCore();

const MiB = 1024 * 1024;
const phases = [];
function memory() {
  const m = process.memoryUsage();
  return { rssMiB: m.rss / MiB, heapUsedMiB: m.heapUsed / MiB, arrayBuffersMiB: m.arrayBuffers / MiB };
}
async function phaseAsync(name, run) {
  const start = performance.now();
  const value = await run();
  phases.push({ phase: name, ms: performance.now() - start, ...memory() });
  return value;
}
function phase(name, run) {
  const start = performance.now();
  const value = run();
  phases.push({ phase: name, ms: performance.now() - start, ...memory() });
  return value;
}

const fileBytes = statSync(file).size;
const rssBefore = process.memoryUsage().rss;
const snapshot = (await phaseAsync('load', () => core.openSnapshot({ kind: 'file', path: file }))).snapshot;
let modelMiB;
if (typeof globalThis.gc === 'function') {
  globalThis.gc();
  modelMiB = (process.memoryUsage().rss - rssBefore) / MiB;
}
const analysis = phase('analysis', () => core.analyzeSnapshot(snapshot));
const json = phase('report', () => core.stringifyExact(core.toReport(analysis, undefined)));

const devices = analysis.devices.map((d) => ({ device: d.device, events: d.events, peakBytes: d.peakBytes, lines: d.lines.length }));
const result = {
  file,
  fileBytes,
  frames: snapshot.frames.length,
  stacks: snapshot.stacks.length,
  devices,
  reportChars: json.length,
  phases,
  totalMs: phases.reduce((sum, p) => sum + p.ms, 0),
  modelMiB,
  peakRssMiB: process.resourceUsage().maxRSS / 1024,
};

if (asJson) {
  process.stdout.write(JSON.stringify(result) + '\n');
} else {
  process.stdout.write(`${file}: ${(fileBytes / MiB).toFixed(1)} MiB, ${snapshot.frames.length} frames, ${snapshot.stacks.length} stacks\n`);
  for (const d of devices) process.stdout.write(`  device ${d.device}: ${d.events} events, peak ${d.peakBytes} bytes, ${d.lines} lines\n`);
  process.stdout.write('  phase        ms   rss MiB  heap MiB  arrays MiB\n');
  for (const p of phases) {
    const cells = [p.ms, p.rssMiB, p.heapUsedMiB, p.arrayBuffersMiB].map((v, i) => v.toFixed(0).padStart(i === 0 ? 6 : i === 3 ? 11 : 9));
    process.stdout.write(`  ${p.phase.padEnd(9)} ${cells.join(' ')}\n`);
  }
  process.stdout.write(`  total     ${result.totalMs.toFixed(0).padStart(6)}   peak RSS ${result.peakRssMiB.toFixed(0)} MiB`);
  process.stdout.write(modelMiB === undefined ? '\n' : `, model alone ${modelMiB.toFixed(0)} MiB (resident after a full collection)\n`);
}
