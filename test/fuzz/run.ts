/**
 * The fuzz and hostile-input suite: FUZZ_INPUTS inputs (default 20,000) through the whole pipeline
 * in worker threads, each input bounded in time (FUZZ_INPUT_MS, default 5 s: a worker that does not
 * finish an input in time is killed and the input reported as a hang) and in memory (each worker's
 * heap is capped at FUZZ_HEAP_MB, default 384 MiB: running past it kills the worker and reports the
 * input). The run seed is random unless FUZZ_SEED is set, and is printed with every failure so it
 * can be replayed: `FUZZ_SEED=<seed> FUZZ_ONLY=<index> npm run test:fuzz`.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { corpusMissing } from '../helpers/corpus';
import { loadSeeds } from './inputs';

const INPUTS = Number(process.env.FUZZ_INPUTS ?? 20_000);
const WORKERS = Number(process.env.FUZZ_WORKERS ?? 2);
const INPUT_MS = Number(process.env.FUZZ_INPUT_MS ?? 5000);
const HEAP_MB = Number(process.env.FUZZ_HEAP_MB ?? 384);
const CHUNK = 1000;
const runSeed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) >>> 0 : (Math.random() * 2 ** 32) >>> 0;
const only = process.env.FUZZ_ONLY !== undefined ? Number(process.env.FUZZ_ONLY) : undefined;

interface Failure {
  readonly index: number;
  readonly what: string;
}

const seeds = loadSeeds();
const reached = new Map<string, number>();
const failures: Failure[] = [];
let slowest = { ms: 0, index: -1, size: 0 };
let done = 0;

function runRange(from: number, to: number): Promise<void> {
  return new Promise((resolve) => {
    let current = from - 1;
    let timer: NodeJS.Timeout | undefined;
    let finished = false;
    const worker = new Worker(path.join(__dirname, 'worker.js'), {
      workerData: { seeds, runSeed, from, to },
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: 32 },
      stdout: true,
      stderr: true,
    });
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        fail({ index: current, what: `hang: no answer in ${INPUT_MS} ms` });
      }, INPUT_MS);
    };
    const fail = (failure: Failure): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      failures.push(failure);
      done++;
      void worker.terminate().then(() => runRange(current + 1, to).then(resolve));
    };
    worker.on('message', (m: { kind: string; index: number; reached?: string; ms?: number; size?: number; error?: string }) => {
      if (m.kind === 'start') {
        current = m.index;
        arm();
      } else if (m.kind === 'done') {
        done++;
        reached.set(m.reached!, (reached.get(m.reached!) ?? 0) + 1);
        if (m.ms! > slowest.ms) slowest = { ms: m.ms!, index: m.index, size: m.size! };
      } else if (m.kind === 'crash') {
        failures.push({ index: m.index, what: `crash: ${m.error}` });
        done++;
      }
    });
    worker.on('error', (e) => fail({ index: current, what: `worker died (${e.message}): over the memory bound or an engine abort` }));
    worker.on('exit', () => {
      clearTimeout(timer);
      if (!finished) {
        finished = true;
        resolve();
      }
    });
  });
}

async function main(): Promise<number> {
  const started = performance.now();
  const first = only ?? 0;
  const last = only !== undefined ? only + 1 : INPUTS;
  console.log(`fuzz: run seed ${runSeed}, inputs ${first}..${last - 1}, ${seeds.length} seeds (${seeds.length - 4} from the corpus), ${WORKERS} workers, ${INPUT_MS} ms and ${HEAP_MB} MiB per input`);
  if (corpusMissing) console.log(`fuzz: ${corpusMissing}: only synthetic seeds are used`);
  const ranges: [number, number][] = [];
  for (let i = first; i < last; i += CHUNK) ranges.push([i, Math.min(last, i + CHUNK)]);
  const pool = Array.from({ length: WORKERS }, async () => {
    for (let next = ranges.shift(); next !== undefined; next = ranges.shift()) await runRange(next[0], next[1]);
  });
  await Promise.all(pool);
  const seconds = (performance.now() - started) / 1000;
  const stages = ['file', 'decode', 'model', 'budget', 'done'].map((s) => `${s} ${reached.get(s) ?? 0}`).join(', ');
  console.log(`fuzz: ${done} inputs in ${seconds.toFixed(1)} s; rejected at / reached: ${stages}; slowest ${slowest.ms.toFixed(0)} ms (input ${slowest.index}, ${slowest.size} bytes)`);
  for (const f of failures.slice(0, 20)) console.log(`FAIL input ${f.index} (replay: FUZZ_SEED=${runSeed} FUZZ_ONLY=${f.index} npm run test:fuzz)\n  ${f.what.split('\n').slice(0, 6).join('\n  ')}`);
  if (failures.length > 0) {
    console.log(`fuzz: ${failures.length} failures with run seed ${runSeed}`);
    return 1;
  }
  console.log(`fuzz: 0 crashes, 0 hangs, 0 over the memory bound (run seed ${runSeed})`);
  return 0;
}

void main().then((code) => {
  process.exitCode = code;
});
