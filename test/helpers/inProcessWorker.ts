/**
 * A stand-in for a snapshot worker thread that answers in this process (through the worker's own
 * `dispatch`, answers cloned as a message would be) and counts what it was asked: tests of what the
 * host caches use it where starting a worker thread would only slow them down.
 */
import type { SnapshotWorkerPort } from '../../src/extension/shared/loadedSnapshot';
import type { MethodContext } from '../../src/runtime/worker/methods';
import { dispatch } from '../../src/runtime/worker/methods';
import type { MethodName, ParamsOf, ResultOf, SnapshotInfo } from '../../src/protocol/worker';
import { SnapshotSession } from '../../src/engine/session/session';
import type { Snapshot } from '../../src/engine/snapshot/model';

export class InProcessWorker implements SnapshotWorkerPort {
  readonly asked: MethodName[] = [];
  /** Every request's parameters, as they crossed (cloned), in order. */
  readonly requests: { readonly method: MethodName; readonly params: unknown }[] = [];
  disposed = false;
  private readonly ctx: MethodContext;

  constructor(snapshot: Snapshot) {
    this.ctx = { session: new SnapshotSession(snapshot, 0, {}), progress: () => undefined };
  }

  /** The snapshot's info, as the worker's `load` answers it. */
  info(): SnapshotInfo {
    return this.ctx.session!.info();
  }

  /** How many times `method` was asked. */
  count(method: MethodName): number {
    return this.asked.filter((m) => m === method).length;
  }

  /** The parameters of every `method` request, in order. */
  paramsOf<M extends MethodName>(method: M): ParamsOf<M>[] {
    return this.requests.filter((r) => r.method === method).map((r) => r.params as ParamsOf<M>);
  }

  async call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    if (this.disposed) throw new Error('the analysis worker has stopped');
    this.asked.push(method);
    const crossed = structuredClone(params);
    this.requests.push({ method, params: crossed });
    await Promise.resolve();
    if (method === 'load' || method === 'warmUp') throw new Error('an in-process worker holds the snapshot it was made with');
    return structuredClone(dispatch(method, crossed, this.ctx));
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.resolve();
  }
}
