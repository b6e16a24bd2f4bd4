/**
 * Host side of a snapshot worker: typed calls, progress callbacks, cancellation (which ends the
 * worker: a snapshot being parsed cannot be half-kept). Free of `vscode`, so tests and the CLI use it too.
 */
import { Worker } from 'node:worker_threads';
import { OutOfMemoryError, RemoteError, UserError, isOutOfMemory } from '../../engine/base/errors';
import type { MethodName, ParamsOf, RequestMessage, ResultOf, WorkerToHost } from '../../protocol/worker';

export class CancelledError extends Error {
  override readonly name = 'CancelledError';
  constructor() {
    super('cancelled');
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  onProgress?: (message: string, fraction?: number) => void;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Progress: what the worker is doing, and how much of it is done (0 to 1) when it knows. */
  readonly onProgress?: (message: string, fraction?: number) => void;
  /** Buffers handed to the worker rather than copied (the caller no longer uses them). */
  readonly transfer?: readonly ArrayBuffer[];
}

export interface WorkerOptions {
  /** The most JavaScript heap the worker may use, in MiB (its `resourceLimits`); at the limit it stops, and calls fail in words. */
  readonly maxHeapMb?: number;
  /** What the user can do when the limit is reached (e.g. the setting that raises it). */
  readonly memoryAdvice?: string;
}

/** The worker's heap limit when none is given, in MiB (the default of `vramLens.analysis.memoryLimitMb`). */
export const DEFAULT_WORKER_HEAP_MB = 4096;
/** The least limit the setting takes (its minimum in package.json). */
export const MIN_WORKER_HEAP_MB = 256;

/** Why the calls of a worker that stopped fail: memory that ran out, in words, or the worker's end. */
export function workerStopped(e: unknown, what: string, limitMb: number, advice: string): Error {
  if (isOutOfMemory(e)) {
    return new OutOfMemoryError(`${what} needed more memory than it may use (${limitMb} MiB) and was stopped. ${advice}`, { cause: e });
  }
  // The engine's words stay in `cause`, for the log.
  return new UserError(`${what} stopped unexpectedly; please report it (the VRAM Lens log has the details)`, { cause: e });
}

export class SnapshotWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  /** What stopped the worker, as the engine said it (for the log); undefined while it runs. */
  stoppedBy: unknown;

  constructor(workerScript: string, options: WorkerOptions = {}) {
    const limit = options.maxHeapMb ?? DEFAULT_WORKER_HEAP_MB;
    const advice = options.memoryAdvice ?? 'Close other snapshots and try again.';
    this.worker = new Worker(workerScript, { resourceLimits: { maxOldGenerationSizeMb: limit } });
    this.worker.on('message', (m: WorkerToHost) => this.receive(m));
    this.worker.on('error', (e) => {
      this.stoppedBy = e;
      this.failAll(workerStopped(e, 'The analysis of this snapshot', limit, advice));
    });
    this.worker.on('exit', (code) => {
      const ended = this.closed; // ended by dispose(): the snapshot was closed
      this.closed = true;
      this.stoppedBy ??= `exit code ${code}`;
      this.failAll(ended ? new UserError('the snapshot was closed') : workerStopped(undefined, 'The analysis of this snapshot', limit, advice));
    });
  }

  call<M extends MethodName>(method: M, params: ParamsOf<M>, options: CallOptions = {}): Promise<ResultOf<M>> {
    if (this.closed) return Promise.reject(new UserError('the analysis of this snapshot has stopped: open the snapshot again'));
    if (options.signal?.aborted) return Promise.reject(new CancelledError());
    const id = this.nextId++;
    return new Promise<ResultOf<M>>((resolve, reject) => {
      this.pending.set(id, { resolve: (v) => resolve(v as ResultOf<M>), reject, onProgress: options.onProgress });
      options.signal?.addEventListener('abort', () => {
        if (!this.pending.has(id)) return;
        this.pending.delete(id);
        reject(new CancelledError());
        void this.dispose();
      });
      const request: RequestMessage<M> = { kind: 'request', id, method, params };
      this.worker.postMessage(request, options.transfer ? [...options.transfer] : undefined);
    });
  }

  async dispose(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.worker.terminate();
  }

  private receive(message: WorkerToHost): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.kind === 'progress') {
      pending.onProgress?.(message.message, message.fraction);
      return;
    }
    this.pending.delete(message.id);
    if (message.error) pending.reject(new RemoteError(message.error));
    else pending.resolve(message.result);
  }

  private failAll(error: Error): void {
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }
}
