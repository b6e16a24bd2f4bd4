// Times the memory timeline's level-of-detail queries the way the view uses them: an overview, then
// a user's zoom and pan steps, each one `timelineSpan` summary at 1200 columns with the default
// block budget (and the copy a worker reply costs).
//
//   npm run bench:timeline                       in-memory 100 and 500 MB-equivalent traces
//   node bench/timeline.mjs --sizes 20,100       other sizes (MB-equivalent)
//   node bench/timeline.mjs --file big.pickle    also through the real worker (dist/analysisWorker.js)
//   node bench/timeline.mjs --file F --in-process 3   also F loaded in this process, its steps run 3 times
//                                                (the first pass includes V8's warm-up; the others do not)
//   node bench/timeline.mjs --allocator          also the allocator view: the replay's first series, an
//                                                `allocatorSpan` per step, segment maps at three moments
//
// In memory: a corpus trace repeated (test/helpers/repeatTrace.ts) to the number of events a snapshot
// of that many MB holds. Events per MB come from bench/.data/*.meta.json (the synthetic snapshots
// `npm run bench` writes) when present, else from the corpus file itself. Pickles in bench/.data/
// whose names end in -100MB/-500MB are run through the worker too. Needs `npm run build` and
// `npm run compile-tests` first (the npm script does both).
/* global structuredClone */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = (p) => path.join(root, 'out', p);
const { snapshotFromBytes } = require(out('src/engine/decode/load.js'));
const { SnapshotSession } = require(out('src/engine/session/session.js'));
const { SnapshotWorker } = require(out('src/runtime/worker/client.js'));
const { openSnapshot } = require(out('src/runtime/input/snapshotFile.js'));
const { repeatTrace } = require(out('test/helpers/repeatTrace.js'));
const { selfCheckReplayAt } = require(out('src/engine/allocator/selfCheck.js'));
const { segmentMapOf: replayedSegmentMap } = require(out('src/engine/allocator/segmentMap.js'));

const MB = 1e6;
const COLUMNS = 1200;
const PLOT_HEIGHT_PX = 800; // 400 CSS pixels at devicePixelRatio 2
const dataDir = path.join(root, 'bench', '.data');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const files = process.argv.flatMap((a, i) => (process.argv[i - 1] === '--file' ? [path.resolve(a)] : []));
const sizes = option('sizes', '100,500').split(',').map(Number).filter((n) => n > 0);
const allocatorView = process.argv.includes('--allocator');
const inProcessPasses = Number(option('in-process', '0'));

function corpusDir() {
  if (process.env.VRAM_LENS_CORPUS) return process.env.VRAM_LENS_CORPUS;
  for (const dir of [path.resolve(root, '..', 'shared', 'snapshots'), path.resolve(root, '..', '..', 'shared', 'snapshots')]) {
    if (existsSync(dir)) return dir;
  }
  throw new Error('corpus not found; set VRAM_LENS_CORPUS');
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5), p90: at(0.9), max: s[s.length - 1] };
};

/** The steps a user takes: zoom in on the middle, pan, zoom out, pan back, zoom in off-centre. */
function* userSteps(domain) {
  let x0 = domain.start;
  let x1 = domain.end;
  const clamp = () => {
    const w = Math.min(domain.end - domain.start, Math.max(4, x1 - x0));
    x0 = Math.min(Math.max(x0, domain.start), domain.end - w);
    x1 = x0 + w;
  };
  const zoom = (f, anchor = 0.5) => {
    const at = x0 + (x1 - x0) * anchor;
    const w = (x1 - x0) / f;
    x0 = at - w * anchor;
    x1 = x0 + w;
    clamp();
  };
  const pan = (f) => {
    const d = (x1 - x0) * f;
    x0 += d;
    x1 += d;
    clamp();
  };
  yield { kind: 'full', x0, x1 };
  for (let i = 0; i < 12; i++) yield (zoom(1.5), { kind: 'zoom', x0, x1 });
  for (let i = 0; i < 8; i++) yield (pan(0.1), { kind: 'pan', x0, x1 });
  for (let i = 0; i < 8; i++) yield (zoom(1 / 1.5), { kind: 'zoom', x0, x1 });
  for (let i = 0; i < 6; i++) yield (pan(-0.25), { kind: 'pan', x0, x1 });
  for (let i = 0; i < 6; i++) yield (zoom(1.5, 0.25), { kind: 'zoom', x0, x1 });
  for (let i = 0; i < 6; i++) yield (pan(0.5), { kind: 'pan', x0, x1 });
}

/** Offset quantum as the webview asks for it: half a device pixel of the y scale it will use. */
function quantum(overview, x0, x1) {
  const s = overview.summary;
  let max = 0;
  for (let i = 0; i < s.stepState.length; i++) {
    if (s.stepX[i + 1] <= x0 || s.stepX[i] >= x1) continue;
    max = Math.max(max, s.reserved[i], s.envelope[i]);
  }
  return (max * 1.06) / PLOT_HEIGHT_PX / 2;
}

const payloadBytes = (w) => Object.values(w).reduce((sum, v) => sum + (ArrayBuffer.isView(v) ? v.byteLength : 0), 0);

async function runSteps(label, overviewOf, spanOf) {
  const result = { label, axes: {} };
  for (const axis of ['event', 'time']) {
    let started = performance.now();
    const overview = await overviewOf(axis);
    const overviewMs = performance.now() - started;
    if (overview.axis.kind !== axis) continue;
    const times = [];
    const cpu = [];
    const blocks = [];
    const runs = [];
    const payload = [];
    for (const step of userSteps(overview.axis)) {
      started = performance.now();
      const cpuStarted = process.cpuUsage();
      const w = await spanOf({ axis, x0: step.x0, x1: step.x1, columns: COLUMNS, offsetQuantum: quantum(overview, step.x0, step.x1) });
      times.push(performance.now() - started);
      const used = process.cpuUsage(cpuStarted);
      cpu.push((used.user + used.system) / 1000);
      if (process.env.BENCH_VERBOSE) console.log(step.kind, (step.x1 - step.x0).toExponential(2), times.at(-1).toFixed(1), w.blockRecord.length, w.runStep.length);
      blocks.push(w.blockRecord.length);
      runs.push(w.runStep.length);
      payload.push(payloadBytes(w) / 1024);
    }
    const t = stats(times);
    const c = stats(cpu);
    result.axes[axis] = {
      overviewMs,
      steps: times.length,
      wallMs: t,
      cpuMs: c,
      totalMs: times.reduce((a, b) => a + b, 0),
      under100msWall: times.filter((x) => x < 100).length,
      under100msCpu: cpu.filter((x) => x < 100).length,
      blocks: stats(blocks),
      runs: stats(runs),
      payloadKiB: stats(payload),
    };
    console.log(
      `  ${axis.padEnd(5)} overview ${overviewMs.toFixed(0).padStart(5)} ms | ${times.length} steps, wall: median ${t.median.toFixed(1)}, p90 ${t.p90.toFixed(1)}, max ${t.max.toFixed(1)} ms ` +
        `(${result.axes[axis].under100msWall} under 100 ms); CPU: median ${c.median.toFixed(1)}, p90 ${c.p90.toFixed(1)}, max ${c.max.toFixed(1)} ms ` +
        `(${result.axes[axis].under100msCpu} under 100 ms) | blocks median ${stats(blocks).median}, runs median ${stats(runs).median}, ` +
        `reply median ${stats(payload).median.toFixed(0)} KiB, max ${stats(payload).max.toFixed(0)} KiB`,
    );
  }
  return result;
}

/**
 * The allocator view over the same steps: the first span (which replays the allocator with its series),
 * then one `allocatorSpan` per step at the block span's range, and the segment map at the start, the
 * middle and the end of the trace (each replays up to its moment), with what a reply weighs.
 */
async function runAllocatorSteps(label, overviewOf, allocatorSpanOf, segmentMapOf, fromStartMapOf) {
  const result = { label, axes: {} };
  for (const axis of ['event', 'time']) {
    const overview = await overviewOf(axis);
    if (overview.axis.kind !== axis) continue;
    const times = [];
    const payload = [];
    const pieces = [];
    let firstMs = 0;
    for (const step of userSteps(overview.axis)) {
      const started = performance.now();
      const w = await allocatorSpanOf({ axis, x0: step.x0, x1: step.x1, columns: COLUMNS, budget: 2000, offsetQuantum: quantum(overview, step.x0, step.x1) });
      const ms = performance.now() - started;
      if (firstMs === 0) firstMs = ms;
      else times.push(ms);
      payload.push(payloadBytes(w) / 1024);
      pieces.push(w.pieceSize.length);
    }
    const t = stats(times);
    result.axes[axis] = { firstMs, steps: times.length, wallMs: t, payloadKiB: stats(payload), segments: stats(pieces) };
    console.log(
      `  allocator ${axis.padEnd(5)} first span (replays the allocator) ${firstMs.toFixed(0)} ms | ${times.length} steps, wall: median ${t.median.toFixed(1)}, p90 ${t.p90.toFixed(1)}, max ${t.max.toFixed(1)} ms | ` +
        `segments median ${stats(pieces).median}, reply median ${stats(payload).median.toFixed(0)} KiB, max ${stats(payload).max.toFixed(0)} KiB`,
    );
    if (axis !== 'event') continue;
    const maps = [];
    for (const state of [1, Math.floor(overview.axis.states / 2), overview.axis.states - 1]) {
      const started = performance.now();
      const map = await segmentMapOf(state);
      maps.push({ state, ms: performance.now() - started, segments: map.segments.length, blocks: map.segments.reduce((n, seg) => n + seg.blocks.length, 0), replyKiB: JSON.stringify(map).length / 1024 });
    }
    result.maps = maps;
    console.log(`  segment maps: ${maps.map((m) => `state ${m.state}: ${m.ms.toFixed(0)} ms, ${m.segments} segments, ${m.blocks} blocks, ~${m.replyKiB.toFixed(0)} KiB`).join('; ')}`);
    // Scrubbing: 20 moments back and forth across the trace (the checkpoints laid by the maps above in place).
    const scrub = [];
    for (let k = 0; k < 20; k++) {
      const state = 1 + Math.floor((((k * 7) % 20) / 20) * (overview.axis.states - 2));
      const started = performance.now();
      await segmentMapOf(state);
      scrub.push(performance.now() - started);
    }
    result.scrubMs = stats(scrub);
    console.log(`  scrubbing, 20 segment maps back and forth: median ${result.scrubMs.median.toFixed(0)} ms, max ${result.scrubMs.max.toFixed(0)} ms`);
    if (fromStartMapOf) {
      const started = performance.now();
      await fromStartMapOf(Math.floor(overview.axis.states / 2));
      result.midMapFromStartMs = performance.now() - started;
      console.log(`  for comparison, the middle map replayed from the start (no checkpoint): ${result.midMapFromStartMs.toFixed(0)} ms`);
    }
  }
  return result;
}

function eventsPerMB(sourceName, sourceBytes, sourceEvents) {
  const stem = sourceName.replace(/\.pickle$/, '');
  const metas = existsSync(dataDir) ? readdirSync(dataDir).filter((f) => f.startsWith(stem) && f.endsWith('.meta.json')) : [];
  for (const m of metas) {
    const meta = JSON.parse(readFileSync(path.join(dataDir, m), 'utf8'));
    if (meta.events > 0 && meta.bytes > 0) return { perMB: meta.events / (meta.bytes / MB), from: `bench/.data/${m}` };
  }
  return { perMB: sourceEvents / (sourceBytes / MB), from: `${sourceName} itself` };
}

async function main() {
  const results = { date: new Date().toISOString(), node: process.version, columns: COLUMNS, loadAverage: os.loadavg(), memory: [], files: [] };
  console.log(`Load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores (wall times suffer when it is high; CPU times less).`);
  const sourceName = option('source', 'nothanmin-cs336.pickle');
  const sourcePath = path.join(corpusDir(), sourceName);
  const base = snapshotFromBytes(readFileSync(sourcePath));
  const rate = eventsPerMB(sourceName, statSync(sourcePath).size, base.traces[0].length);
  console.log(`In memory: ${sourceName} repeated; ${rate.perMB.toFixed(0)} events per MB (from ${rate.from}); ${COLUMNS} columns.`);
  for (const size of sizes) {
    const events = Math.round(size * rate.perMB);
    const snapshot = repeatTrace(base, events);
    let started = performance.now();
    const session = new SnapshotSession(snapshot, size * MB, {});
    const analyseMs = performance.now() - started;
    started = performance.now();
    const timeline = session.timeline.timeline(0);
    const layoutMs = performance.now() - started;
    const rssMiB = process.memoryUsage().rss / 2 ** 20;
    console.log(
      `${size} MB-equivalent: ${snapshot.traces[0].length} events, ${timeline.layout.bySize.length} blocks; analysis ${(analyseMs / 1000).toFixed(1)} s, ` +
        `stacked layout ${layoutMs.toFixed(0)} ms (${JSON.stringify(timeline.layout.checkpointStats())}), rss ${rssMiB.toFixed(0)} MiB`,
    );
    // A worker reply is a structured clone: count it.
    const r = await runSteps(
      `${size}MB`,
      async (axis) => structuredClone(session.timeline.overview(0, axis, COLUMNS)),
      async (request) => structuredClone(session.timeline.span(0, request)),
    );
    const allocator = allocatorView
      ? await runAllocatorSteps(
          `${size}MB`,
          async (axis) => structuredClone(session.timeline.overview(0, axis, COLUMNS)),
          async (request) => structuredClone(session.allocatorSpan(0, request)),
          async (state) => structuredClone(session.allocator(0).segmentMap(state - 1, session.analysis.lineIndex, 5000)),
          async (state) => structuredClone(replayedSegmentMap(selfCheckReplayAt(snapshot, 0).runTo(state), session.analysis.lineIndex, 5000)),
        )
      : undefined;
    results.memory.push({ sizeMB: size, events: snapshot.traces[0].length, blocks: timeline.layout.bySize.length, analyseMs, layoutMs, rssMiB, ...r, allocator });
  }

  const pickles = files.length > 0 ? files : existsSync(dataDir) ? readdirSync(dataDir).filter((f) => /-(100|500)MB\.pickle$/.test(f)).map((f) => path.join(dataDir, f)) : [];
  const workerScript = path.join(root, 'dist', 'analysisWorker.js');
  for (const file of pickles) {
    const worker = new SnapshotWorker(workerScript);
    try {
      // The worker reads the file itself, in chunks, as it does for the editor.
      const bytes = statSync(file).size;
      let started = performance.now();
      const info = await worker.call('load', { source: { kind: 'file', path: file }, filter: {} });
      const loadMs = performance.now() - started;
      const device = [...info.devices].sort((a, b) => b.peakBytes - a.peakBytes)[0].device;
      started = performance.now();
      const first = await worker.call('timelineOverview', { device, axis: 'event', columns: COLUMNS });
      const firstOverviewMs = performance.now() - started;
      console.log(
        `${path.basename(file)} through the worker: ${info.devices.find((d) => d.device === device).events} events, ${first.allocations} blocks; load ${(loadMs / 1000).toFixed(1)} s, ` +
          `first overview (builds the layout) ${firstOverviewMs.toFixed(0)} ms`,
      );
      const r = await runSteps(
        path.basename(file),
        (axis) => worker.call('timelineOverview', { device, axis, columns: COLUMNS }),
        (request) => worker.call('timelineSpan', { device, request }),
      );
      const allocator = allocatorView
        ? await runAllocatorSteps(
            path.basename(file),
            (axis) => worker.call('timelineOverview', { device, axis, columns: COLUMNS }),
            (request) => worker.call('allocatorSpan', { device, request }),
            (state) => worker.call('allocatorSegmentMap', { device, event: state - 1, maxBlocks: 5000 }),
          )
        : undefined;
      results.files.push({ file: path.basename(file), bytes, loadMs, firstOverviewMs, ...r, allocator });
    } finally {
      await worker.dispose();
    }
  }
  // The same steps on each --file loaded in this process, several passes: what the summariser costs
  // once V8 has compiled it (passes after the first), without a worker's reply.
  if (inProcessPasses > 0) {
    for (const file of files) {
      const { snapshot } = await openSnapshot({ kind: 'file', path: file });
      const session = new SnapshotSession(snapshot, statSync(file).size, {});
      const passes = [];
      for (let k = 1; k <= inProcessPasses; k++) {
        console.log(`${path.basename(file)} in this process, pass ${k} of ${inProcessPasses}:`);
        const r = await runSteps(
          `${path.basename(file)} in-process ${k}`,
          async (axis) => session.timeline.overview(0, axis, COLUMNS),
          async (request) => structuredClone(session.timeline.span(0, request)),
        );
        const totalMs = Object.values(r.axes).reduce((sum, a) => sum + a.totalMs, 0);
        console.log(`  all steps of both axes: ${(totalMs / 1000).toFixed(2)} s`);
        passes.push({ ...r, totalMs });
      }
      results.files.push({ file: path.basename(file), inProcess: passes });
    }
  }
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(dataDir, 'timeline-results.json'), JSON.stringify(results, null, 1));
  console.log(`Results in bench/.data/timeline-results.json`);
}

await main();
