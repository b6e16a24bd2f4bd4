/**
 * Host side of a snapshot worker: typed calls, progress callbacks, cancellation (which ends the
 * worker: a snapshot being parsed cannot be half-kept). Free of `vscode`, so tests and the CLI use it too.
 */
import { Worker } from 'node:worker_threads';
import { RemoteError } from '../../engine/base/errors';
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
}

export class SnapshotWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(workerScript: string) {
    this.worker = new Worker(workerScript);
    this.worker.on('message', (m: WorkerToHost) => this.receive(m));
    this.worker.on('error', (e) => this.failAll(e));
    this.worker.on('exit', (code) => {
      this.closed = true;
      this.failAll(new Error(`the analysis worker stopped (exit code ${code})`));
    });
  }

  call<M extends MethodName>(method: M, params: ParamsOf<M>, options: CallOptions = {}): Promise<ResultOf<M>> {
    if (this.closed) return Promise.reject(new Error('the analysis worker has stopped'));
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
      this.worker.postMessage(request);
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
