/** Worker-thread entry: holds one snapshot and answers `WorkerMethods` requests from its parent. */
import { parentPort } from 'node:worker_threads';
import { errorShape } from '../../engine/base/errors';
import type { MethodContext } from './methods';
import { dispatch } from './methods';
import type { RequestMessage, WorkerToHost } from '../../protocol/worker';

const port = parentPort;
if (port) {
  const ctx: MethodContext = { session: undefined, progress: () => undefined };
  port.on('message', (message: RequestMessage) => {
    if (message?.kind !== 'request') return;
    const post = (m: WorkerToHost) => port.postMessage(m);
    ctx.progress = (text) => post({ kind: 'progress', id: message.id, message: text });
    try {
      const result = dispatch(message.method, message.params, ctx);
      post({ kind: 'response', id: message.id, result });
    } catch (e) {
      post({ kind: 'response', id: message.id, error: errorShape(e) });
    }
  });
}
