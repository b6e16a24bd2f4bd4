/** A fuzz worker: runs inputs [from, to) of a run and reports each one before starting the next. */
import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '../../src/engine/base/errors';
import { fuzzInput } from './inputs';
import { throughPipeline } from './pipeline';

interface Job {
  readonly seeds: { name: string; bytes: Uint8Array }[];
  readonly runSeed: number;
  readonly from: number;
  readonly to: number;
}

const job = workerData as Job;
for (let i = job.from; i < job.to; i++) {
  parentPort!.postMessage({ kind: 'start', index: i });
  const bytes = fuzzInput(job.seeds, job.runSeed, i);
  const started = performance.now();
  try {
    const reached = throughPipeline(bytes);
    parentPort!.postMessage({ kind: 'done', index: i, reached, ms: performance.now() - started, size: bytes.length });
  } catch (e) {
    parentPort!.postMessage({ kind: 'crash', index: i, error: e instanceof Error && e.stack ? e.stack : errorMessage(e) });
  }
}
