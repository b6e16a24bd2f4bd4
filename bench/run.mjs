// `npm run bench`: large snapshots built from a real corpus trace, analysed end to end by the CLI,
// against CPython merely unpickling the same file, in the same run.
//
//   node bench/run.mjs [--sizes 100,500] [--runs N] [--source FILE[,FILE]] [--no-phases] [--no-whatif]
//
// For each file: `node bin/vram-lens.js analyze FILE --json > /dev/null` and
// `python3 -c "import pickle, sys; pickle.load(open(sys.argv[1], 'rb'))" FILE`, alternately, N times
// each; the best wall time and the highest peak RSS (GNU time's %M) of each. Then the phases inside
// Node (bench/phases.mjs), and the allocator replay (`whatif`, bench/whatif.mjs). Writes bench/.data/results.json; prints a table, then the same as Markdown.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { MB, corpusDir, dataDir, pythonExecutable, repoRoot } from './common.mjs';
import { TARGET_WHATIF_RATIO, benchWhatIf, whatIfTables } from './whatif.mjs';

// Issue 23: the whole analysis in a quarter of the time CPython takes to unpickle, in no more memory than the file.
const TARGET_RATIO = 0.25;
const TARGET_RSS_PER_FILE_BYTE = 1.0;
const DEFAULT_SOURCE = 'nothanmin-cs336.pickle';
const TIME = '/usr/bin/time';

function parseArgs(argv) {
  const options = { sizes: [100, 500], runs: undefined, sources: [DEFAULT_SOURCE], phases: true, whatif: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--sizes') options.sizes = value().split(',').map(Number);
    else if (arg === '--runs') options.runs = Number(value());
    else if (arg === '--source') options.sources = value().split(',');
    else if (arg === '--no-phases') options.phases = false;
    else if (arg === '--no-whatif') options.whatif = false;
    else throw new Error(`unknown argument ${arg}\nusage: node bench/run.mjs [--sizes 100,500] [--runs N] [--source FILE[,FILE]] [--no-phases] [--no-whatif]`);
  }
  if (options.sizes.some((s) => !(s > 0))) throw new Error('--sizes takes positive sizes in MB, e.g. 100,500');
  if (options.runs !== undefined && !(options.runs >= 1)) throw new Error('--runs takes a count >= 1');
  return options;
}

/** Best of 3 for files up to 200 MB, 2 above: a 500 MB file costs minutes per pair of runs. */
function runsFor(bytes, requested) {
  return requested ?? (bytes <= 200 * MB ? 3 : 2);
}

function loadAverage() {
  return os.loadavg().map((l) => l.toFixed(2)).join(' ');
}

function machine(python) {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  const pythonVersion = execFileSync(python, ['-c', 'import sys; print(sys.version.split()[0])'], { encoding: 'utf8' }).trim();
  return {
    cpu: model,
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    python: pythonVersion,
    pythonExecutable: python,
    loadAverageAtStart: loadAverage(),
  };
}

/** Runs argv under GNU time with stdout to /dev/null: { wallS, cpuS (user + system), peakRssBytes }. Throws on failure. */
function measure(argv) {
  const stats = path.join(dataDir, 'time.out');
  rmSync(stats, { force: true });
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(TIME, ['-f', '%M %U %S', '-o', stats, '--', ...argv], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallS = (performance.now() - start) / 1000;
      if (code !== 0) {
        reject(new Error(`${argv.join(' ')} exited with ${code}\n${stderr.slice(-2000)}`));
        return;
      }
      const [kib, user, system] = readFileSync(stats, 'utf8').trim().split('\n').pop().split(' ').map(Number);
      resolve({ wallS, cpuS: user + system, peakRssBytes: kib * 1024 });
    });
  });
}

/** Reads the file once so that every measured run finds it in the page cache. */
function warmPageCache(file) {
  const fd = openSync(file, 'r');
  const chunk = Buffer.allocUnsafe(1 << 22);
  while (readSync(fd, chunk, 0, chunk.length, null) > 0);
  closeSync(fd);
}

function generate(python, source, sizes) {
  const out = execFileSync(python, [path.join(repoRoot, 'bench', 'make-snapshot.py'), '--source', source, '--sizes', sizes.join(','), '--out', dataDir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  return out.trim().split('\n').map((line) => JSON.parse(line));
}

function phasesOf(file) {
  const out = execFileSync(process.execPath, ['--expose-gc', path.join(repoRoot, 'bench', 'phases.mjs'), file, '--json'], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  return JSON.parse(out);
}

const fmt = {
  mb: (bytes) => (bytes / MB).toFixed(1),
  s: (seconds) => seconds.toFixed(2),
  x: (ratio) => ratio.toFixed(2),
};

function rows(results) {
  return results.map((r) => [
    r.file,
    fmt.mb(r.bytes),
    String(r.events),
    String(r.runs),
    fmt.s(r.node.bestWallS),
    fmt.s(r.python.bestWallS),
    `${fmt.x(r.ratio)}${r.ratio <= TARGET_RATIO ? '' : ' !'}`,
    `${fmt.s(r.node.bestCpuS)} / ${fmt.s(r.python.bestCpuS)}`,
    fmt.x(r.cpuRatio),
    fmt.mb(r.node.peakRssBytes),
    `${fmt.x(r.rssPerFileByte)}${r.rssPerFileByte <= TARGET_RSS_PER_FILE_BYTE ? '' : ' !'}`,
    fmt.mb(r.python.peakRssBytes),
  ]);
}

const HEADER = ['file', 'size MB', 'events', 'runs', 'node s', 'python s', 'node/python', 'cpu s node / python', 'cpu ratio', 'node RSS MB', 'RSS/size', 'python RSS MB'];

function textTable(header, body) {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

function markdownTable(header, body) {
  const line = (row) => `| ${row.join(' | ')} |`;
  return [line(header), `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...body.map(line)].join('\n');
}

function phasesTable(results) {
  const header = ['file', 'load ms', 'analysis ms', 'report ms', 'heap after load MiB', 'model MiB', 'peak RSS MiB'];
  const body = results
    .filter((r) => r.phases !== undefined)
    .map((r) => {
      const p = Object.fromEntries(r.phases.phases.map((x) => [x.phase, x]));
      return [
        r.file,
        ...['load', 'analysis', 'report'].map((name) => p[name].ms.toFixed(0)),
        p.load.heapUsedMiB.toFixed(0),
        r.phases.modelMiB === undefined ? '-' : r.phases.modelMiB.toFixed(0),
        r.phases.peakRssMiB.toFixed(0),
      ];
    });
  return { header, body };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (!existsSync(TIME)) {
    throw new Error(`${TIME} not found: install GNU time (Debian: apt-get install time) to measure peak RSS`);
  }
  if (!existsSync(path.join(repoRoot, 'dist', 'cli.js'))) throw new Error('dist/cli.js missing: run `npm run build` (npm run bench does)');
  const python = pythonExecutable();
  const info = machine(python);
  process.stdout.write(
    `machine: ${info.cpu}, ${info.cores} cores, ${info.memoryGiB} GiB, ${info.os}\n` +
      `node ${info.node}, python ${info.python} (${info.pythonExecutable})\n` +
      `load average at start: ${loadAverage()} (other work on the machine slows both sides; compare the ratio, rerun when busy)\n\n`,
  );

  const corpus = corpusDir();
  const results = [];
  for (const sourceName of options.sources) {
    const source = path.isAbsolute(sourceName) ? sourceName : path.join(corpus, sourceName);
    process.stdout.write(`generating ${options.sizes.join(', ')} MB from ${source} (cached in bench/.data/)...\n`);
    for (const generated of generate(python, source, options.sizes)) {
      const file = generated.path;
      const runs = runsFor(generated.bytes, options.runs);
      const name = path.basename(file);
      process.stdout.write(`${name}: ${fmt.mb(generated.bytes)} MB, ${generated.events} events (${generated.reps} repetitions)${generated.cached ? ', cached' : ''}\n`);
      warmPageCache(file);
      const nodeRuns = [];
      const pythonRuns = [];
      for (let i = 0; i < runs; i++) {
        nodeRuns.push(await measure([process.execPath, path.join(repoRoot, 'bin', 'vram-lens.js'), 'analyze', file, '--json']));
        pythonRuns.push(await measure([python, '-c', "import pickle, sys; pickle.load(open(sys.argv[1], 'rb'))", file]));
        const n = nodeRuns[i];
        const p = pythonRuns[i];
        const line = (r) => `${fmt.s(r.wallS)} s (cpu ${fmt.s(r.cpuS)} s) ${fmt.mb(r.peakRssBytes)} MB`;
        process.stdout.write(`  run ${i + 1}/${runs}: node ${line(n)}, python ${line(p)}\n`);
      }
      const summary = (list) => ({
        bestWallS: Math.min(...list.map((r) => r.wallS)),
        bestCpuS: Math.min(...list.map((r) => r.cpuS)),
        wallS: list.map((r) => r.wallS),
        cpuS: list.map((r) => r.cpuS),
        peakRssBytes: Math.max(...list.map((r) => r.peakRssBytes)),
      });
      const node = summary(nodeRuns);
      const py = summary(pythonRuns);
      const result = {
        file: name,
        source: path.basename(source),
        bytes: generated.bytes,
        events: generated.events,
        repetitions: generated.reps,
        runs,
        node,
        python: py,
        ratio: node.bestWallS / py.bestWallS,
        cpuRatio: node.bestCpuS / py.bestCpuS,
        rssPerFileByte: node.peakRssBytes / generated.bytes,
      };
      if (options.phases) {
        result.phases = phasesOf(file);
        const p = result.phases;
        process.stdout.write(`  phases: ${p.phases.map((x) => `${x.phase} ${x.ms.toFixed(0)} ms`).join(', ')}; peak RSS ${p.peakRssMiB.toFixed(0)} MiB\n`);
      }
      results.push(result);
    }
  }

  let whatif;
  if (options.whatif) {
    process.stdout.write('\nwhatif (the allocator replay) on the corpus\'s largest snapshot, against analyze:\n');
    whatif = await benchWhatIf({
      measure,
      cli: path.join(repoRoot, 'bin', 'vram-lens.js'),
      corpus,
      runs: options.runs ?? 5,
      generated: results.map((r) => ({ path: path.join(dataDir, r.file), bytes: r.bytes, analyzePeakRssBytes: r.node.peakRssBytes })),
      log: (text) => process.stdout.write(text),
    });
  }

  const body = rows(results);
  info.loadAverageAtEnd = loadAverage();
  process.stdout.write(`\nload average at end: ${info.loadAverageAtEnd}\n`);
  process.stdout.write(`\ntargets: node/python <= ${TARGET_RATIO.toFixed(2)}, node peak RSS <= ${TARGET_RSS_PER_FILE_BYTE.toFixed(1)}x file size ('!' marks a miss)\n`);
  process.stdout.write(
    'times: best wall-clock seconds of `runs` (the target); cpu: best user + system seconds (all threads; steadier on a busy machine);\n' +
      'RSS: highest peak resident set (GNU time %M) of those runs; MB = 10^6 bytes\n\n',
  );
  process.stdout.write(textTable(HEADER, body) + '\n');
  const phases = phasesTable(results);
  if (phases.body.length > 0) process.stdout.write('\nphases inside node (one run of bench/phases.mjs):\n' + textTable(phases.header, phases.body) + '\n');

  const w = whatif ? whatIfTables(whatif, fmt) : undefined;
  if (w) {
    process.stdout.write(`\nwhatif on the largest corpus snapshot (target: whatif/analyze < ${TARGET_WHATIF_RATIO.toFixed(1)} on the commands as typed):\n` + textTable(w.corpusHeader, w.corpusBody) + '\n');
    if (w.largeBody.length > 0) process.stdout.write('\nwhatif on the large snapshots (target: RSS/size <= 3, as analyze):\n' + textTable(w.largeHeader, w.largeBody) + '\n');
  }

  process.stdout.write(`\nMarkdown (${info.cpu}, ${info.cores} cores, ${info.memoryGiB} GiB; node ${info.node}, python ${info.python}):\n\n`);
  process.stdout.write(markdownTable(HEADER, body) + '\n');
  if (phases.body.length > 0) process.stdout.write('\n' + markdownTable(phases.header, phases.body) + '\n');
  if (w) {
    process.stdout.write('\n' + markdownTable(w.corpusHeader, w.corpusBody) + '\n');
    if (w.largeBody.length > 0) process.stdout.write('\n' + markdownTable(w.largeHeader, w.largeBody) + '\n');
  }

  const resultsFile = path.join(dataDir, 'results.json');
  writeFileSync(resultsFile, JSON.stringify({ date: new Date().toISOString(), machine: info, targets: { ratio: TARGET_RATIO, rssPerFileByte: TARGET_RSS_PER_FILE_BYTE, whatifRatio: TARGET_WHATIF_RATIO }, results, whatif }, null, 1) + '\n');
  process.stdout.write(`\nresults: ${path.relative(repoRoot, resultsFile)}\n`);
}

main().catch((e) => {
  process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
