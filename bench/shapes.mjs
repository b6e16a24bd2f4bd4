// No cliff (issue 30): the same events written in the shapes PyTorch's readers must take, read by
// `openSnapshot` (decode and model) in one process, warm, the shapes taking turns from the lightest to
// the heaviest (in each turn one untimed read, then three timed ones; each round starting with untimed
// reads of the plain file), against the plain file of the same events. Target: each within 1.25x of
// the plain file's time.
//
//   node bench/shapes.mjs [--source FILE] [--size 20] [--data DIR] [--rounds 3] [--json]
//
// The files come from bench/make-snapshot.py --variant (the plain file's repetitions in another shape):
// addresses raised by 2^52, trace entries' keys in reverse order (`action` last), a frames list of its
// own per entry (as PyTorch writes an `alloc`'s), new frame dicts per entry (as PyTorch 2.0 writes
// frames). The last two hold more bytes for the same events: their MB/s is printed beside the time.
// The fuzz suite checks that the fast path and the general machine agree on such files.
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { corpusDir, generatedDir, loadCore, pythonExecutable, repoRoot } from './common.mjs';

export const SHAPES = ['high-addresses', 'key-order', 'unshared-lists', 'unshared-frames'];
export const TARGET_SHAPE_RATIO = 1.25;

/** Timed reads of a shape in each of its turns (after one untimed read). */
const READS_IN_TURN = 3;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function generate(python, source, size, out, variant) {
  const argv = [path.join(repoRoot, 'bench', 'make-snapshot.py'), '--source', source, '--sizes', String(size), '--out', out];
  if (variant !== undefined) argv.push('--variant', variant);
  const line = execFileSync(python, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').pop();
  return JSON.parse(line);
}

export async function benchShapes({ source, size, data, rounds, log = () => undefined }) {
  const python = pythonExecutable();
  const files = [{ shape: 'plain', ...generate(python, source, size, data) }, ...SHAPES.map((shape) => ({ shape, ...generate(python, source, size, data, shape) }))];
  const core = await loadCore();
  const read = async (file) => {
    const started = performance.now();
    await core.openSnapshot({ kind: 'file', path: file.path });
    return performance.now() - started;
  };
  // One read of each first: V8 compiles what every shape needs before any is timed.
  for (const file of files) await read(file);
  const times = files.map(() => []);
  for (let r = 0; r < rounds; r++) {
    // A read right after the 257 MB shape takes 10-20 ms longer whatever its own shape (collecting that
    // one's garbage): taking turns one read each, the plain file (the yardstick) nearly always came
    // right after it, and a 50 ms shape's ratio moved by up to 1.6x. So each round starts with two
    // untimed reads of the plain file, the shapes go from the lightest to the heaviest, and each takes
    // its turn as one untimed read and then the timed ones.
    for (let settle = 0; settle < 2; settle++) await read(files[0]);
    for (let i = 0; i < files.length; i++) {
      await read(files[i]);
      for (let t = 0; t < READS_IN_TURN; t++) times[i].push(await read(files[i]));
    }
    log(`  round ${r + 1}/${rounds}: ${files.map((f, i) => `${f.shape} ${median(times[i].slice(-READS_IN_TURN)).toFixed(0)} ms`).join(', ')}\n`);
  }
  const plain = median(times[0]);
  return files.map((f, i) => ({
    shape: f.shape,
    file: path.basename(f.path),
    bytes: f.bytes,
    events: f.events,
    ms: median(times[i]),
    ratio: median(times[i]) / plain,
    mbPerS: f.bytes / 1e6 / (median(times[i]) / 1000),
  }));
}

export function shapesTable(results, fmt) {
  const header = ['shape', 'file', 'MB', 'events', 'read ms', `x plain (target <= ${TARGET_SHAPE_RATIO})`, 'MB/s'];
  const body = results.map((r) => [
    r.shape,
    r.file,
    (r.bytes / 1e6).toFixed(1),
    String(r.events),
    r.ms.toFixed(0),
    `${fmt.x(r.ratio)}${r.ratio <= TARGET_SHAPE_RATIO ? '' : ' !'}`,
    r.mbPerS.toFixed(0),
  ]);
  return { header, body };
}

async function main() {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : fallback;
  };
  const source = option('source', path.join(corpusDir(), 'nothanmin-cs336.pickle'));
  const results = await benchShapes({
    source: path.isAbsolute(source) ? source : path.join(corpusDir(), source),
    size: Number(option('size', '20')),
    data: generatedDir(option('data', undefined)),
    rounds: Number(option('rounds', '3')),
    log: (t) => process.stdout.write(t),
  });
  if (args.includes('--json')) {
    process.stdout.write(`${JSON.stringify(results)}\n`);
    return;
  }
  process.stdout.write(`shapes, read in one process (load average ${os.loadavg()[0].toFixed(2)}):\n`);
  for (const r of results) {
    process.stdout.write(`  ${r.shape.padEnd(16)} ${(r.bytes / 1e6).toFixed(1).padStart(7)} MB  ${r.ms.toFixed(0).padStart(6)} ms  ${r.ratio.toFixed(2)}x plain  ${r.mbPerS.toFixed(0)} MB/s\n`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  main().catch((e) => {
    process.stderr.write(`shapes: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
