// The allocator replay in `npm run bench` (called by bench/run.mjs):
//
// 1. On the corpus's largest snapshot, `vram-lens whatif FILE` (the self-check and the prediction)
//    against `vram-lens analyze FILE`, the commands as a user types them, alternately, N times each:
//    the best wall and CPU time of each, and the median of the pairs' ratios. Target: whatif takes less
//    time than analyze. The same for the --json forms, reported beside them (`analyze --json` leaves the
//    allocator's self-check out, which the text prints, so there whatif does the replay that analyze
//    does not), and `whatif --table` (a dozen more replays: the GPU-size table).
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

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** `measure` runs argv under GNU time: { wallS, cpuS, peakRssBytes }. */
export async function benchWhatIf({ measure, cli, corpus, runs, generated, log }) {
  const largest = largestCorpusFile(corpus);
  const forms = [
    { form: 'as typed', extra: [] },
    { form: '--json', extra: ['--json'] },
  ].map((f) => ({ ...f, analyze: [], whatif: [] }));
  const table = [];
  const line = (r) => `${r.wallS.toFixed(2)} s (cpu ${r.cpuS.toFixed(2)})`;
  for (let i = 0; i < runs; i++) {
    for (const f of forms) {
      f.analyze.push(await measure([process.execPath, cli, 'analyze', largest.file, ...f.extra]));
      f.whatif.push(await measure([process.execPath, cli, 'whatif', largest.file, ...f.extra]));
      log(`  run ${i + 1}/${runs}, ${f.form}: analyze ${line(f.analyze[i])}, whatif ${line(f.whatif[i])}\n`);
    }
    table.push(await measure([process.execPath, cli, 'whatif', largest.file, '--json', '--table']));
    log(`  run ${i + 1}/${runs}: whatif --json --table ${line(table[i])}\n`);
  }
  const best = (list, key) => Math.min(...list.map((r) => r[key]));
  const pairs = (f, key) => median(f.whatif.map((r, i) => r[key] / f.analyze[i][key]));
  const corpusResult = {
    file: path.basename(largest.file),
    bytes: largest.bytes,
    runs,
    forms: forms.map((f) => ({
      form: f.form,
      analyzeBestWallS: best(f.analyze, 'wallS'),
      whatifBestWallS: best(f.whatif, 'wallS'),
      analyzeBestCpuS: best(f.analyze, 'cpuS'),
      whatifBestCpuS: best(f.whatif, 'cpuS'),
      medianPairRatio: pairs(f, 'wallS'),
      medianPairCpuRatio: pairs(f, 'cpuS'),
    })),
    tableBestWallS: best(table, 'wallS'),
  };
  for (const f of corpusResult.forms) {
    f.ratio = f.whatifBestWallS / f.analyzeBestWallS;
    f.cpuRatio = f.whatifBestCpuS / f.analyzeBestCpuS;
  }

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
  const corpusHeader = ['file', 'size MB', 'runs', 'commands', 'analyze s', 'whatif s', 'whatif/analyze', 'median of pairs', 'cpu s analyze / whatif', 'cpu ratio', 'whatif --json --table s'];
  const corpusBody = c.forms.map((f, k) => [
    c.file,
    fmt.mb(c.bytes),
    String(c.runs),
    f.form,
    fmt.s(f.analyzeBestWallS),
    fmt.s(f.whatifBestWallS),
    // The target is on the commands as typed; the --json forms are shown beside them.
    `${fmt.x(f.ratio)}${k > 0 || f.ratio < TARGET_WHATIF_RATIO ? '' : ' !'}`,
    fmt.x(f.medianPairRatio),
    `${fmt.s(f.analyzeBestCpuS)} / ${fmt.s(f.whatifBestCpuS)}`,
    fmt.x(f.cpuRatio),
    k === 0 ? fmt.s(c.tableBestWallS) : '',
  ]);
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
