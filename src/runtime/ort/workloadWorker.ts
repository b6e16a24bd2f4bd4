/**
 * Worker-thread entry of a workload run: onnxruntime-node runs sessions synchronously on the calling
 * thread, so a run lives here, where it blocks nothing and where cancelling ends only this thread.
 */
import { parentPort } from 'node:worker_threads';
import { errorShape } from '../../engine/base/errors';
import type { ExecutedJob } from './workloadJob';
import { executeJob, finishJob } from './workloadJob';
import type { HostToWorker, WorkerToHost } from './workloadProtocol';

const port = parentPort;
if (port) {
  const post = (message: WorkerToHost, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  const fail = (e: unknown) => post({ kind: 'error', ...errorShape(e) });
  let executed: ExecutedJob | undefined;
  port.on('message', (message: HostToWorker) => {
    if (message.kind === 'run') {
      executeJob(message.request, (text) => post({ kind: 'progress', message: text })).then((job) => {
        executed = job;
        post({ kind: 'ran' });
      }, fail);
    } else if (message.kind === 'finish' && executed) {
      try {
        post({ kind: 'progress', message: 'writing the snapshot' });
        const { snapshot, summary } = finishJob(executed, message.deviceMemory);
        post({ kind: 'done', snapshot, summary });
      } catch (e) {
        fail(e);
      }
    }
  });
}
