// The allocator replay in `npm run bench` (called by bench/run.mjs):
//
// 1. On the corpus's largest snapshot, `vram-lens whatif FILE --json` (the self-check and the prediction)
//    against `vram-lens analyze FILE --json`, alternately, N times each: the best wall and CPU time of each.
//    Target: whatif takes less time than analyze. `whatif --table` (a dozen more replays: the GPU-size
//    table) is timed beside them.
// 2. On each generated large snapshot, `vram-lens whatif FILE --json` once: its peak RSS beside analyze's.
//    Target: at most 3x the file size, as for analyze.
import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';

export const TARGET_WHATIF_RATIO = 1.0;

/** The largest snapshot of the corpus directory. */
export function largestCorpusFile(corpus) {
  const files = readdirSync(corpus)
    .filter((f) => f.endsWith('.pickle') || f.endsWith('.pkl'))
    .map((f) => ({ file: path.join(corpus, f), bytes: statSync(path.join(corpus, f)).size }));
  files.sort((a, b) => b.bytes - a.bytes);
  return files[0];
}

/** `measure` runs argv under GNU time: { wallS, cpuS, peakRssBytes }. */
export async function benchWhatIf({ measure, cli, corpus, runs, generated, log }) {
  const largest = largestCorpusFile(corpus);
  const analyze = [];
  const whatif = [];
  const table = [];
  const line = (r) => `${r.wallS.toFixed(2)} s (cpu ${r.cpuS.toFixed(2)})`;
  for (let i = 0; i < runs; i++) {
    analyze.push(await measure([process.execPath, cli, 'analyze', largest.file, '--json']));
    whatif.push(await measure([process.execPath, cli, 'whatif', largest.file, '--json']));
    table.push(await measure([process.execPath, cli, 'whatif', largest.file, '--json', '--table']));
    log(`  run ${i + 1}/${runs}: analyze ${line(analyze[i])}, whatif ${line(whatif[i])}, whatif --table ${line(table[i])}\n`);
  }
  const best = (list, key) => Math.min(...list.map((r) => r[key]));
  const corpusResult = {
    file: path.basename(largest.file),
    bytes: largest.bytes,
    runs,
    analyzeBestWallS: best(analyze, 'wallS'),
    whatifBestWallS: best(whatif, 'wallS'),
    analyzeBestCpuS: best(analyze, 'cpuS'),
    whatifBestCpuS: best(whatif, 'cpuS'),
    tableBestWallS: best(table, 'wallS'),
  };
  corpusResult.ratio = corpusResult.whatifBestWallS / corpusResult.analyzeBestWallS;
  corpusResult.cpuRatio = corpusResult.whatifBestCpuS / corpusResult.analyzeBestCpuS;

  const large = [];
  for (const g of generated) {
    const r = await measure([process.execPath, cli, 'whatif', g.path, '--json']);
    log(`  ${path.basename(g.path)}: whatif ${r.wallS.toFixed(2)} s (cpu ${r.cpuS.toFixed(2)}), peak RSS ${(r.peakRssBytes / 1e6).toFixed(0)} MB\n`);
    large.push({ file: path.basename(g.path), bytes: g.bytes, wallS: r.wallS, cpuS: r.cpuS, peakRssBytes: r.peakRssBytes, analyzePeakRssBytes: g.analyzePeakRssBytes });
  }
  return { corpus: corpusResult, large };
}

export function whatIfTables(w, fmt) {
  const c = w.corpus;
  const corpusHeader = ['file', 'size MB', 'runs', 'analyze s', 'whatif s', 'whatif/analyze', 'cpu s analyze / whatif', 'cpu ratio', 'whatif --table s'];
  const corpusBody = [
    [
      c.file,
      fmt.mb(c.bytes),
      String(c.runs),
      fmt.s(c.analyzeBestWallS),
      fmt.s(c.whatifBestWallS),
      `${fmt.x(c.ratio)}${c.ratio < TARGET_WHATIF_RATIO ? '' : ' !'}`,
      `${fmt.s(c.analyzeBestCpuS)} / ${fmt.s(c.whatifBestCpuS)}`,
      fmt.x(c.cpuRatio),
      fmt.s(c.tableBestWallS),
    ],
  ];
  const largeHeader = ['file', 'size MB', 'whatif s', 'whatif RSS MB', 'RSS/size', 'analyze RSS MB'];
  const largeBody = w.large.map((r) => [
    r.file,
    fmt.mb(r.bytes),
    fmt.s(r.wallS),
    fmt.mb(r.peakRssBytes),
    `${fmt.x(r.peakRssBytes / r.bytes)}${r.peakRssBytes / r.bytes <= 3 ? '' : ' !'}`,
    r.analyzePeakRssBytes === undefined ? '-' : fmt.mb(r.analyzePeakRssBytes),
  ]);
  return { corpusHeader, corpusBody, largeHeader, largeBody };
}
