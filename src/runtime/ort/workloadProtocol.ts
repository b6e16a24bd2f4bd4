/** Messages between a workload run's host (extension host or CLI) and its worker thread. */
import type { PlainValue } from '../../engine/pickle/encoder';
import type { DeviceMemorySamples, JobRequest, RunSummary } from './workloadJob';

export type HostToWorker =
  | { readonly kind: 'run'; readonly request: JobRequest }
  /** After `ran`: the device memory the host sampled during the run, so the snapshot can carry it. */
  | { readonly kind: 'finish'; readonly deviceMemory: DeviceMemorySamples | undefined };

export type WorkerToHost =
  | { readonly kind: 'progress'; readonly message: string }
  /** onnxruntime has finished: the host stops sampling device memory and sends `finish`. */
  | { readonly kind: 'ran' }
  /** The run's snapshot, as the plain values of its pickle (see `finishJob`). */
  | { readonly kind: 'done'; readonly snapshot: PlainValue; readonly summary: RunSummary }
  | { readonly kind: 'error'; readonly name: string; readonly message: string };
