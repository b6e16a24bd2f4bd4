/** Worker-thread entry: holds one snapshot and answers `WorkerMethods` requests from its parent. */
import { parentPort } from 'node:worker_threads';
import { errorShape } from '../../engine/base/errors';
import type { MethodContext } from './methods';
import { dispatch, load, warmUp } from './methods';
import type { ParamsOf, RequestMessage, WorkerToHost } from '../../protocol/worker';

const port = parentPort;
if (port) {
  const ctx: MethodContext = { session: undefined, progress: () => undefined };
  /** A warm-up in progress: the worker's own snapshot, when it is asked for, stops it. */
  let warming: AbortController | undefined;
  port.on('message', (message: RequestMessage) => {
    if (message?.kind !== 'request') return;
    const post = (m: WorkerToHost) => port.postMessage(m);
    ctx.progress = (text, fraction) => post({ kind: 'progress', id: message.id, message: text, fraction });
    if (message.method === 'load') warming?.abort();
    if (message.method === 'warmUp') warming = new AbortController();
    const signal = warming?.signal;
    const answer = async (): Promise<unknown> =>
      message.method === 'load'
        ? load(message.params as ParamsOf<'load'>, ctx)
        : message.method === 'warmUp'
          ? warmUp(message.params as ParamsOf<'warmUp'>, signal)
          : dispatch(message.method, message.params, ctx);
    answer().then(
      (result) => post({ kind: 'response', id: message.id, result }),
      (e: unknown) => post({ kind: 'response', id: message.id, error: errorShape(e) }),
    );
  });
}
