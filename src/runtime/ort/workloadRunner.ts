/**
 * Host side of a workload run: starts the worker, samples this process's GPU memory through NVML
 * while onnxruntime runs (where an NVIDIA driver is present), and cancels by ending the worker.
 * Free of `vscode`: the extension and the CLI both use it.
 */
import type { PlainValue } from '../../engine/pickle/encoder';
import { Worker } from 'node:worker_threads';
import { RemoteError, UserError } from '../../engine/base/errors';
import { CancelledError, DEFAULT_WORKER_HEAP_MB, workerStopped } from '../worker/client';
import { DeviceMemoryRecorder, openNvml } from './nvml';
import type { DeviceMemorySamples, JobRequest, RunSummary } from './workloadJob';
import { executeJob, finishJob } from './workloadJob';
import type { HostToWorker, WorkerToHost } from './workloadProtocol';

export interface RunOptions {
  /** The bundled worker script (dist/workloadWorker.js); without it the run blocks the calling thread and no device-memory line is sampled. */
  readonly workerScript?: string;
  readonly signal?: AbortSignal;
  readonly onProgress?: (message: string) => void;
  /** The worker's JavaScript heap limit in MiB (default `DEFAULT_WORKER_HEAP_MB`); onnxruntime's own memory is not counted. */
  readonly maxHeapMb?: number;
}

export interface WorkloadResult {
  /**
   * The run's snapshot, as the plain values its PyTorch-format pickle holds: `openSnapshot` reads them,
   * `encodePickle` writes the file.
   */
  readonly snapshot: PlainValue;
  readonly summary: RunSummary;
}

export async function runWorkload(request: JobRequest, options: RunOptions = {}): Promise<WorkloadResult> {
  if (options.signal?.aborted) throw new CancelledError();
  if (options.workerScript === undefined) {
    const executed = await executeJob(request, options.onProgress);
    if (options.signal?.aborted) throw new CancelledError();
    return finishJob(executed);
  }
  const limit = options.maxHeapMb ?? DEFAULT_WORKER_HEAP_MB;
  const worker = new Worker(options.workerScript, { resourceLimits: { maxOldGenerationSizeMb: limit } });
  const recorder = request.provider === 'cpu' ? undefined : openNvmlRecorder();
  let samples: DeviceMemorySamples | undefined;
  try {
    return await new Promise<WorkloadResult>((resolve, reject) => {
      const send = (message: HostToWorker) => worker.postMessage(message);
      options.signal?.addEventListener('abort', () => {
        reject(new CancelledError());
        void worker.terminate();
      });
      worker.on('message', (message: WorkerToHost) => {
        switch (message.kind) {
          case 'progress':
            options.onProgress?.(message.message);
            break;
          case 'ran':
            samples = recorder?.stop();
            send({ kind: 'finish', deviceMemory: samples });
            break;
          case 'done':
            resolve({ snapshot: message.snapshot, summary: message.summary });
            break;
          case 'error':
            reject(new RemoteError(message));
            break;
        }
      });
      // The engine's words ("Worker terminated due to reaching memory limit") become ours.
      worker.on('error', (e) => reject(workerStopped(e, 'The run', limit, 'Choose a smaller size (or smaller inputs for a model) and run it again.')));
      worker.on('exit', (code) => reject(new UserError(`the run stopped unexpectedly (exit code ${code}); please report it`)));
      recorder?.start();
      send({ kind: 'run', request });
    });
  } finally {
    if (samples === undefined) recorder?.stop();
    await worker.terminate();
  }
}

function openNvmlRecorder(): DeviceMemoryRecorder | undefined {
  const probe = openNvml();
  return probe ? new DeviceMemoryRecorder(probe) : undefined;
}
